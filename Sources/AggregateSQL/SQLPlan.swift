public import AggregateCore
public import AggregateJSON
import Foundation

/// What a statement reads and what it may send, from SQLite's chosen plan, before anything is sent (`--plan`).
public struct SQLPlan: Sendable {
    /// One scan of a table in the plan, in loop order (the outermost first).
    public struct Scan: Sendable {
        /// How one key column gets its value.
        public enum KeySource: Sendable, Equatable {
            /// A constant of the statement.
            case constant(SQLValue)
            /// Each value of an `IN` list.
            case list
            /// Another table's column (or an expression), row by row.
            case joined
        }

        public var table: SQLTable
        public var keys: [(column: String, source: KeySource)]
        /// The items read per key values: the pushed `LIMIT` + `OFFSET`, else the default limit.
        public var limit: Int
        /// Whether `LIMIT` was pushed down.
        public var limitPushed: Bool
        /// Whether the pushed `LIMIT` is an expression whose value is known only when running (`limit` is then the
        /// default, the most it may read).
        public var limitIsComputed = false
        /// The most pages and requests one scan with given key values sends (lookups included).
        public var pages: Int
        public var requestsPerScan: Int
        /// The most scans: 1 for constant keys (fetched once), the outer rows for joined ones; `nil` when an `IN`
        /// list's length is known only when running.
        public var scans: Int?

        /// Whether its keys come from another table.
        public var isJoined: Bool { keys.contains { $0.source == .joined } }

        /// The most requests the scan sends in all, or `nil` when unknown before running.
        public var requests: Int? {
            guard let scans else { return nil }
            return table.operation.cost.lookups + scans * pages
        }
    }

    /// The scans, outermost first.
    public var scans: [Scan]
    /// The most requests the statement sends, or `nil` when an `IN` list makes it unknown before running.
    public var totalRequests: Int? {
        scans.reduce(Optional(0)) { total, scan in total.flatMap { sum in scan.requests.map { sum + $0 } } }
    }

    init(scans plans: [ScanPlan], catalog: SQLCatalog, options: SQLEngine.Options) {
        var outerRows = 1
        var scans: [Scan] = []
        for plan in plans {
            guard let table = catalog.table(named: plan.table) else { continue }
            let keys: [(column: String, source: Scan.KeySource)] = plan.keys.map { key in
                (key.column, key.isList ? .list : key.constant.map(Scan.KeySource.constant) ?? .joined)
            }
            let pushed = plan.limitArgument != nil
            let limit = pushed ? max(1, min(10_000, (plan.limit ?? options.defaultLimit) + (plan.offset ?? 0))) : options.defaultLimit
            let cost = table.operation.cost
            let pages = cost.pages(forLimit: limit)
            var scan = Scan(
                table: table, keys: keys, limit: limit, limitPushed: pushed, pages: pages, requestsPerScan: cost.lookups + pages, scans: 1)
            scan.limitIsComputed = pushed && plan.limit == nil
            if keys.contains(where: { $0.source == .list }) { scan.scans = nil }
            if scan.isJoined { scan.scans = scan.scans.map { _ in outerRows } }
            outerRows = outerRows.multipliedReportingOverflow(by: limit).overflow ? Int.max / 2 : outerRows * limit
            scans.append(scan)
        }
        self.scans = scans
    }

    /// The plan in words, one block per scan, then the total.
    /// - Parameter budgets: the rate budget that pays for a provider's requests (``SQLPlan/budgetText``).
    public func text(maxRequests: Int, budgets: (ProviderDescriptor) -> String) -> String {
        guard !scans.isEmpty else { return "The statement reads no provider table: it sends no request.\n" }
        var lines: [String] = []
        for scan in scans {
            let keys = scan.keys.map { key -> String in
                switch key.source {
                case .constant(let value): return "\(key.column) = \(value.literalText)"
                case .list: return "\(key.column) IN (…): one scan per value"
                case .joined: return "\(key.column) from another table, row by row"
                }
            }
            let descriptor = scan.table.provider.descriptor
            lines.append("\(scan.table.name) (\(descriptor.name) \(scan.table.operation.name))")
            lines.append("  keys pushed down: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            let bound = scan.limitIsComputed ? " (LIMIT pushed down, its value known when running; --limit at most)"
                : scan.limitPushed ? " (LIMIT pushed down)" : " (--limit)"
            lines.append("  reads at most \(scan.limit) items per key values" + bound)
            let lookups = scan.table.operation.cost.lookups
            let perScan = "\(plural(scan.pages, "page")), \(plural(scan.requestsPerScan, "request"))" + (lookups > 0 ? " (\(plural(lookups, "lookup")) once per statement)" : "")
            if scan.isJoined, let scans = scan.scans {
                lines.append("  per outer row: at most \(perScan); at most \(scans) outer rows: \(plural(scan.requests ?? 0, "request")) (each distinct key fetched once)")
            } else if scan.scans == nil {
                lines.append("  per value of the IN list: at most \(perScan)")
            } else {
                lines.append("  at most \(perScan)")
            }
            lines.append("  rate budget: \(budgets(descriptor))")
        }
        if let total = totalRequests {
            lines.append("total: at most \(plural(total, "request")) (--max-requests \(maxRequests))")
        } else {
            lines.append("total: unknown before running (an IN list); --max-requests \(maxRequests) stops the statement there")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The plan as JSON, for `--plan --format json`.
    public func json(maxRequests: Int, budgets: (ProviderDescriptor) -> String) -> JSONValue {
        let entries: [JSONValue] = scans.map { scan in
            var object = JSONObject()
            object["table"] = .string(scan.table.name)
            object["provider"] = .string(scan.table.providerName)
            object["operation"] = .string(scan.table.operation.name)
            object["keys"] = .array(scan.keys.map { key in
                var entry = JSONObject()
                entry["column"] = .string(key.column)
                switch key.source {
                case .constant(let value):
                    entry["source"] = "constant"
                    entry["value"] = value.jsonValue
                case .list: entry["source"] = "list"
                case .joined: entry["source"] = "joined"
                }
                return .object(entry)
            })
            object["limit"] = .int(scan.limit)
            object["limitPushedDown"] = .bool(scan.limitPushed)
            object["pagesPerScan"] = .int(scan.pages)
            object["requestsPerScan"] = .int(scan.requestsPerScan)
            object["scans"] = scan.scans.map(JSONValue.int) ?? .null
            object["requests"] = scan.requests.map(JSONValue.int) ?? .null
            object["rateBudget"] = .string(budgets(scan.table.provider.descriptor))
            return .object(object)
        }
        return ["schemaVersion": 1, "scans": .array(entries), "totalRequests": totalRequests.map(JSONValue.int) ?? .null, "maxRequests": .int(maxRequests)]
    }

    /// The budget that pays for `descriptor`'s requests, in words: `search: 10 requests a minute (/search/**)`.
    /// - Parameter environment: decides which tier applies (a token raises some).
    public static func budgetText(_ descriptor: ProviderDescriptor, environment: [String: String], offline: Bool, limited: Bool) -> String {
        if offline { return "none (offline: answered in-process from the sandbox data)" }
        // The limiter's own choice of tiers (and of an AGGREGATE_<NAME>_RATE_LIMIT override), so the plan names
        // the budget the run will really spend from.
        let applying: [RateBudget]
        do {
            applying = try RateBudgetPlan(descriptor: descriptor, environment: environment).budgets
        } catch {
            return error.message
        }
        guard !applying.isEmpty else { return "none declared" }
        let text = applying.map { budget in
            let paths = budget.paths.map(\.description).joined(separator: ", ")
            return "\(budget.bucketName): \(budget.summary)" + (paths.isEmpty ? "" : " (\(paths))")
        }.joined(separator: "; ")
        return limited ? text : text + " (not held back: --no-rate-limit)"
    }

    private func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}

extension SQLValue {
    /// The value as SQL would write it: `'leon'`, `1994`, `NULL`.
    var literalText: String {
        switch self {
        case .null: return "NULL"
        case .text(let text): return SQLNames.literal(text)
        default: return plainText
        }
    }
}
