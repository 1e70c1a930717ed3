import AggregateCore
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing
import aggregate

/// The disk cache through the built binary against the sandbox on a loopback port, which answers conditional
/// requests: cache, revalidated, --refresh, --no-cache, --cache-ttl, `aggregate cache`, damaged entries, concurrent
/// runs and compare. Each test has its own XDG_CACHE_HOME: never the user's cache.
@Suite(.serialized) final class CacheCLITests {
    static let registry = try! SandboxCatalog(allProviders, sandboxes: allSandboxes)

    let sandbox: LoopbackSandbox
    let cacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-cli-\(UUID().uuidString)")
    var cacheRoot: URL { cacheHome.appendingPathComponent("aggregate") }

    init() throws { sandbox = try LoopbackSandbox() }

    deinit { try? FileManager.default.removeItem(at: cacheHome) }

    /// Every provider pointed at the sandbox with its demo credentials, and this test's cache.
    var environment: [String: String] {
        var environment = ["XDG_CACHE_HOME": cacheHome.path]
        for provider in Self.registry.registry.providers {
            let name = provider.descriptor.name
            environment["AGGREGATE_\(name.uppercased())_BASE_URL"] = "\(sandbox.url)/\(name)"
            environment.merge(Self.registry.sandbox(named: name)?.sandboxEnvironment ?? [:]) { current, _ in current }
        }
        return environment
    }

    /// Runs the binary and returns its output and how many requests reached the sandbox meanwhile.
    func run(_ arguments: [String]) throws -> (output: Binary.Output, requests: Int) {
        let before = sandbox.server.requestCount
        let output = try Binary.run(arguments, environment: environment)
        return (output, sandbox.server.requestCount - before)
    }

    func sources(_ output: Binary.Output) throws -> [String] {
        try #require(try JSONParser().parse(output.stdout)["results"]?.array).compactMap { $0["meta"]?["source"]?.string }
    }

    let search = ["tmdb", "search", "batman", "--format", "json"]

    @Test func liveThenCacheThenRevalidatedAsTheOptionsSay() throws {
        let first = try run(search)
        #expect(first.output.status == 0, "\(first.output.stderr)")
        #expect(try sources(first.output) == ["live"])
        #expect(first.requests == 2)

        let second = try run(search + ["--verbose"])
        #expect(second.requests == 0, "a second run within the TTL sends nothing")
        #expect(try sources(second.output) == ["cache"])
        #expect(second.output.stderr.contains("tmdb: cache: fresh: stored "))
        #expect(second.output.stderr.hasSuffix("tmdb: cache: source: cache (2 answers fresh from the cache, none from the server)\n"), "\(second.output.stderr)")
        #expect(!second.output.stderr.contains("→"))
        #expect(try JSONParser().parse(second.output.stdout)["results"]?[0]?["items"] == JSONParser().parse(first.output.stdout)["results"]?[0]?["items"])

        // --cache-ttl 0: every stored answer is stale, so both are revalidated and confirmed with 304.
        let stale = try run(search + ["--verbose", "--cache-ttl", "0"])
        #expect(stale.requests == 2)
        #expect(try sources(stale.output) == ["revalidated"])
        #expect(stale.output.stderr.components(separatedBy: "← HTTP 304, 0 bytes").count == 3)
        #expect(stale.output.stderr.contains("tmdb: cache: stale for "))
        #expect(stale.output.stderr.contains(": revalidating with If-None-Match \""))
        #expect(stale.output.stderr.contains("tmdb: cache: not modified (304): reusing the stored body"))
        #expect(stale.output.stderr.contains("tmdb: cache: source: revalidated (2 answers confirmed with 304, none from the server)\n"))

        let refresh = try run(search + ["--refresh", "--verbose"])
        #expect(refresh.requests == 2)
        #expect(try sources(refresh.output) == ["revalidated"])
        #expect(refresh.output.stderr.contains("tmdb: cache: --refresh: revalidating with If-None-Match"))

        let uncached = try run(search + ["--no-cache", "--verbose"])
        #expect(uncached.requests == 2)
        #expect(try sources(uncached.output) == ["live"])
        #expect(!uncached.output.stderr.contains("cache:"))
        #expect(!uncached.output.stderr.contains("If-None-Match"))
        #expect(!uncached.output.stderr.contains("HTTP 304"))
    }

    /// `--cache-ttl` judges one run only: what that run stores (or renews with a 304) keeps the provider's 10
    /// minutes, so the next default run answers from the cache instead of revalidating everything.
    @Test func aRunsCacheTTLIsNotStoredForTheNextRun() throws {
        let cold = try run(search + ["--cache-ttl", "0", "--verbose"])
        #expect(try sources(cold.output) == ["live"], "\(cold.output.stderr)")
        #expect(cold.output.stderr.contains("tmdb: cache: stored: fresh for 0.0 s (the run's cache TTL of 0 s); stored as fresh for 600 s (the provider's 10 min for 'search')"), "\(cold.output.stderr)")
        let next = try run(search + ["--verbose"])
        #expect(next.requests == 0, "\(next.output.stderr)")
        #expect(try sources(next.output) == ["cache"])
        #expect(!next.output.stderr.contains("stale for"))

        let renewed = try run(search + ["--cache-ttl", "0"])
        #expect(renewed.requests == 2)
        #expect(try sources(renewed.output) == ["revalidated"])
        let after = try run(search)
        #expect(after.requests == 0, "a 304 renews the entry with the provider's time, not the run's 0 s")
        #expect(try sources(after.output) == ["cache"])
    }

    @Test func offlineRunsNeverTouchTheCache() throws {
        let offline = try run(["tmdb", "search", "batman", "--offline", "--format", "json", "--verbose"])
        #expect(try sources(offline.output) == ["offline"])
        #expect(!offline.output.stderr.contains("cache:"))
        #expect(!FileManager.default.fileExists(atPath: cacheRoot.path))
    }

    @Test func cacheStatsClearAndPath() throws {
        _ = try run(search)
        _ = try run(search)
        _ = try run(search + ["--refresh"])
        _ = try run(["kiva", "newest", "--api", "rest", "--limit", "3"])
        let stats = try run(["cache", "stats", "--format", "json"]).output
        #expect(stats.status == 0)
        let document = try JSONParser().parse(stats.stdout)
        #expect(document["path"]?.string == cacheRoot.appendingPathComponent("http").path)
        #expect(document["maxBytes"] == .int(256 << 20))
        let byProvider = Dictionary(uniqueKeysWithValues: try #require(document["providers"]?.array).map { ($0["provider"]?.string ?? "", $0) })
        #expect(byProvider["tmdb"]?["entries"] == .int(2))
        #expect(byProvider["tmdb"]?["hits"] == .int(2))
        #expect(byProvider["tmdb"]?["revalidated"] == .int(2))
        #expect(byProvider["tmdb"]?["misses"] == .int(2))
        #expect(byProvider["kiva"]?["entries"] == .int(1))
        #expect((byProvider["tmdb"]?["bytes"]?.int ?? 0) > 0)

        let text = try run(["cache", "stats"]).output.stdout
        #expect(text.contains("provider  entries"))
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("tmdb ") && $0.hasSuffix("  2            2       2") })

        let cleared = try run(["cache", "clear", "tmdb"]).output
        #expect(cleared.status == 0)
        #expect(cleared.stdout.hasPrefix("Removed 2 entries of tmdb ("))
        #expect(try sources(try run(search).output) == ["live"], "cleared: fetched again")
        let after = try JSONParser().parse(try run(["cache", "stats", "--format", "json"]).output.stdout)
        #expect(after["providers"]?.array?.first { $0["provider"] == "kiva" }?["entries"] == .int(1), "only tmdb was cleared")

        #expect(try run(["cache", "clear"]).output.stdout.hasPrefix("Removed 3 entries ("))
        #expect(try run(["cache", "stats"]).output.stdout.hasSuffix("The cache is empty.\n"))
        #expect(try run(["cache", "path"]).output.stdout == cacheRoot.path + "\n")
    }

    @Test func cacheCommandMistakesAreUsageErrors() throws {
        let cases: [([String], String)] = [
            (["cache"], "Error: missing action: stats, clear or path"),
            (["cache", "purge"], "Error: unknown action 'purge': use stats, clear or path"),
            (["cache", "clear", "nosuch"], "Error: unknown provider 'nosuch'. Valid providers: "),
            (["cache", "stats", "--format", "xml"], "Error: --format must be text or json, not 'xml'"),
            (["tmdb", "search", "batman", "--cache-ttl", "-1"], "Error: tmdb: --cache-ttl must be a whole number of seconds from 0 to 31536000, not '-1'"),
            (["tmdb", "search", "batman", "--no-cache", "--refresh"], "Error: tmdb: --no-cache cannot be used with --refresh: it turns the cache off"),
            (["compare", "tmdb search batman", "--no-cache", "--cache-ttl", "5"], "Error: --no-cache cannot be used with --cache-ttl: it turns the cache off\nUsage: aggregate compare "),
        ]
        for (arguments, message) in cases {
            let output = try run(arguments).output
            #expect(output.status == 64, "\(arguments)")
            #expect(output.stderr.hasPrefix(message), "\(arguments): \(output.stderr)")
        }
    }

    @Test func aDamagedEntryGivesOneWarningLineAndIsFetchedAgain() throws {
        let kiva = ["kiva", "newest", "--api", "rest", "--limit", "3", "--format", "json"]
        _ = try run(kiva)
        let folder = cacheRoot.appendingPathComponent("http/kiva")
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".entry") })
        let file = folder.appendingPathComponent(entry)
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count / 2).write(to: file)
        let damaged = try run(kiva)
        #expect(damaged.output.status == 0)
        #expect(damaged.requests == 1)
        #expect(try sources(damaged.output) == ["live"])
        let lines = damaged.output.stderr.split(separator: "\n")
        let header = headerLength(whole)
        #expect(lines == ["warning: kiva: discarded a damaged cache entry (its body has \(whole.count / 2 - header) of \(whole.count - header) bytes); fetching it again"])
        #expect(try sources(try run(kiva).output) == ["cache"])
    }

    /// The bytes before an entry's body: the magic line and the metadata line.
    func headerLength(_ entry: Data) -> Int {
        let newline = UInt8(ascii: "\n")
        let first = entry.firstIndex(of: newline)!
        return entry[(first + 1)...].firstIndex(of: newline)! + 1
    }

    @Test func concurrentRunsWritingTheSameKeyLeaveWholeEntries() throws {
        _ = try run(search)
        // Two processes at a time, each revalidating and rewriting the same two entries.
        let (arguments, environment) = (search + ["--refresh"], environment)
        for _ in 0..<4 {
            let outputs = Recorder<Result<Binary.Output, any Error>>()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                outputs.append(Result { try Binary.run(arguments, environment: environment) })
            }
            for output in outputs.values {
                let output = try output.get()
                #expect(output.status == 0, "\(output.stderr)")
                #expect(output.stderr.isEmpty, "\(output.stderr)")
            }
        }
        let after = try run(search + ["--verbose"])
        #expect(after.requests == 0)
        #expect(try sources(after.output) == ["cache"])
        #expect(!after.output.stderr.contains("warning"))
        let files = try FileManager.default.contentsOfDirectory(atPath: cacheRoot.appendingPathComponent("http/tmdb").path)
        #expect(files.count == 2 && files.allSatisfy { $0.hasSuffix(".entry") }, "no temporary file left behind: \(files)")
        let stats = try JSONParser().parse(try run(["cache", "stats", "--format", "json"]).output.stdout)
        #expect(stats["providers"]?[0]?["revalidated"] == .int(16), "no count lost: 8 runs × 2 answers")
    }

    @Test func compareHonoursTheCacheOptions() throws {
        let compare = ["compare", "tmdb search batman", "kiva newest --api rest --limit 3", "twitter orbitalnotes --limit 5", "messageboard list", "--format", "json", "--quiet"]
        let cold = try run(compare)
        #expect(cold.output.status == 0, "\(cold.output.stderr)")
        #expect(try sources(cold.output) == ["live", "live", "live", "live"])
        let warm = try run(compare)
        #expect(warm.requests == 0)
        #expect(try sources(warm.output) == ["cache", "cache", "cache", "cache"])
        let refreshed = try run(compare + ["--refresh"])
        #expect(try sources(refreshed.output) == ["revalidated", "revalidated", "revalidated", "revalidated"])
        let uncached = try run(compare + ["--no-cache"])
        #expect(try sources(uncached.output) == ["live", "live", "live", "live"])
        #expect(uncached.requests == cold.requests)
        // An invocation's own choice wins over compare's.
        let mixed = try run(["compare", "tmdb search batman --no-cache", "kiva newest --api rest --limit 3", "--format", "json", "--quiet"])
        #expect(try sources(mixed.output) == ["live", "cache"])
    }

    @Test func theConfigFileCanTurnTheCacheOffOrSetItsTime() throws {
        let configHome = cacheHome.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: configHome.appendingPathComponent("aggregate"), withIntermediateDirectories: true)
        try Data(#"{"providers": {"tmdb": {"cache": false}, "kiva": {"cacheTTL": 0}}}"#.utf8)
            .write(to: configHome.appendingPathComponent("aggregate/config.json"))
        var environment = environment
        environment["XDG_CONFIG_HOME"] = configHome.path
        func sources(_ arguments: [String]) throws -> [String] { try self.sources(try Binary.run(arguments + ["--format", "json"], environment: environment)) }
        #expect(try sources(["tmdb", "search", "batman"]) == ["live"])
        #expect(try sources(["tmdb", "search", "batman"]) == ["live"], "cache: false")
        #expect(!FileManager.default.fileExists(atPath: cacheRoot.appendingPathComponent("http/tmdb").path))
        #expect(try sources(["tmdb", "search", "batman", "--refresh"]) == ["live"], "the command line turns it on again")
        #expect(try sources(["tmdb", "search", "batman"]) == ["live"])
        #expect(try sources(["tmdb", "search", "batman", "--cache-ttl", "600"]) == ["cache"])
        let kiva = ["kiva", "newest", "--api", "rest", "--limit", "3"]
        #expect(try sources(kiva) == ["live"])
        #expect(try sources(kiva) == ["revalidated"], "cacheTTL 0: always revalidated")
        #expect(try sources(kiva + ["--cache-ttl", "600"]) == ["cache"], "the command line wins")
        let verbose = try Binary.run(kiva + ["--verbose"], environment: environment)
        #expect(verbose.stderr.contains("config: kiva: cacheTTL = 0 (config file \(configHome.path)/aggregate/config.json (providers.kiva))"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("now fresh for 0.0 s (the run's cache TTL of 0 s); stored as fresh for "), "\(verbose.stderr)")
        let set = try Binary.run(["config", "set", "providers.kiva.cacheTTL", "-5"], environment: environment)
        #expect(set.status == 64)
        #expect(set.stderr.contains("providers.kiva.cacheTTL: --cache-ttl must be a whole number of seconds from 0 to 31536000, not '-5'"), "\(set.stderr)")
    }

    @Test func describeShowsHowLongAnswersStayFresh() throws {
        let text = try run(["describe", "tmdb"]).output.stdout
        #expect(text.contains("Cache                   GET answers stay fresh for 1 h; popular, search: 10 min;\n                        /configuration: 1 day (or the API's shorter max-age)\n"), "\(text)")
        let json = try JSONParser().parse(try run(["describe", "twitter", "--format", "json"]).output.stdout)
        #expect(json["cacheFreshness"] == ["defaultSeconds": 60, "operations": .object([:]), "endpoints": [["pathPrefix": "/2/users/by/username", "seconds": 86_400]]])
    }

    @Test func theTextViewOfCompareSaysWhereAnswersCameFrom() throws {
        _ = try run(["tmdb", "search", "batman"])
        let text = try run(["compare", "tmdb search batman", "kiva newest --api rest --limit 3"]).output.stdout
        #expect(text.contains("0 / 1 (cache)"), "\(text)")
    }
}
