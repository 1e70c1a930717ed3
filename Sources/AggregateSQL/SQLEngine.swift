public import AggregateCore
public import AggregateHTTP
import AggregateJSON
import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Runs one SQL statement over the provider tables, or plans it without sending anything.
///
/// ```swift
/// let engine = SQLEngine(catalog: SQLCatalog(registry: registry))
/// let result = try await engine.run("SELECT title FROM tmdb_search('batman') WHERE year = 1989", runner: runner)
/// ```
public struct SQLEngine: Sendable {
    /// How a statement runs.
    public struct Options: Sendable {
        /// The most items a table reads per key values when the statement pushes no `LIMIT` down (`--limit`).
        public var defaultLimit = 20
        /// The most requests the statement may send (`--max-requests`).
        public var maxRequests = 100
        /// Whether a failing table gives no rows and a failure in `meta` instead of failing the statement.
        public var partial = false
        /// A SQLite file to attach as schema `db` (`--db`), beside the provider tables.
        public var database: String?

        /// Creates options with the command line's defaults.
        public init(defaultLimit: Int = 20, maxRequests: Int = 100, partial: Bool = false, database: String? = nil) {
            (self.defaultLimit, self.maxRequests, self.partial, self.database) = (defaultLimit, maxRequests, partial, database)
        }
    }

    /// The tables statements may read.
    public var catalog: SQLCatalog

    /// Creates an engine over `catalog`.
    public init(catalog: SQLCatalog) { self.catalog = catalog }

    /// What `statement` would read and send at most, from SQLite's own plan; nothing is fetched.
    /// - Throws: a `usage` error for a statement SQLite refuses or a required key column left unconstrained.
    public func plan(_ statement: String, options: Options = Options()) throws(AggregateError) -> SQLPlan {
        let run = SQLStatementRun(fetch: Self.refuseFetch, defaultLimit: options.defaultLimit, maxRequests: options.maxRequests, partial: options.partial)
        let connection = try open(options: options, run: run)
        return try plan(Self.single(statement, on: connection), on: connection, options: options)
    }

    /// The plan of `sql` on `connection`, from the `VFilter` steps of `EXPLAIN` (which runs no scan).
    private func plan(_ sql: String, on connection: SQLiteConnection, options: Options) throws(AggregateError) -> SQLPlan {
        let explain: SQLiteStatement
        do {
            explain = try connection.statement("EXPLAIN " + sql)
        } catch {
            throw Self.usage(error, statement: sql, prefix: "EXPLAIN ".utf8.count)
        }
        var scans: [ScanPlan] = []
        do {
            let names = explain.columnNames
            guard let opcode = names.firstIndex(of: "opcode"), let p4 = names.firstIndex(of: "p4") else { return SQLPlan(scans: [], catalog: catalog, options: options) }
            while try explain.step() {
                guard explain.value(at: Int32(opcode)) == .text("VFilter"), case .text(let text) = explain.value(at: Int32(p4)),
                      let plan = ScanPlan(text: text) else { continue }
                scans.append(plan)
            }
        } catch {
            throw Self.usage(error, statement: sql, prefix: 0)
        }
        return SQLPlan(scans: scans, catalog: catalog, options: options)
    }

    /// Runs `statement`, fetching each scan with `fetch` (on the calling thread, which it may block).
    /// - Throws: a `usage` error for a statement SQLite refuses, one that would pass `maxRequests`, or a key value
    ///   of the wrong type; the provider's error when a table fails (unless `partial`).
    public func run(_ statement: String, options: Options = Options(), fetch: @escaping SQLBlockingFetch) throws(AggregateError) -> SQLResult {
        let run = SQLStatementRun(fetch: fetch, defaultLimit: options.defaultLimit, maxRequests: options.maxRequests, partial: options.partial)
        let connection = try open(options: options, run: run)
        let sql = try Self.single(statement, on: connection)
        // The plan first, on the same connection: a statement that could pass the budget sends nothing at all.
        if let bound = try plan(sql, on: connection, options: options).totalRequests, bound > options.maxRequests {
            throw AggregateError(
                .usage,
                "the statement may send up to \(bound) requests, more than --max-requests \(options.maxRequests); see them with --plan, narrow it (LIMIT, fewer key values) or raise --max-requests")
        }
        var rows: [[SQLValue]] = []
        let columns: [String]
        do {
            let prepared = try connection.statement(sql)
            columns = prepared.columnNames
            let count = Int32(columns.count)
            while try prepared.step() {
                rows.append((0..<count).map(prepared.value(at:)))
            }
        } catch {
            if let failure = run.failure { throw failure }
            throw Self.usage(error, statement: sql, prefix: 0)
        }
        return SQLResult(statement: sql, columns: columns, rows: rows, scans: run.results.map { SQLResult.Scan(table: $0.table.name, result: $0.result) })
    }

    /// Runs `statement` with every fetch through `runner`: credentials, retries, the cache, the rate limiter and
    /// the recorder or replayer it has, live or offline as `settings` say. Runs in one statement share a
    /// ``RunCache``, so lookups (TMDb's configuration, X's user ids) are made once.
    public func run(
        _ statement: String, options: Options = Options(), runner: ProviderRunner, settings: ProviderRunner.Settings = ProviderRunner.Settings(),
        environment: @escaping @Sendable (String) -> [String: String]? = { _ in nil }
    ) async throws(AggregateError) -> SQLResult {
        let cache = RunCache()
        let fetch: SQLBlockingFetch = { scan in
            var scanSettings = settings
            scanSettings.limit = scan.limit
            scanSettings.limitIsExplicit = true
            scanSettings.keepsRawBodies = false
            let fixed = scanSettings
            return BlockingFetch.wait {
                await runner.run(
                    scan.table.provider, operation: scan.table.operation.name, parameters: scan.parameters, settings: fixed,
                    environment: environment(scan.table.providerName), cache: cache)
            }
        }
        return try await BlockingWork.run { () throws(AggregateError) -> SQLResult in
            try run(statement, options: options, fetch: fetch)
        }
    }

    /// A fetch for planning, which never fetches.
    private static let refuseFetch: SQLBlockingFetch = { scan in
        ProviderResult(provider: scan.table.providerName, operation: scan.table.operation.name, query: scan.parameters,
                       error: AggregateError(.usage, "a plan sends no request"), meta: ResultMeta(source: .offline))
    }

    /// A connection with every table registered (and the `--db` file attached as `db`).
    private func open(options: Options, run: SQLStatementRun) throws(AggregateError) -> SQLiteConnection {
        do {
            let connection = try SQLiteConnection(path: ":memory:")
            try VirtualTables.register(catalog.tables, on: connection, run: run)
            if let database = options.database {
                guard FileManager.default.fileExists(atPath: database) else {
                    throw AggregateError(.noInput, "--db \(database): no such file; create one with --to")
                }
                do {
                    try connection.statement("ATTACH DATABASE ?1 AS db").run([.text(database)])
                    // Reading the schema now turns a file that is not a database into a clear error here.
                    try connection.statement("SELECT count(*) FROM db.sqlite_master").run()
                } catch {
                    throw AggregateError(.invalidInput, "--db \(database): \(error.message)")
                }
            }
            return connection
        } catch let failure as SQLiteFailure {
            throw AggregateError(.ioError, "cannot open SQLite: \(failure.message)")
        } catch let error as AggregateError {
            throw error
        } catch {
            throw AggregateError(.ioError, "cannot open SQLite: \(error)")
        }
    }

    /// The one statement `text` holds, without its trailing semicolon.
    /// - Throws: a `usage` error for no statement, or more than one.
    private static func single(_ text: String, on connection: SQLiteConnection) throws(AggregateError) -> String {
        let prepared: (statement: SQLiteStatement?, rest: String)
        do {
            prepared = try connection.prepare(text)
        } catch {
            throw usage(error, statement: text, prefix: 0)
        }
        guard prepared.statement != nil else { throw AggregateError(.usage, "no SQL statement given") }
        let rest = prepared.rest.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
        guard rest.isEmpty else { throw AggregateError(.usage, "give one SQL statement; this one is followed by '\(rest.prefix(40))'") }
        return text
    }

    /// SQLite's refusal as a usage error, with where in the statement it happened.
    static func usage(_ failure: SQLiteFailure, statement: String, prefix: Int) -> AggregateError {
        var message = failure.message
        if message.hasSuffix("may not be modified") {
            message += ": the provider tables are read-only (post with 'aggregate messageboard post')"
        } else if message == "no query solution" {
            message = "no order of the tables gives every required key column a value; constrain each one (see --describe TABLE)"
        }
        if let offset = failure.offset, offset >= prefix {
            let bytes = Array(statement.utf8.prefix(offset - prefix))
            let character = String(decoding: bytes, as: UTF8.self).count + 1
            message += " (at character \(character))"
        }
        return AggregateError(.usage, message)
    }
}

/// Waits on a thread outside the cooperative pool for async work (a provider run) to finish.
enum BlockingFetch {
    final class Box: @unchecked Sendable {
        var value: ProviderResult?
    }

    static func wait(_ work: @escaping @Sendable () async -> ProviderResult) -> ProviderResult {
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await work()
            done.signal()
        }
        done.wait()
        // The semaphore orders the write before this read.
        return box.value ?? ProviderResult(provider: "", operation: "", query: JSONObject(), error: AggregateError(.network, "the run ended without a result"), meta: ResultMeta(source: .live))
    }
}
