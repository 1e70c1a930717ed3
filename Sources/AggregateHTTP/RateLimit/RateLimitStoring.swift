public import Foundation

/// One token bucket a request spends from: its key and the budget it counts.
///
/// The key is `<provider> <budget> <host>` (e.g. `kiva rest api.kivaws.org`): it names the bucket and holds no
/// secret, so a store may use it as a file name or a Redis key.
public struct RateBucketClaim: Sendable, Equatable {
    /// `<provider> <budget> <host>`.
    public var key: String
    /// At most this many requests in any ``window``.
    public var requests: Int
    /// The budget's window plus the limiter's margin, in seconds: a token comes back this long after it was spent.
    public var window: TimeInterval

    /// Creates a claim.
    public init(key: String, requests: Int, window: TimeInterval) {
        self.key = key
        self.requests = requests
        self.window = window
    }
}

/// Where the rate limiter keeps its token buckets: the state every run that shares the store counts against.
///
/// ``RateLimitMiddleware`` asks two things of a store, each of which must happen **atomically** for every process
/// and machine sharing it (two runs must never take the same token):
/// - ``take(_:now:reset:)``: take a token from every bucket of this request that has one, or tell when the next
///   comes;
/// - ``learn(_:claims:now:reset:)``: take in what the API reported about its limit.
///
/// Both apply ``RateBucketState/take(requests:window:now:)`` and ``RateBucketState/learn(_:requests:window:now:)``,
/// the one definition of the semantics (tokens come back one window after they were spent, `blockedUntil`, the
/// server's remaining and reset), to each bucket in turn, and reset a stored state that is damaged or implausible
/// (telling `reset` why, once). ``RateLimitStore`` (files under a `flock`, the default) and the Redis store (one Lua
/// script run with `EVALSHA`) are the conformers; `FailoverRateLimitStore` puts one in front of another.
///
/// Choose the file store for one machine, Redis to share budgets between machines.
///
/// ```swift
/// var runner = ProviderRunner(registry: registry, environment: environment)
/// runner.rateLimitStore = RateLimitStore(directory: folder)   // or a Redis store, or a failover of both
/// ```
///
/// Implementation requirements: a reference or value type that is `Sendable`; blocking calls are fine (the
/// limiter calls them through ``BlockingWork``); keys and values must never hold a credential (keys are the claim's
/// key; values times and counts).
public protocol RateLimitStoring: Sendable {
    /// Where the state lives, for people: a folder's path, or `redis://HOST:PORT/DB`.
    var location: String { get }

    /// Takes one token from each bucket of `claims` that has one at `now`; returns `nil` when every bucket had one,
    /// else when the last of the others will have one. (A token taken from one bucket while another is empty stays
    /// taken: that errs on the safe side.)
    /// - Throws: when the store cannot be reached.
    func take(_ claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws -> Date?

    /// Takes in what the API reported after a response, for each bucket of `claims`.
    /// - Throws: when the store cannot be reached.
    func learn(_ report: RateLimitReport, claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws

    /// Every stored bucket whose key starts with `provider` (all when `nil`), sorted by key.
    /// - Throws: when the store cannot be reached.
    func entries(provider: String?, now: Date) throws -> [RateBucketEntry]

    /// Removes every stored bucket of `provider` (all when `nil`); returns how many were removed.
    /// - Throws: when the store cannot be reached or a bucket cannot be removed.
    @discardableResult
    func clear(provider: String?) throws -> Int
}

extension RateBucketState {
    /// Takes a token when the bucket has one at `now` (returning `now` or earlier), else returns when it next has
    /// one, after dropping tokens that have come back and server blocks that have passed. The one definition of a
    /// bucket's semantics; the Redis store's Lua script is its transcription.
    public mutating func take(requests: Int, window: TimeInterval, now: TimeInterval) -> TimeInterval {
        let ready = readyTime(requests: requests, window: window, now: now)
        if ready <= now {
            spent.append(now)
            if let remaining = serverRemaining { serverRemaining = remaining - 1 }
        }
        return ready
    }

    /// When the bucket next has a token (now or later), after dropping tokens that have come back.
    mutating func readyTime(requests: Int, window: TimeInterval, now: TimeInterval) -> TimeInterval {
        spent = spent.filter { $0 > now - window && $0 <= now + 1 }.sorted()
        if let reset = serverReset, reset <= now { (serverRemaining, serverReset) = (nil, nil) }
        if let blocked = blockedUntil, blocked <= now { blockedUntil = nil }
        var ready = now
        if spent.count >= requests { ready = spent[spent.count - requests] + window }
        if let blocked = blockedUntil { ready = max(ready, blocked) }
        if let remaining = serverRemaining, remaining <= 0, let reset = serverReset { ready = max(ready, reset) }
        return ready
    }

    /// Takes in what the API reported: a `Retry-After` blocks until then; a remaining count with a reset is kept;
    /// one without (Kiva) counts the requests spent elsewhere as spent now, so they come back one window from now.
    public mutating func learn(_ report: RateLimitReport, requests: Int, window: TimeInterval, now: TimeInterval) {
        if let retryAfter = report.retryAfter { blockedUntil = max(blockedUntil ?? 0, retryAfter.timeIntervalSince1970) }
        guard let remaining = report.remaining else { return }
        if let reset = report.reset {
            (serverRemaining, serverReset) = (remaining, reset.timeIntervalSince1970)
        } else {
            let ours = requests - spent.filter { $0 > now - window }.count
            if ours > remaining { spent += Array(repeating: now, count: min(ours - remaining, requests)) }
        }
    }
}

extension RateLimitStore: RateLimitStoring {
    /// The folder's path, or `memory` for a store in memory.
    public var location: String { directory?.path ?? "memory" }

    public func take(_ claims: [RateBucketClaim], now moment: Date, reset: @escaping @Sendable (String) -> Void) -> Date? {
        let now = moment.timeIntervalSince1970
        var latest: TimeInterval?
        for claim in claims {
            let ready = update(claim.key, now: moment, reset: reset) { $0.take(requests: claim.requests, window: claim.window, now: now) }
            if ready > now { latest = max(latest ?? 0, ready) }
        }
        return latest.map { Date(timeIntervalSince1970: $0) }
    }

    public func learn(_ report: RateLimitReport, claims: [RateBucketClaim], now moment: Date, reset: @escaping @Sendable (String) -> Void) {
        let now = moment.timeIntervalSince1970
        for claim in claims {
            update(claim.key, now: moment, reset: reset) { $0.learn(report, requests: claim.requests, window: claim.window, now: now) }
        }
    }
}
