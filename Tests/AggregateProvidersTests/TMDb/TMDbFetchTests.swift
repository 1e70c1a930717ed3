import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import MeetupProvider
@testable import TMDbProvider
@testable import TMDbSandbox
import Testing

/// The provider through the shared fetch layer, answered in-process by its sandbox routes (no sockets).
@Suite struct TMDbFetchTests {
    static let baseURL = URL(string: "http://sandbox.localhost/tmdb")!

    func query(_ operation: String, _ parameters: JSONObject = JSONObject(), limit: Int = 20,
               environment: [String: String] = TMDbSandbox.sandboxEnvironment) -> Query {
        Query(provider: "tmdb", operation: operation, parameters: parameters, limit: limit, baseURL: Self.baseURL, environment: environment)
    }

    func run(_ query: Query, transport: any HTTPTransport, source: DataSource = .live, cache: RunCache = RunCache(),
             options: FetchOptions = testFetchOptions()) async -> ProviderResult {
        await Fetcher(transport: transport, options: options, source: source, cache: cache).run(TMDbProvider(), query: query)
    }

    /// The sandbox's popular list, in order.
    var popularIDs: [String] { TMDbSandbox.byPopularity.compactMap { $0.id == 0 ? nil : String($0.id) } }

    @Test func offlineRunsUseTheDocumentedImageBaseWithoutAskingConfiguration() async throws {
        let transport = try RecordingSandboxTransport()
        let result = await run(query("popular", limit: 25), transport: transport, source: .offline)
        #expect(result.error == nil)
        #expect(transport.requestedPages == ["/tmdb/movie/popular#1", "/tmdb/movie/popular#2"])
        #expect(result.items.map(\.id) == Array(popularIDs.prefix(25)))
        #expect(result.items.first?.imageUrl?.hasPrefix("https://image.tmdb.org/t/p/w500/") == true)
        #expect(result.meta.requests == 2)
        #expect(result.meta.totalCount == TMDbSandbox.movies.count)
    }

    @Test func liveRunsReadConfigurationOnceThenPageInOrder() async throws {
        let transport = try RecordingSandboxTransport()
        let result = await run(query("popular", limit: 45), transport: transport)
        #expect(result.error == nil)
        #expect(transport.requestedPages.first == "/tmdb/configuration")
        #expect(transport.requestedPages.filter { $0 == "/tmdb/configuration" }.count == 1)
        #expect(Set(transport.requestedPages.dropFirst(2)) == ["/tmdb/movie/popular#2", "/tmdb/movie/popular#3"])
        #expect(transport.requestedPages[1] == "/tmdb/movie/popular#1")
        #expect(result.items.map(\.id) == Array(popularIDs.prefix(45)), "page order kept although pages 2 and 3 ran concurrently")
    }

    @Test func configurationIsSharedByEveryInvocationOfARun() async throws {
        let transport = try RecordingSandboxTransport()
        let cache = RunCache()
        _ = await run(query("popular"), transport: transport, cache: cache)
        _ = await run(query("search", JSONObject(pairs: ["query": "spider"])), transport: transport, cache: cache)
        _ = await run(query("movie", JSONObject(pairs: ["id": 1930])), transport: transport, cache: cache)
        #expect(transport.requestedPages.filter { $0 == "/tmdb/configuration" }.count == 1)
        #expect(transport.log.requests.count == 4)
    }

    @Test(arguments: [(1, 1), (20, 1), (21, 2), (40, 2), (41, 3), (500, 3)])
    func exactlyThePagesTheLimitNeedsAreRequested(limit: Int, pages: Int) async throws {
        let transport = try RecordingSandboxTransport()
        let result = await run(query("popular", limit: limit), transport: transport, source: .offline)
        #expect(transport.requestedPages.first == "/tmdb/movie/popular#1")
        #expect(transport.requestedPages.sorted() == (1...pages).map { "/tmdb/movie/popular#\($0)" })
        #expect(result.items.count == min(limit, TMDbSandbox.movies.count))
        #expect(result.meta.pages == pages)
    }

    @Test func duplicatesFromAShiftingListAreDroppedAndOrderKept() async throws {
        let transport = try RecordingSandboxTransport(settings: [TMDbSandbox.popularDriftSetting: "3"])
        let result = await run(query("popular", limit: 40), transport: transport, source: .offline)
        #expect(transport.requestedPages == ["/tmdb/movie/popular#1", "/tmdb/movie/popular#2", "/tmdb/movie/popular#3"])
        let ids = result.items.map(\.id)
        #expect(ids.count == 40, "page 2 repeated the last 3 movies of page 1; page 3 makes up for them")
        #expect(Set(ids).count == ids.count)
        #expect(ids == Array(popularIDs.prefix(40)))
    }

    @Test func searchPagesAndTheTutorialsMovie() async throws {
        let transport = try RecordingSandboxTransport()
        let search = await run(query("search", JSONObject(pairs: ["query": "the amazing spider-man", "year": 2012])), transport: transport)
        #expect(search.items.map(\.title) == ["The Amazing Spider-Man"])
        let movie = await run(query("movie", JSONObject(pairs: ["id": 1930])), transport: transport)
        let item = try #require(movie.items.first)
        #expect(item.extraValue("directors") == ["Marc Webb"])
        #expect(item.extraValue("cast")?[0] == ["name": "Andrew Garfield", "character": "Peter Parker", "order": 0])
        #expect(transport.log.requests.last?.url.queryValue("append_to_response") == "credits")
    }

    @Test func anUnknownMovieIsNotFound() async throws {
        let result = await run(query("movie", JSONObject(pairs: ["id": 424242])), transport: try RecordingSandboxTransport())
        #expect(result.error?.kind == .notFound)
        #expect(result.error?.message == "no movie with id 424242 (HTTP 404, TMDb code 34)")
        #expect(result.items.isEmpty)
    }

    @Test func aWrongKeyFailsOnTheFirstRequestWithTMDbsMessageAndNoSecret() async throws {
        let events = EventLog()
        let secret = "ffffffffffffffffffffffffffffffff"
        let result = await run(
            query("popular", environment: ["TMDB_API_KEY": secret]), transport: try RecordingSandboxTransport(),
            options: testFetchOptions(events: events))
        let error = try #require(result.error)
        #expect(error.kind == .auth)
        #expect(error.message == "Invalid API key: You must be granted a valid key. (HTTP 401, TMDb code 7). Check TMDB_API_KEY.")
        let traces = events.events.map { "\($0)" }.joined(separator: "\n")
        #expect(traces.contains("api_key=***"))
        #expect(!traces.contains(secret))
        #expect(!error.message.contains(secret))
    }

    @Test func aRateLimitedPageIsRetriedAfterRetryAfter() async throws {
        let sandbox = try RecordingSandboxTransport()
        let limited = Limiter(times: 1)
        let transport = FakeTransport { request in
            if request.url.path.hasSuffix("/movie/popular"), limited.take() {
                let body = TMDbSandbox.faultResponse(status: 429).body
                return HTTPResponse(status: 429, headers: ["Retry-After": "2", "Content-Type": "application/json"], body: body, url: request.url)
            }
            return try await sandbox.send(request)
        }
        let waits = Recorder<TimeInterval>()
        var options = testFetchOptions()
        options.sleep = { seconds in waits.append(seconds) }
        let result = await run(query("popular"), transport: transport, options: options)
        #expect(result.error == nil)
        #expect(waits.values == [2])
        #expect(result.items.count == 20)
    }

    @Test func aPersistentRateLimitEndsInOneClearLine() async throws {
        let transport = FakeTransport { request in
            HTTPResponse(status: 429, headers: ["Retry-After": "1"], body: TMDbSandbox.faultResponse(status: 429).body, url: request.url)
        }
        let result = await run(query("popular"), transport: transport, source: .offline)
        #expect(result.error?.kind == .rateLimited)
        #expect(result.error?.message.contains("TMDb code 25") == true)
    }

    /// Numbered pages go at most four at a time, and the results keep page order whatever order they finish in.
    @Test func atMostFourPagesAreInFlightAndOrderIsKept() async throws {
        let gate = InFlightGate(target: 4)
        let transport = FakeTransport { request in
            let page = Int(request.url.queryValue("page") ?? "1") ?? 1
            if page > 1 { await gate.enter() }
            defer { if page > 1 { gate.leave() } }
            let ids: [JSONValue] = (0..<20).map { index in
                .object(JSONObject(pairs: ["id": .int(page * 100 + index), "title": .string("Movie \(page)-\(index)")]))
            }
            let body: JSONValue = ["page": .int(page), "results": .array(ids), "total_pages": 50, "total_results": 1000]
            return HTTPResponse(status: 200, body: JSONWriter().data(body), url: request.url)
        }
        let result = await run(query("popular", limit: 200), transport: transport, source: .offline)
        #expect(result.error == nil)
        #expect(gate.maximum == 4)
        let expected: [String] = (1...10).flatMap { page in (0..<20).map { String(page * 100 + $0) } }
        #expect(result.items.map(\.id) == expected)
        #expect(result.meta.pages == 10)
        #expect(result.meta.nextCursor == "11")
    }
}

/// Hands out `times` permissions, then refuses.
final class Limiter: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    init(times: Int) { remaining = times }
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }
}

/// Counts requests in flight and holds each one until `target` are in flight together (or a bounded number of
/// yields passed, so a sequential fetcher makes the test fail instead of hang).
final class InFlightGate: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private var peak = 0
    private var reachedTarget = false
    let target: Int

    init(target: Int) { self.target = target }

    func enter() async {
        arrive()
        for _ in 0..<2_000 {
            if isOpen { return }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    private func arrive() {
        lock.lock()
        current += 1
        peak = max(peak, current)
        if current >= target { reachedTarget = true }
        lock.unlock()
    }

    func leave() {
        lock.lock()
        current -= 1
        lock.unlock()
    }

    private var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reachedTarget
    }

    var maximum: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }
}
