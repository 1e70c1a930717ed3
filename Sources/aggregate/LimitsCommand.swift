import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate limits show [<provider>] | reset [<provider>]`: shows and clears the rate limiter's state, the
/// buckets every run on this machine spends from (`$XDG_CACHE_HOME/aggregate/ratelimit/`).
enum LimitsCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("format", valueName: "FORMAT", help: "For show: text (default) or json."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "limits", summary: "Show or clear the rate limiter's state (tokens left, blocked until).",
        usage: "aggregate limits show [<provider>] [--format text|json] | reset [<provider>]",
        arguments: [
            ("show [<provider>]", "Each stored bucket: its budget, the tokens left and until when the API blocked it."),
            ("reset [<provider>]", "Forget every bucket (of one provider only, when named): the next run starts with full budgets."),
        ],
        options: options,
        discussion: """
            The limiter keeps each provider's budgets (see 'aggregate describe <provider>') in small files under \
            <cache folder>/ratelimit/, shared by every run on this machine, and learns from the API's Retry-After \
            and rate-limit headers. No learned wait is believed for longer than two days. 'reset' takes the same \
            lock as the limiter, so a run in progress is never half-way through a bucket. See docs/rate-limits.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            var words = parsed.positionals[...]
            guard let action = words.popFirst() else { throw AggregateError(.usage, "missing action: show or reset") }
            guard action == "show" || action == "reset" else {
                throw AggregateError(.usage, "unknown action '\(action)': use show or reset\(DidYouMean.suffix(for: action, among: ["show", "reset"]))")
            }
            if action != "show", parsed.value("format") != nil { throw AggregateError(.usage, "--format applies to 'limits show' only") }
            let provider = words.popFirst()
            if let extra = words.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
            if let provider { _ = try context.registry.require(provider) }
            guard let root = context.cacheDirectory else { throw AggregateError(.config, "no cache folder: set XDG_CACHE_HOME or HOME") }
            let store = RateLimitStore(directory: root.appendingPathComponent("ratelimit"))
            let folder = store.directory?.path ?? ""
            if action == "reset" {
                let removed: Int
                do {
                    removed = try store.clear(provider: provider)
                } catch {
                    throw AggregateError(.config, "cannot reset the rate-limit state in \(folder): \(FileSystemReason.describe(error))")
                }
                let whose = provider.map { " of \($0)" } ?? ""
                console.out("Reset \(removed) rate-limit bucket\(removed == 1 ? "" : "s")\(whose) in \(folder).\n")
                return .success
            }
            let now = Date()
            let rows = store.entries(provider: provider, now: now).map { BucketRow($0, registry: context.registry, now: now) }
            let timeZone = RateLimitReset.timeZone(environment: context.environment)
            switch parsed.value("format")?.lowercased() {
            case "json"?: console.out(json(rows, folder: folder))
            case nil, "text"?: console.out(text(rows, folder: folder, now: now, timeZone: timeZone))
            case let other?: throw AggregateError(.usage, "--format must be text or json, not '\(other)'")
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: console, usage: command.usage)
        }
    }

    /// One stored bucket as `show` tells it.
    struct BucketRow {
        var provider: String
        var bucket: String
        var host: String
        /// The declared budget it counts (`40 requests a second`), when the provider still declares it.
        var budget: RateBudget?
        /// Tokens left now, by our count and the API's last report; `nil` when the budget is unknown.
        var left: Int?
        /// Until when no request is sent (the API's `Retry-After`, or an exhausted window's reset).
        var blockedUntil: Date?
        /// True when the file is damaged or implausible (the next run resets it, with a warning).
        var damaged: Bool

        /// Reads `entry` (key `<provider> <bucket> <host>`) against the providers' declared budgets.
        init(_ entry: RateBucketEntry, registry: ProviderRegistry, now: Date) {
            var words = entry.key.split(separator: " ").map(String.init)
            provider = words.isEmpty ? entry.key : words.removeFirst()
            host = words.count > 1 ? words.removeLast() : ""
            bucket = words.joined(separator: " ")
            damaged = entry.state == nil
            let budgets = registry.provider(named: provider)?.descriptor.rateBudgets ?? []
            let bucketName = bucket
            budget = budgets.first { bucketName == $0.bucketName || bucketName.hasPrefix($0.bucketName + " ") }
            let moment = now.timeIntervalSince1970
            guard let state = entry.state else { return }
            var blocked = state.blockedUntil.flatMap { $0 > moment ? $0 : nil }
            let serverLive = state.serverReset.map { $0 > moment } ?? false
            if serverLive, let remaining = state.serverRemaining, remaining <= 0, let reset = state.serverReset { blocked = max(blocked ?? 0, reset) }
            blockedUntil = blocked.map { Date(timeIntervalSince1970: $0) }
            if let budget {
                var count = max(0, budget.requests - state.spent.filter { $0 > moment - budget.window }.count)
                if serverLive, let remaining = state.serverRemaining { count = min(count, max(0, remaining)) }
                left = count
            }
        }
    }

    static func text(_ rows: [BucketRow], folder: String, now: Date, timeZone: TimeZone) -> String {
        var text = folder + "\n"
        guard !rows.isEmpty else { return text + "No rate-limit state is stored: every budget is full.\n" }
        let header = ["provider", "bucket", "host", "budget", "left", "blocked"]
        let lines = [header] + rows.map { row in
            let blocked = row.damaged ? "damaged (reset on next use)" : row.blockedUntil.map { RateLimitReset.describe($0, now: now, timeZone: timeZone) } ?? "no"
            return [row.provider, row.bucket, row.host, row.budget?.summary ?? "?", row.left.map(String.init) ?? "?", blocked]
        }
        let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        for line in lines {
            let cells = line.enumerated().map { column, cell in column == line.count - 1 ? cell : TextLayout.pad(cell, to: widths[column]) }
            text += cells.joined(separator: "  ") + "\n"
        }
        return text
    }

    static func json(_ rows: [BucketRow], folder: String) -> String {
        let buckets = rows.map { row -> JSONValue in
            [
                "provider": .string(row.provider), "bucket": .string(row.bucket), "host": .string(row.host),
                "budget": row.budget.map { ["requests": .int($0.requests), "window": .double($0.window), "summary": .string($0.summary)] } ?? .null,
                "left": row.left.map { .int($0) } ?? .null,
                "blockedUntil": .optional(row.blockedUntil.map { UTCTimestamp.iso8601($0) }),
                "damaged": .bool(row.damaged),
            ]
        }
        return JSONWriter(pretty: true).string(["path": .string(folder), "buckets": .array(buckets)]) + "\n"
    }
}
