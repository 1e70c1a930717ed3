import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import AggregateTestSupport
import Foundation
import Testing
import aggregate

/// A clock the test moves, so freshness is tested without waiting.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(_ seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

/// The sandbox's routes in-process, keeping every request that reached them and the status it got.
final class RecordingSandboxTransport: HTTPTransport, @unchecked Sendable {
    private let inner: SandboxTransport
    private let lock = NSLock()
    private var exchanges: [(request: HTTPRequest, status: Int)] = []

    init(store: SandboxStore? = nil) throws {
        inner = SandboxTransport(catalog: try SandboxCatalog(allProviders, sandboxes: allSandboxes), store: store)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        keep(request, status: response.status)
        return response
    }

    private func keep(_ request: HTTPRequest, status: Int) {
        lock.lock()
        exchanges.append((request, status))
        lock.unlock()
    }

    /// The exchanges since the last call, and forgets them.
    func take() -> [(request: HTTPRequest, status: Int)] {
        lock.lock()
        defer {
            exchanges = []
            lock.unlock()
        }
        return exchanges
    }
}

/// The disk cache in the shared fetch layer, run in-process against the sandbox's routes with a clock the test
/// moves: freshness, revalidation with 304, --refresh, --cache-ttl, writes, damaged entries and secrets.
@Suite final class HTTPCacheRunTests {
    static let registry = try! SandboxCatalog(allProviders, sandboxes: allSandboxes)
    static func provider(_ name: String) -> any RunnableProvider { registry.registry.provider(named: name)! }
    static let tmdbToken = registry.sandbox(named: "tmdb")!.sandboxEnvironment["TMDB_ACCESS_TOKEN"]!
    static let tmdbKey = registry.sandbox(named: "tmdb")!.sandboxEnvironment["TMDB_API_KEY"]!
    static let meetupKey = registry.sandbox(named: "meetup")!.sandboxEnvironment["MEETUP_API_KEY"]!

    let root = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-run-\(UUID().uuidString)")
    let clock = ManualClock()
    let transport: RecordingSandboxTransport
    let events = Recorder<FetchEvent>()

    init() throws { transport = try RecordingSandboxTransport(store: SandboxStore(directory: root.appendingPathComponent("board"))) }

    deinit { try? FileManager.default.removeItem(at: root) }

    var warnings: [String] { events.values.compactMap { if case .warning(let text) = $0.kind { return text } else { return nil } } }
    var cacheNotes: [String] { events.values.compactMap { if case .cache(let text) = $0.kind { return text } else { return nil } } }

    func run(
        _ provider: any RunnableProvider, _ operation: String, _ parameters: JSONObject, environment: [String: String] = [:],
        cache: HTTPCacheSettings.Mode? = .normal, ttl: TimeInterval? = nil
    ) async -> ProviderResult {
        let name = provider.descriptor.name
        var runner = ProviderRunner(catalog: Self.registry, environment: environment, makeTransport: { URLSessionTransport() }, events: { [events] in events.append($0) })
        runner.clock = { [clock] in clock.now }
        var settings = ProviderRunner.Settings(baseURL: "http://sandbox.localhost/\(name)")
        settings.cache = cache.map { HTTPCacheSettings(root: root, mode: $0, ttlOverride: ttl) }
        return await runner.run(provider, operation: operation, parameters: parameters, settings: settings, transport: transport)
    }

    func searchBatman(_ environment: [String: String]? = nil, cache: HTTPCacheSettings.Mode? = .normal, ttl: TimeInterval? = nil) async -> ProviderResult {
        await run(Self.provider("tmdb"), "search", ["query": "batman"], environment: environment ?? ["TMDB_ACCESS_TOKEN": Self.tmdbToken], cache: cache, ttl: ttl)
    }

    /// Every entry file, with the URL its metadata names.
    func entries() throws -> [(url: URL, storedURL: String)] {
        let http = root.appendingPathComponent("http")
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: http.path)) ?? []
        return try folders.filter { !$0.hasPrefix(".") && $0 != "salt" && $0 != "stats.json" }.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: http.appendingPathComponent(folder).path).filter { $0.hasSuffix(".entry") }.map { name in
                let url = http.appendingPathComponent(folder).appendingPathComponent(name)
                let data = try Data(contentsOf: url)
                let lines = data.split(separator: UInt8(ascii: "\n"), maxSplits: 2)
                let metadata = try JSONParser().parse(Data(lines[1]))
                return (url, metadata["url"]?.string ?? "")
            }
        }
    }

    @Test func aSecondRunWithinTheTTLSendsNothingAndSaysCache() async throws {
        let first = await searchBatman()
        #expect(first.error == nil)
        #expect(first.meta.source == .live)
        #expect(transport.take().count == 2, "the configuration and the search")
        clock.advance(599)  // TMDb search answers keep for 10 minutes
        let second = await searchBatman()
        #expect(transport.take().isEmpty)
        #expect(second.meta.source == .cache)
        #expect(second.meta.requests == 0)
        #expect(second.meta.bytes == 0)
        #expect(second.items.map(\.id) == first.items.map(\.id))
        #expect(ResultDocument.jsonValue([second])["results"]?[0]?["meta"]?["source"] == "cache")
        #expect(cacheNotes.contains { $0.hasPrefix("fresh: stored 599 s ago, fresh for 1.0 s more (the provider's 10 min for 'search')") })
    }

    @Test func afterTheTTLItRevalidatesWith304AndSaysRevalidated() async throws {
        let first = await searchBatman()
        _ = transport.take()
        clock.advance(601)
        let second = await searchBatman()
        let sent = transport.take()
        // The configuration keeps for a day: only the search is asked again, conditionally.
        #expect(sent.count == 1)
        #expect(sent.first?.request.url.path.hasSuffix("/search/movie") == true)
        #expect(sent.first?.request.headers["If-None-Match"]?.hasPrefix("\"") == true)
        #expect(sent.first?.status == 304)
        #expect(second.meta.source == .revalidated)
        #expect(second.meta.requests == 1)
        #expect(second.meta.bytes == 0)
        #expect(second.items.map(\.id) == first.items.map(\.id))
        #expect(cacheNotes.contains { $0.hasPrefix("stale for 1.0 s: revalidating with If-None-Match \"") })
        // The 304 renewed the entry: fresh again for another 10 minutes.
        clock.advance(599)
        #expect(await searchBatman().meta.source == .cache)
        #expect(transport.take().isEmpty)
    }

    @Test func refreshRevalidatesEvenFreshEntries() async throws {
        _ = await searchBatman()
        _ = transport.take()
        let refreshed = await searchBatman(cache: .refresh)
        let sent = transport.take()
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.request.headers["If-None-Match"] != nil && $0.status == 304 })
        #expect(refreshed.meta.source == .revalidated)
    }

    @Test func cacheTTLReplacesTheProvidersTimeBothWays() async throws {
        _ = await searchBatman()
        _ = transport.take()
        #expect(await searchBatman(ttl: 0).meta.source == .revalidated, "0 s: every answer is stale at once")
        #expect(transport.take().count == 2)
        clock.advance(3000)
        #expect(await searchBatman(ttl: 5000).meta.source == .cache, "longer than the provider's 10 minutes")
        #expect(transport.take().isEmpty)
    }

    @Test func withoutCacheSettingsNothingIsReadOrWritten() async throws {
        _ = await searchBatman(cache: nil)
        let again = await searchBatman(cache: nil)
        #expect(again.meta.source == .live)
        #expect(transport.take().count == 4)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("http").path))
    }

    @Test func twoCredentialsNeverShareAnEntry() async throws {
        _ = await searchBatman(["TMDB_ACCESS_TOKEN": Self.tmdbToken])
        let withKey = await searchBatman(["TMDB_API_KEY": Self.tmdbKey])
        #expect(withKey.meta.source == .live)
        #expect(try entries().count == 4)
    }

    @Test func aWriteDropsTheProvidersStoredAnswers() async throws {
        let list = await run(Self.provider("messageboard"), "list", [:])
        #expect(list.error == nil)
        #expect(await run(Self.provider("messageboard"), "list", [:]).meta.source == .cache)
        let post = await run(Self.provider("messageboard"), "post", ["name": "Ada", "message": "cached?"])
        #expect(post.error == nil, "\(String(describing: post.error))")
        let after = await run(Self.provider("messageboard"), "list", [:])
        #expect(after.meta.source == .live)
        #expect(after.items.contains { $0.title.contains("cached?") || $0.summary?.contains("cached?") == true })
        #expect(cacheNotes.contains { $0.hasPrefix("a write succeeded: dropped 1 stored answers") })
    }

    @Test func aDamagedEntryIsDiscardedWithOneWarningAndFetchedAgain() async throws {
        _ = await searchBatman()
        let search = try #require(try entries().first { $0.storedURL.contains("/search/movie") })
        let whole = try Data(contentsOf: search.url)
        for damaged in [whole.prefix(whole.count - 10), Data("not a cache entry".utf8), Data(), whole.dropLast(1) + Data("X".utf8)] {
            try Data(damaged).write(to: search.url)
            _ = transport.take()
            let warningsBefore = warnings.count
            let result = await searchBatman()
            #expect(result.error == nil)
            #expect(result.meta.source == .live)
            let warnings = self.warnings.dropFirst(warningsBefore)
            #expect(warnings.count == 1)
            #expect(warnings.first?.hasPrefix("discarded a damaged cache entry (") == true, "\(warnings)")
            #expect(transport.take().map(\.request.url.path) == ["/tmdb/search/movie"], "only the damaged one is fetched again")
            #expect(await searchBatman().meta.source == .cache, "stored again, whole")
        }
    }

    @Test func aCacheThatCannotBeWrittenWarnsOnceAndTheRunGoesOn() async throws {
        // The cache folder's place is taken by a file.
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: root.appendingPathComponent("http"))
        let result = await searchBatman()
        #expect(result.error == nil)
        #expect(result.meta.source == .live)
        #expect(transport.take().count == 2)
        let warnings = self.warnings
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.hasPrefix("the cache cannot be used (cannot write in the cache folder \(root.path)/http: a part of the path is not a folder); continuing without it") == true, "\(warnings)")
    }

    @Test func answersThatRepeatACredentialAreNotStored() async throws {
        // Meetup API v2 repeats the key in its paging links.
        let first = await run(Self.provider("meetup"), "groups", ["lat": .number("51.5"), "lon": .number("-0.13"), "api": "v2"], environment: ["MEETUP_API_KEY": Self.meetupKey])
        #expect(first.error == nil)
        let second = await run(Self.provider("meetup"), "groups", ["lat": .number("51.5"), "lon": .number("-0.13"), "api": "v2"], environment: ["MEETUP_API_KEY": Self.meetupKey])
        #expect(second.meta.source == .live)
        #expect(try entries().isEmpty)
        #expect(cacheNotes.contains("not stored: the response repeats a credential"))
    }

    @Test func noSecretReachesAnyCacheFileOrName() async throws {
        let markers = [Self.tmdbToken, Self.tmdbKey, "org.example.MARKER-SECRET-APP-ID", Self.meetupKey]
        _ = await searchBatman(["TMDB_ACCESS_TOKEN": Self.tmdbToken])
        _ = await searchBatman(["TMDB_API_KEY": Self.tmdbKey])
        let kiva = await run(Self.provider("kiva"), "newest", ["api": "rest"], environment: ["KIVA_APP_ID": markers[2]])
        #expect(kiva.error == nil)
        let meetup = await run(Self.provider("meetup"), "groups", ["lat": .number("51.5"), "lon": .number("-0.13"), "api": "v2"], environment: ["MEETUP_API_KEY": Self.meetupKey])
        #expect(meetup.error == nil)
        #expect(try entries().count == 5)
        let files = FileManager.default.enumerator(atPath: root.appendingPathComponent("http").path)!.compactMap { $0 as? String }
        for file in files {
            let url = root.appendingPathComponent("http").appendingPathComponent(file)
            let content = String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
            for marker in markers {
                let forms = [marker, marker.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed)!, Data(marker.utf8).base64EncodedString()]
                for form in forms {
                    #expect(!file.contains(form), "\(file) names a secret")
                    #expect(!content.contains(form), "\(file) holds a secret")
                }
            }
        }
    }
}
