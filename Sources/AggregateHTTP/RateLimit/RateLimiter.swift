public import AggregateCore
public import Foundation

/// What an API says about its rate limit in a response: the requests left and when its window resets
/// (`x-rate-limit-*` as X sends them, `x-ratelimit-*` as GitHub does, `X-RateLimit-*` as TMDb's old API and Kiva
/// do, including Kiva's `X-RateLimit-Overall-Remaining`), and `Retry-After`.
public struct RateLimitReport: Sendable, Equatable {
    /// The fewest requests left that any remaining header reports.
    public var remaining: Int?
    /// When the window resets: epoch seconds (values past 10⁹) or seconds from now, as APIs differ.
    public var reset: Date?
    /// When `Retry-After` allows the next request.
    public var retryAfter: Date?

    /// Reads `response`'s headers, as of `now`, through ``RateLimitHeaders``: a value that is not a finite,
    /// non-negative number is ignored, and no reset or `Retry-After` is further than
    /// ``RateLimitHeaders/longestWait`` from `now`.
    public init(_ response: HTTPResponse, now: Date) {
        var remaining: Int?
        var reset: Date?
        for (name, value) in response.headers {
            let lower = name.lowercased()
            guard lower.hasPrefix("x-rate-limit-") || lower.hasPrefix("x-ratelimit-") else { continue }
            // X's `x-app-rate-limit-*` is a daily per-app cap, not this window; it is left to the provider's errors.
            if lower.hasSuffix("-remaining"), let number = RateLimitHeaders.remaining(value) {
                remaining = min(remaining ?? number, number)
            } else if lower.hasSuffix("-reset"), let date = RateLimitHeaders.reset(value, now: now) {
                reset = date
            }
        }
        self.remaining = remaining
        self.reset = reset
        retryAfter = RateLimitHeaders.retryAfter(response.headers, now: now).map { now.addingTimeInterval($0) }
    }
}

/// Keeps one provider's requests within its published budgets (``RateBudgetPlan``), before they are sent.
///
/// Each budget is a token bucket whose tokens come back one window after they were spent (at most `requests` in
/// any window, whatever the API's window alignment), kept in a ``RateLimitStoring`` (files by default, or Redis) shared by every concurrent
/// page, every `compare` invocation and every process on the machine (or every machine). It adapts to what the API reports: fewer requests
/// left than the bucket holds spends the difference, a reset or `Retry-After` blocks until then. When the next
/// token comes within the retry budget (``RetryPolicy/maxTotalWait``), it waits, telling the wait as a
/// ``FetchEvent/Kind/waitingForRateLimit(seconds:budget:)`` event; otherwise it stops before sending with a
/// `rateLimited` error that says when the limit resets.
///
/// It sits inside retry and redirect (``FetchChain/standard(_:options:statistics:retryDelay:)``), so every attempt
/// and every hop spends a token, and outside the deadline, so a wait is not counted against `--timeout`.
public struct RateLimitMiddleware: FetchMiddleware {
    /// The budgets.
    public var plan: RateBudgetPlan
    /// Where the buckets live.
    public var store: any RateLimitStoring
    /// The longest the limiter waits for one request before it gives up.
    public var maxWait: TimeInterval
    /// Waits (replaced in tests).
    public var sleep: @Sendable (TimeInterval) async throws -> Void
    /// The clock.
    public var now: @Sendable () -> Date
    /// Receives the waits.
    public var events: @Sendable (FetchEvent) -> Void
    /// The time zone the reset is told in.
    public var timeZone: TimeZone

    /// A margin added to every window: the API counts a request when it arrives, a varying moment after the limiter
    /// let it go (connection set-up, a busy machine), and clocks differ a little.
    static func margin(_ window: TimeInterval) -> TimeInterval { 0.25 + window * 0.02 }

    /// Creates a limiter.
    public init(
        plan: RateBudgetPlan, store: any RateLimitStoring, maxWait: TimeInterval, sleep: @escaping @Sendable (TimeInterval) async throws -> Void,
        now: @escaping @Sendable () -> Date, events: @escaping @Sendable (FetchEvent) -> Void, timeZone: TimeZone
    ) {
        self.plan = plan
        self.store = store
        self.maxWait = maxWait
        self.sleep = sleep
        self.now = now
        self.events = events
        self.timeZone = timeZone
    }

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let buckets = plan.buckets(for: request.url, baseURL: exchange.origin).map { (key: stateKey($0.key, origin: exchange.origin), budget: $0.budget) }
        let claims = buckets.map { RateBucketClaim(key: $0.key, requests: $0.budget.requests, window: $0.budget.window + Self.margin($0.budget.window)) }
        let provider = exchange.provider
        let reset: @Sendable (String) -> Void = { [events] message in
            events(FetchEvent(provider: provider, kind: .warning(message + "; continuing")))
        }
        guard !buckets.isEmpty else { return try await next(request, exchange) }
        var waited: TimeInterval = 0
        var slept = Date.distantPast
        while true {
            // A sleep lasts at least as long as asked, so the clock is at least where it ended (this also keeps a
            // test's instant sleep from waiting forever).
            let moment = max(now(), slept)
            let store = self.store
            let readyAt = try await Self.storeWork(store) { try store.take(claims, now: moment, reset: reset) }
            guard let readyAt else { break }
            let wait = readyAt.timeIntervalSince(moment)
            guard waited + wait <= maxWait else {
                let budget = buckets[0].budget
                throw AggregateError(
                    .rateLimited,
                    "the rate limit (\(budget.summary)) is spent; the limit resets \(RateLimitReset.describe(readyAt, now: moment, timeZone: timeZone)). Nothing was sent: try again then, or pass --no-rate-limit")
            }
            // A wait too short to notice is not worth a line.
            if wait >= 0.1 { events(FetchEvent(provider: exchange.provider, kind: .waitingForRateLimit(seconds: wait, budget: buckets[0].budget.summary))) }
            try await sleep(wait)
            waited += wait
            slept = readyAt
        }
        let response = try await next(request, exchange)
        let report = RateLimitReport(response, now: now())
        if report.remaining != nil || report.retryAfter != nil {
            let moment = now()
            let store = self.store
            try await Self.storeWork(store) { try store.learn(report, claims: claims, now: moment, reset: reset) }
        }
        return response
    }

    /// `kiva rest 127.0.0.1:8787`: the provider, the budget and the API's host (the sandbox and the API differ).
    private func stateKey(_ bucket: String, origin: URL) -> String {
        let host = (origin.host ?? "?") + (origin.port.map { ":\($0)" } ?? "")
        return "\(plan.provider) \(bucket) \(host)"
    }

    /// Runs a store call on a thread of its own (a file lock or a Redis round trip blocks), and words a store that
    /// cannot be used as one line.
    private static func storeWork<T: Sendable>(_ store: any RateLimitStoring, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await BlockingWork.run(work)
        } catch let error as AggregateError {
            throw error
        } catch {
            throw AggregateError(.network, "the rate-limit store \(store.location) cannot be used: \(error); pass --no-rate-limit to run without it")
        }
    }
}
