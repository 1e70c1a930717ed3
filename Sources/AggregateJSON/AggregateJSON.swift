// AggregateJSON: JSON bytes in and out — the tree parser, the streaming event reader and its views, JSON paths,
// the outline and leaf paths `browse` shows, the writer, and `JSONValue`. Usable alone: `browse` and `normalize`
// need nothing else. No HTTP, no providers.
// May import: AggregateText, Foundation, Glibc, Darwin
