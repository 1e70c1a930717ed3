import AggregateCore
import AggregateHTTP
import Foundation

/// What the command line says about the disk cache: `--no-cache`, `--refresh`, `--cache-ttl SECONDS`.
struct CacheChoice: Sendable, Equatable {
    /// `--no-cache`: neither read nor write the cache.
    var disabled = false
    /// `--refresh`: revalidate (or refetch) every answer now, however fresh.
    var refresh = false
    /// `--cache-ttl`: seconds answers stay fresh, instead of the provider's and the response's.
    var ttl: TimeInterval?

    static let specs: [OptionSpec] = [
        OptionSpec("no-cache", arity: .flag, help: "Neither read nor write the disk cache for this run."),
        OptionSpec("refresh", arity: .flag, help: "Revalidate (or refetch) every cached answer now, however fresh, and store the result."),
        OptionSpec("cache-ttl", valueName: "SECONDS", help: "In this run, take answers as fresh this many seconds (0: always revalidate), instead of the provider's time and the API's max-age; stored answers keep those for later runs."),
    ]

    /// The options' names.
    static let names = Set(specs.map(\.name))

    /// The longest `--cache-ttl`: a year.
    static let longestTTL = 31_536_000

    init() {}

    /// Reads the options out of parsed arguments.
    /// - Throws: a `usage` error for a bad `--cache-ttl` or `--no-cache` with `--refresh` or `--cache-ttl`.
    init(_ parsed: ParsedArguments) throws(AggregateError) {
        disabled = parsed.has("no-cache")
        refresh = parsed.has("refresh")
        if let text = parsed.value("cache-ttl") { ttl = TimeInterval(try Self.ttl(from: text)) }
        if disabled, refresh || ttl != nil {
            throw AggregateError(.usage, "--no-cache cannot be used with \(refresh ? "--refresh" : "--cache-ttl"): it turns the cache off")
        }
    }

    /// A `--cache-ttl` value (or the config file's `cacheTTL`): whole seconds from 0 to a year.
    static func ttl(from text: String) throws(AggregateError) -> Int {
        guard let seconds = Int(text), text.allSatisfy(\.isASCII), (0...longestTTL).contains(seconds) else {
            throw AggregateError(.usage, "--cache-ttl must be a whole number of seconds from 0 to \(longestTTL), not '\(text)'")
        }
        return seconds
    }

    /// The run's cache settings under `root`, or `nil` for none (`--no-cache`, or no cache folder).
    func settings(root: URL?) -> HTTPCacheSettings? {
        guard !disabled, let root else { return nil }
        return HTTPCacheSettings(root: root, mode: refresh ? .refresh : .normal, ttlOverride: ttl)
    }
}
