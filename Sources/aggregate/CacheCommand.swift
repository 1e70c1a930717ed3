import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate cache stats|clear [<provider>]|path`: looks after the disk cache of live answers.
enum CacheCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("format", valueName: "FORMAT", help: "For stats: text (default) or json."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "cache", summary: "Show, clear or locate the disk cache of live answers.",
        usage: "aggregate cache stats [--format text|json] | clear [<provider>] | path",
        arguments: [
            ("stats", "Entries, bytes, hits, revalidations and misses per provider."),
            ("clear [<provider>]", "Remove every stored answer (of one provider only, when named) and its counts."),
            ("path", "Print the cache folder ($XDG_CACHE_HOME/aggregate, else ~/.cache/aggregate)."),
        ],
        options: options,
        discussion: """
            Live runs keep successful GET answers in <folder>/http/ and answer from there while they are fresh (the \
            provider's time, or the API's shorter max-age), then ask the API whether they changed (ETag or \
            Last-Modified, answered with 304). --no-cache, --refresh and --cache-ttl SECONDS change this per run; \
            --offline never uses the cache. Entries are 0600 files in 0700 folders, named by salted hashes; no \
            credential is ever written. The cache keeps to 256 MiB, dropping the least recently used answers first. \
            See docs/cache.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let root = context.cacheDirectory else {
                throw AggregateError(.config, "no cache folder: set XDG_CACHE_HOME or HOME")
            }
            let store = HTTPCacheStore(root: root)
            var words = parsed.positionals[...]
            guard let action = words.popFirst() else {
                throw AggregateError(.usage, "missing action: stats, clear or path")
            }
            if action != "stats", parsed.value("format") != nil {
                throw AggregateError(.usage, "--format applies to 'cache stats' only")
            }
            switch action {
            case "stats":
                if let extra = words.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
                console.out(try statistics(store, format: parsed.value("format")))
            case "clear":
                let provider = words.popFirst()
                if let extra = words.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
                if let provider { _ = try context.registry.require(provider) }
                let removed: (entries: Int, bytes: Int)
                do {
                    removed = try store.clear(provider: provider)
                } catch {
                    throw AggregateError(.config, "cannot clear the cache in \(store.directory.path): \((error as? AggregateError)?.message ?? "\(error)")")
                }
                let whose = provider.map { " of \($0)" } ?? ""
                console.out("Removed \(removed.entries) \(removed.entries == 1 ? "entry" : "entries")\(whose) (\(ByteCount.describe(removed.bytes))) from \(store.directory.path).\n")
            case "path":
                if let extra = words.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
                console.out(root.path + "\n")
            default:
                throw AggregateError(.usage, "unknown action '\(action)': use stats, clear or path\(DidYouMean.suffix(for: action, among: ["stats", "clear", "path"]))")
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: console, usage: command.usage)
        }
    }

    /// The stats table, or its JSON form.
    static func statistics(_ store: HTTPCacheStore, format: String?) throws(AggregateError) -> String {
        let rows = store.statistics()
        switch format?.lowercased() {
        case "json"?:
            let providers = rows.map { row -> JSONValue in
                [
                    "provider": .string(row.provider), "entries": .int(row.entries), "bytes": .int(row.bytes), "hits": .int(row.hits),
                    "revalidated": .int(row.revalidated), "misses": .int(row.misses),
                ]
            }
            let document: JSONValue = ["path": .string(store.directory.path), "maxBytes": .int(store.maxBytes), "providers": .array(providers)]
            return JSONWriter(pretty: true).string(document) + "\n"
        case nil, "text"?:
            var text = "\(store.directory.path) (at most \(ByteCount.describe(store.maxBytes)))\n"
            guard !rows.isEmpty else { return text + "The cache is empty.\n" }
            let header = ["provider", "entries", "size", "hits", "revalidated", "misses"]
            let total = rows.reduce(into: HTTPCacheStore.ProviderStatistics(provider: "total")) {
                $0.entries += $1.entries
                $0.bytes += $1.bytes
                $0.hits += $1.hits
                $0.revalidated += $1.revalidated
                $0.misses += $1.misses
            }
            let lines = [header] + (rows + [total]).map { row in
                [row.provider, String(row.entries), ByteCount.describe(row.bytes), String(row.hits), String(row.revalidated), String(row.misses)]
            }
            let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
            for line in lines {
                let cells = line.enumerated().map { column, cell in
                    column == 0 ? TextLayout.pad(cell, to: widths[0]) : String(repeating: " ", count: widths[column] - cell.count) + cell
                }
                text += cells.joined(separator: "  ") + "\n"
            }
            return text
        case let other?:
            throw AggregateError(.usage, "--format must be text or json, not '\(other)'")
        }
    }
}
