// AggregateSQL: `aggregate sql` as a library. Every provider operation that reads is a SQLite virtual table
// (`SQLCatalog`, `SQLTable`), whose key columns carry `=` and `IN` constraints, table-valued-function arguments and
// `LIMIT` into the API's parameters; `SQLEngine` runs one statement over them through the normal fetch chain
// (`ProviderRunner`), plans it without sending anything (`SQLPlan`), and `SQLItemStore` keeps fetched items in a
// SQLite file. Platform-neutral: the system's SQLite (`CSQLite` on Linux, the `SQLite3` module on Apple platforms).
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, Foundation, CSQLite, SQLite3, Dispatch, Synchronization
