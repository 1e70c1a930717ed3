import AggregateCore
import AggregateHTTP
import AggregateRedis
import AggregateText
import Foundation

/// The options that add tools to a run: the rate limiter's off switch, recording and replaying.
struct RunToolOptions: Sendable, Equatable {
    /// `--no-rate-limit`.
    var noRateLimit = false
    /// `--record DIR`.
    var record: String?
    /// `--replay DIR`.
    var replay: String?
    /// `--store PATH|redis://HOST:PORT/DB`.
    var store: String?

    static let specs: [OptionSpec] = [
        OptionSpec("no-rate-limit", arity: .flag, help: "Do not hold requests back to keep to the API's published rate limits (see docs/rate-limits.md)."),
        OptionSpec("record", valueName: "DIR", help: "Write every HTTP exchange of the run to DIR/cassette.json, credentials redacted (see docs/record-replay.md)."),
        OptionSpec("replay", valueName: "DIR", help: "Answer every request from DIR/cassette.json instead of the network."),
        OptionSpec(
            "store", valueName: "PATH|URL",
            help: "Keep the cache and rate budgets in the folder PATH, or share them through Redis at redis://HOST:PORT/DB (default: AGGREGATE_STORE; see docs/cache.md)."),
    ]

    init() {}

    /// Reads the options.
    /// - Throws: a usage error for `--record` with `--replay`, or an empty folder name.
    init(_ parsed: ParsedArguments) throws(AggregateError) {
        noRateLimit = parsed.has("no-rate-limit")
        record = parsed.value("record")
        replay = parsed.value("replay")
        store = parsed.value("store")
        if store?.isEmpty == true { throw AggregateError(.usage, "--store needs a folder or redis://HOST:PORT/DB") }
        if record?.isEmpty == true || replay?.isEmpty == true { throw AggregateError(.usage, "--record and --replay need a folder") }
        if record != nil, replay != nil { throw AggregateError(.usage, "--record and --replay cannot be used together") }
    }

    /// The same options as command-line words, to pass on.
    var arguments: [String] {
        (noRateLimit ? ["--no-rate-limit"] : []) + (record.map { ["--record", $0] } ?? []) + (replay.map { ["--replay", $0] } ?? [])
            + (store.map { ["--store", $0] } ?? [])
    }
}

/// The tools one command's runs share: one rate-limit store, one recorder, one replayer, whatever the number of
/// invocations (`compare` runs them all through the same ones).
struct RunTools: Sendable {
    var rateLimitStore: (any RateLimitStoring)?
    /// The cache's store when `--store` names one (else the runner's disk cache under the cache root).
    var cacheStore: (any HTTPCacheStoring)?
    var recorder: CassetteRecorder?
    var replayer: CassetteReplayer?
    /// Joins identical requests under way (`serve`, whose clients ask the same at once), or `nil`.
    var singleFlight: SingleFlight?

    /// No tools: what a runner gets unless a command sets them up.
    init() {}

    /// The tools `options` ask for. The limiter is on unless `--no-rate-limit`, `--offline` (the in-process
    /// sandbox counts nothing, so offline demos run at full speed) or `--replay` (nothing is sent).
    /// - Throws: an `ioError` (exit 74) when the record folder cannot be created, `config` when the cassette cannot
    ///   be read, and an `invalidInput` error (exit 65) for a corrupt cassette.
    init(_ options: RunToolOptions, offline: Bool, environment: [String: String]) throws(AggregateError) {
        if options.replay != nil, offline { throw AggregateError(.usage, "--replay answers from a cassette; it cannot be used with --offline") }
        if let replay = options.replay {
            replayer = try CassetteReplayer(directory: URL(fileURLWithPath: replay))
        }
        if let record = options.record {
            let directory = URL(fileURLWithPath: record)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw AggregateError(.ioError, "cannot create the record folder \(directory.path): \(FileSystemReason.describe(error))")
            }
            recorder = CassetteRecorder(directory: directory)
        }
        // `--store` (or AGGREGATE_STORE): a folder, or Redis in front of the disk. Offline and replayed runs use
        // neither cache nor limiter, so they never connect.
        var shared: SharedStores?
        if let text = options.store ?? environment["AGGREGATE_STORE"].flatMap({ $0.isEmpty ? nil : $0 }), !offline, replayer == nil {
            do {
                shared = try SharedStores.open(StoreLocation(text), localRoot: CacheLocation.root(environment: environment)) { line in
                    StandardStreams.writeError("warning: \(line)\n")
                }
            } catch {
                throw error.aggregateError
            }
        }
        cacheStore = shared?.cache
        if !options.noRateLimit, !offline, replayer == nil {
            rateLimitStore = shared?.rateLimits ?? RateLimitStore.standard(environment: environment)
        }
    }

    /// `runner` with these tools.
    func applied(to runner: ProviderRunner) -> ProviderRunner {
        var runner = runner
        runner.rateLimitStore = rateLimitStore
        runner.cacheStore = cacheStore
        runner.recorder = recorder
        runner.replayer = replayer
        runner.singleFlight = singleFlight
        return runner
    }

    /// How a rate-limit wait is shown, in `--verbose` traces and progress lines alike.
    static func waitText(seconds: Double, budget: String) -> String {
        "waiting \(String(format: "%.1f", seconds)) s for the rate limit (\(budget))"
    }
}
