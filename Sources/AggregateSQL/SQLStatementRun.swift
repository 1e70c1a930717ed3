public import AggregateCore
import AggregateJSON
import Foundation

/// Fetches one scan for a statement; called on the thread that steps the statement, which it may block.
public typealias SQLBlockingFetch = @Sendable (SQLScan) -> ProviderResult

/// What one statement's run shares between its virtual tables: how to fetch, what was fetched (each table and key
/// values once), the request budget, and the first failure. Used only on the thread that steps the statement.
final class SQLStatementRun {
    /// A fetch already made in this statement.
    struct Fetched {
        var result: ProviderResult
        var limit: Int
        /// Whether the API had no more items than these (a larger limit would fetch nothing new).
        var isComplete: Bool { result.items.count < limit && result.meta.nextCursor == nil }
    }

    let fetch: SQLBlockingFetch
    let defaultLimit: Int
    let maxRequests: Int
    /// Whether a failing table gives no rows (and a note) instead of failing the statement (`--partial`).
    let partial: Bool
    /// Fetches by table and key values.
    private(set) var fetched: [String: Fetched] = [:]
    /// Every result, in the order fetched (for `meta` and `--to`).
    private(set) var results: [(table: SQLTable, result: ProviderResult)] = []
    /// The requests sent so far.
    private(set) var requests = 0
    /// The tables whose lookups were already counted against the budget.
    private var lookedUp: Set<String> = []
    /// The error that stopped the statement (SQLite only sees its text).
    var failure: AggregateError?

    init(fetch: @escaping SQLBlockingFetch, defaultLimit: Int, maxRequests: Int, partial: Bool) {
        self.fetch = fetch
        self.defaultLimit = defaultLimit
        self.maxRequests = maxRequests
        self.partial = partial
    }

    /// The items of `scan`: fetched once per table and key values in the statement, whatever the plan.
    /// - Throws: the provider's error (unless `partial`), or a `usage` error when the scan would pass `maxRequests`.
    func items(for scan: SQLScan) throws(AggregateError) -> [Item] {
        let key = scan.table.name + " " + JSONWriter().string(.object(scan.parameters))
        if let done = fetched[key], done.limit >= scan.limit || done.isComplete { return done.result.items }
        let cost = scan.table.operation.cost
        let bound = cost.pages(forLimit: scan.limit) + (lookedUp.contains(scan.table.name) ? 0 : cost.lookups)
        if requests + bound > maxRequests {
            throw AggregateError(
                .usage,
                "the statement needs more than --max-requests \(maxRequests) requests: \(requests) sent, and \(scan.table.name) (\(scan.keyText.isEmpty ? "no keys" : scan.keyText)) may send \(bound) more; narrow it (LIMIT, fewer key values) or raise --max-requests")
        }
        lookedUp.insert(scan.table.name)
        let result = fetch(scan)
        requests += result.meta.requests
        results.append((scan.table, result))
        fetched[key] = Fetched(result: result, limit: scan.limit)
        if let error = result.error, !partial { throw error.attributed(to: scan.table.providerName) }
        return result.items
    }
}
