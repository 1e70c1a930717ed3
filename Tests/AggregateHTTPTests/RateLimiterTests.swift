import AggregateCore
import AggregateHTTP
import AggregateTestSupport
import Foundation
import Testing

/// A clock that moves only when the limiter sleeps, so waits are exact and instant.
final class VirtualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var slept: [TimeInterval] = []

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    var now: Date { lock.withLock { current } }
    var sleeps: [TimeInterval] { lock.withLock { slept } }

    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }

    func sleep(_ seconds: TimeInterval) {
        lock.withLock {
            slept.append(seconds)
            current += seconds
        }
    }
}

@Suite struct RateBudgetTests {
    static let kiva = ProviderDescriptor(
        name: "kiva", displayName: "Kiva", summary: "", docsURL: "", defaultBaseURL: "https://api.kivaws.org", auth: [], authStyle: "",
        paginationStyle: "", operations: [], examples: [],
        rateBudgets: [
            RateBudget("rest", requests: 500, per: 60, paths: ["/v1/**"], whenSet: "KIVA_APP_ID"),
            RateBudget("rest", requests: 60, per: 60, paths: ["/v1/**"]),
        ])

    @Test(arguments: [
        ("5/2s", 5, 2.0), ("60/1m", 60, 60.0), ("40/1", 40, 1.0), ("10/500ms", 10, 0.5), ("3/1h", 3, 3600.0), ("7/s", 7, 1.0),
    ])
    func ratesParse(text: String, requests: Int, window: Double) throws {
        let rate = try #require(RateBudget.parseRate(text))
        #expect(rate.requests == requests && rate.window == window)
    }

    @Test(arguments: ["", "5", "0/1s", "-1/1s", "5/0s", "5/2d", "five/2s", "5/0x10", "5/2s/3", "5/1e3"])
    func badRatesDoNotParse(text: String) {
        #expect(RateBudget.parseRate(text) == nil)
    }

    @Test func theTierFollowsTheAppIDAndTheOverrideReplacesTheSize() throws {
        #expect(try RateBudgetPlan(descriptor: Self.kiva, environment: [:]).budgets.map(\.requests) == [60])
        #expect(try RateBudgetPlan(descriptor: Self.kiva, environment: ["KIVA_APP_ID": " "]).budgets.map(\.requests) == [60])
        #expect(try RateBudgetPlan(descriptor: Self.kiva, environment: ["KIVA_APP_ID": "org.example"]).budgets.map(\.requests) == [500])
        let shrunk = try RateBudgetPlan(descriptor: Self.kiva, environment: ["AGGREGATE_KIVA_RATE_LIMIT": "5/2s"])
        #expect(shrunk.budgets.map(\.requests) == [5] && shrunk.budgets.map(\.window) == [2] && shrunk.budgets[0].paths == ["/v1/**"])
        #expect(throws: AggregateError(.config, "AGGREGATE_KIVA_RATE_LIMIT must be N/WINDOW, e.g. 60/1m or 5/2s, not 'lots'")) {
            try RateBudgetPlan(descriptor: Self.kiva, environment: ["AGGREGATE_KIVA_RATE_LIMIT": "lots"])
        }
    }

    @Test func onlyMatchingPathsBelowTheBaseURLSpend() throws {
        let plan = try RateBudgetPlan(descriptor: Self.kiva, environment: [:])
        let base = URL(string: "http://127.0.0.1:8787/kiva")!
        #expect(plan.buckets(for: URL(string: "http://127.0.0.1:8787/kiva/v1/loans/newest.json?page=1")!, baseURL: base).map(\.key) == ["rest"])
        #expect(plan.buckets(for: URL(string: "http://127.0.0.1:8787/kiva/graphql")!, baseURL: base).isEmpty)
        // A tier that applies when a variable is set is counted apart from the one without.
        let withAppID = try RateBudgetPlan(descriptor: Self.kiva, environment: ["KIVA_APP_ID": "org.example"])
        #expect(withAppID.buckets(for: URL(string: "http://127.0.0.1:8787/kiva/v1/loans/newest.json")!, baseURL: base).map(\.key) == ["rest with KIVA_APP_ID"])
        var perEndpoint = Self.kiva
        perEndpoint.rateBudgets = [RateBudget("window", requests: 3, per: 900, paths: ["/2/users/*/tweets", "/2/users/by/username/*"], perEndpoint: true)]
        let endpoints = try RateBudgetPlan(descriptor: perEndpoint, environment: [:])
        #expect(endpoints.buckets(for: URL(string: "https://api.x.com/2/users/12/tweets")!, baseURL: URL(string: "https://api.x.com")!).map(\.key)
            == ["window /2/users/*/tweets"])
    }

    @Test func budgetsDescribeThemselves() {
        #expect(RateBudget("a", requests: 60, per: 60).summary == "60 requests a minute")
        #expect(RateBudget("a", requests: 1, per: 1).summary == "1 request a second")
        #expect(RateBudget("a", requests: 300, per: 900).summary == "300 requests per 15 min")
        #expect(RateBudget("a", requests: 5, per: 2).summary == "5 requests per 2 s")
    }
}

@Suite struct RateLimiterTests {
    let origin = URL(string: "https://api.example.com")!

    func limiter(
        _ budgets: [RateBudget], store: RateLimitStore, clock: VirtualClock, events: EventLog = EventLog(), maxWait: TimeInterval = 30
    ) throws -> RateLimitMiddleware {
        let descriptor = ProviderDescriptor(
            name: "demo", displayName: "Demo", summary: "", docsURL: "", defaultBaseURL: origin.absoluteString, auth: [], authStyle: "",
            paginationStyle: "", operations: [], examples: [], rateBudgets: budgets)
        return RateLimitMiddleware(
            plan: try RateBudgetPlan(descriptor: descriptor, environment: [:]), store: store, maxWait: maxWait,
            sleep: { clock.sleep($0) }, now: { clock.now }, events: { events.append($0) }, timeZone: TimeZone(identifier: "UTC")!)
    }

    func send(_ middleware: RateLimitMiddleware, headers: HTTPHeaders = [:], status: Int = 200, sent: RequestLog) async throws {
        let request = HTTPRequest(method: "GET", url: origin.appendingEndpoint("/items"), timeout: 15, maxResponseBytes: 1 << 20)
        _ = try await middleware.intercept(request, exchange: FetchExchange(provider: "demo", origin: origin)) { request, _ in
            sent.append(request)
            return HTTPResponse(status: status, headers: headers, url: request.url)
        }
    }

    @Test func sendsTheBudgetAtOnceThenWaitsForTokensToComeBack() async throws {
        let clock = VirtualClock()
        let events = EventLog()
        let middleware = try limiter([RateBudget("api", requests: 5, per: 2)], store: RateLimitStore(directory: nil), clock: clock, events: events)
        let sent = RequestLog()
        for _ in 0..<12 { try await send(middleware, sent: sent) }
        #expect(sent.requests.count == 12)
        // Five at once, then each token returns one window (plus the arrival margin) after it was spent.
        #expect(clock.sleeps.count == 2)
        #expect(clock.sleeps.allSatisfy { abs($0 - 2.29) < 0.001 })
        let waits = events.values.compactMap { if case .waitingForRateLimit(let seconds, let budget) = $0.kind { return (seconds, budget) } else { return nil } }
        #expect(waits.count == 2 && waits.allSatisfy { $0.1 == "5 requests per 2 s" })
    }

    @Test func noRequestIsSentWhenTheNextTokenIsBeyondTheRetryBudget() async throws {
        let clock = VirtualClock(Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15 08:00:00 UTC
        let middleware = try limiter([RateBudget("api", requests: 2, per: 3600)], store: RateLimitStore(directory: nil), clock: clock)
        let sent = RequestLog()
        try await send(middleware, sent: sent)
        try await send(middleware, sent: sent)
        await #expect(throws: AggregateError(
            .rateLimited,
            "the rate limit (2 requests an hour) is spent; the limit resets at 09:01 local time (in 62 min). Nothing was sent: try again then, or pass --no-rate-limit"
        )) { try await send(middleware, sent: sent) }
        #expect(sent.requests.count == 2)
        #expect(clock.sleeps.isEmpty)
    }

    @Test(arguments: [
        ("x-rate-limit-remaining", "x-rate-limit-reset", "1800000020"),  // X: epoch seconds
        ("x-ratelimit-remaining", "x-ratelimit-reset", "1800000020"),  // GitHub
        ("X-RateLimit-Remaining", "X-RateLimit-Reset", "20"),  // seconds from now
    ])
    func anExhaustedWindowTheAPIReportsHoldsTheNextRequestUntilItsReset(remaining: String, reset: String, value: String) async throws {
        let clock = VirtualClock()
        let middleware = try limiter([RateBudget("api", requests: 100, per: 60)], store: RateLimitStore(directory: nil), clock: clock)
        let sent = RequestLog()
        try await send(middleware, headers: HTTPHeaders([(remaining, "0"), (reset, value)]), sent: sent)
        try await send(middleware, sent: sent)
        #expect(sent.requests.count == 2)
        #expect(clock.sleeps == [20])
    }

    @Test func retryAfterHoldsEveryLaterRequest() async throws {
        let clock = VirtualClock()
        let middleware = try limiter([RateBudget("api", requests: 100, per: 60)], store: RateLimitStore(directory: nil), clock: clock)
        let sent = RequestLog()
        try await send(middleware, headers: ["Retry-After": "7"], status: 429, sent: sent)
        try await send(middleware, sent: sent)
        #expect(clock.sleeps == [7])
    }

    @Test func requestsSpentElsewhereAreCountedFromTheRemainingHeaderAlone() async throws {
        // Kiva reports what is left, with no reset: the difference was spent by someone else on this address.
        let clock = VirtualClock()
        let middleware = try limiter([RateBudget("rest", requests: 60, per: 60)], store: RateLimitStore(directory: nil), clock: clock, maxWait: 120)
        let sent = RequestLog()
        try await send(middleware, headers: ["X-RateLimit-Overall-Remaining": "1"], sent: sent)
        try await send(middleware, sent: sent)
        #expect(clock.sleeps.isEmpty)
        try await send(middleware, sent: sent)
        #expect(clock.sleeps.count == 1 && abs(clock.sleeps[0] - 61.45) < 0.001)
    }

    @Test func twoStoresOnOneFolderShareTheBudgetLikeTwoProcesses() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-ratelimit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = VirtualClock()
        let first = try limiter([RateBudget("api", requests: 3, per: 10)], store: RateLimitStore(directory: folder), clock: clock)
        let second = try limiter([RateBudget("api", requests: 3, per: 10)], store: RateLimitStore(directory: folder), clock: clock)
        let sent = RequestLog()
        try await send(first, sent: sent)
        try await send(second, sent: sent)
        try await send(first, sent: sent)
        #expect(clock.sleeps.isEmpty)
        try await send(second, sent: sent)
        #expect(clock.sleeps.count == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files == ["demo_api_api.example.com.json", "demo_api_api.example.com.lock"])
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(files[0]).path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700 && fileMode == 0o600)
    }

    @Test func aDamagedStateFileStartsAfresh() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-ratelimit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{\"version\":1,\"spent\":[1,2".utf8).write(to: folder.appendingPathComponent("demo_api_api.example.com.json"))
        let clock = VirtualClock()
        let middleware = try limiter([RateBudget("api", requests: 1, per: 10)], store: RateLimitStore(directory: folder), clock: clock)
        let sent = RequestLog()
        try await send(middleware, sent: sent)
        #expect(sent.requests.count == 1 && clock.sleeps.isEmpty)
    }

    @Test func concurrentRequestsShareOneBudget() async throws {
        let clock = VirtualClock()
        let middleware = try limiter([RateBudget("api", requests: 4, per: 100)], store: RateLimitStore(directory: nil), clock: clock, maxWait: 1)
        let sent = RequestLog()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { (try? await send(middleware, sent: sent)) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 4)
        #expect(sent.requests.count == 4)
    }

    @Test func headersAreReadCaseInsensitivelyAndTheSmallestRemainingWins() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let response = HTTPResponse(status: 200, headers: [
            "X-RateLimit-Overall-Remaining": "40", "X-RateLimit-Specific-Remaining": "12", "x-app-rate-limit-remaining": "5", "Retry-After": "3",
        ])
        let report = RateLimitReport(response, now: now)
        #expect(report.remaining == 12)
        #expect(report.reset == nil)
        #expect(report.retryAfter == now.addingTimeInterval(3))
    }
}
