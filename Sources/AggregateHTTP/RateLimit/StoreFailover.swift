import AggregateCore
public import Foundation

/// Whether a shared store (Redis) is in use or the local one stands in, as `aggregate serve` reports it in
/// `/healthz`: `redis: up`, or `redis: down since 2026-12-06T02:50:01Z (cannot reach ...)`.
///
/// The failover stores (``FailoverRateLimitStore``, ``FailoverHTTPCacheStore``) share one: the first failure of the
/// shared store marks it down and is logged **once**; while down, every call goes to the local store, and at most
/// one call every ``retryInterval`` tries the shared store again (cheap: no probe on every request); its first success
/// marks it up again, logged once too.
public final class StoreHealth: @unchecked Sendable, CustomStringConvertible {
    /// The shared store's state.
    public enum State: Sendable, Equatable {
        /// In use.
        case up
        /// Not reachable since `since`, for `reason`; the local store answers.
        case down(since: Date, reason: String)
    }

    /// The shared store's name in log lines and ``description`` (`redis`).
    public let name: String
    /// The least time between two tries of a shared store that is down.
    public let retryInterval: TimeInterval
    private let clock: @Sendable () -> Date
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var state = State.up
    private var nextTry = Date.distantPast

    /// Creates a health record; `log` receives the one line of each change (down, then up again).
    public init(
        name: String = "redis", retryInterval: TimeInterval = 5, clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void
    ) {
        self.name = name
        self.retryInterval = retryInterval
        self.clock = clock
        self.log = log
    }

    /// The current state.
    public var current: State {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    /// Whether the shared store is in use.
    public var isUp: Bool { current == .up }

    /// `redis: up`, or `redis: down since 2026-12-06T02:50:01Z (reason)`.
    public var description: String {
        switch current {
        case .up: return "\(name): up"
        case .down(let since, let reason): return "\(name): down since \(Self.timestamp(since)) (\(reason))"
        }
    }

    /// Whether this call should go to the shared store: always when up; when down, one call per ``retryInterval``.
    func shouldTryShared() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard case .down = state else { return true }
        let now = clock()
        guard now >= nextTry else { return false }
        nextTry = now.addingTimeInterval(retryInterval)
        return true
    }

    /// The shared store answered.
    func succeeded() {
        lock.lock()
        guard case .down(let since, _) = state else {
            lock.unlock()
            return
        }
        state = .up
        lock.unlock()
        log("\(name): up again (down since \(Self.timestamp(since))); sharing state through it again")
    }

    /// The shared store failed with `error`.
    func failed(_ error: any Error) {
        let reason = (error as? AggregateError)?.message ?? "\(error)"
        lock.lock()
        let now = clock()
        nextTry = now.addingTimeInterval(retryInterval)
        guard state == .up else {
            lock.unlock()
            return
        }
        state = .down(since: now, reason: reason)
        lock.unlock()
        log("\(name): down since \(Self.timestamp(now)) (\(reason)); using the local store, retrying every \(Int(retryInterval)) s")
    }

    /// Runs `shared` when it is the shared store's turn, else (or when it fails) `local`.
    func run<T>(_ shared: () throws -> T, otherwise local: () throws -> T) throws -> T {
        if shouldTryShared() {
            do {
                let value = try shared()
                succeeded()
                return value
            } catch {
                failed(error)
            }
        }
        return try local()
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

/// A rate-limit store that uses a shared one (Redis) and, while it cannot be reached, a local one (files or memory),
/// as ``StoreHealth`` decides. Buckets are not copied between them: after an outage the shared buckets hold what
/// was spent through them, and the local ones what was spent while it lasted.
public struct FailoverRateLimitStore: RateLimitStoring {
    /// The store shared with other processes and machines.
    public let shared: any RateLimitStoring
    /// The store used while the shared one is down.
    public let local: any RateLimitStoring
    /// Up or down, shared with the cache's failover.
    public let health: StoreHealth

    /// Creates a failover of `shared` to `local`.
    public init(shared: any RateLimitStoring, local: any RateLimitStoring, health: StoreHealth) {
        self.shared = shared
        self.local = local
        self.health = health
    }

    /// The shared store's location.
    public var location: String { shared.location }

    public func take(_ claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws -> Date? {
        try health.run({ try shared.take(claims, now: now, reset: reset) }, otherwise: { try local.take(claims, now: now, reset: reset) })
    }

    public func learn(_ report: RateLimitReport, claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws {
        try health.run(
            { try shared.learn(report, claims: claims, now: now, reset: reset) },
            otherwise: { try local.learn(report, claims: claims, now: now, reset: reset) })
    }

    public func entries(provider: String?, now: Date) throws -> [RateBucketEntry] {
        try health.run({ try shared.entries(provider: provider, now: now) }, otherwise: { try local.entries(provider: provider, now: now) })
    }

    @discardableResult
    public func clear(provider: String?) throws -> Int {
        try health.run({ try shared.clear(provider: provider) }, otherwise: { try local.clear(provider: provider) })
    }
}

/// An HTTP cache store that uses a shared one (Redis) and, while it cannot be reached, a local one (the disk cache),
/// as ``StoreHealth`` decides. Entries are not copied between them.
public struct FailoverHTTPCacheStore: HTTPCacheStoring {
    /// The store shared with other processes and machines.
    public let shared: any HTTPCacheStoring
    /// The store used while the shared one is down.
    public let local: any HTTPCacheStoring
    /// Up or down, shared with the rate limiter's failover.
    public let health: StoreHealth

    /// Creates a failover of `shared` to `local`.
    public init(shared: any HTTPCacheStoring, local: any HTTPCacheStoring, health: StoreHealth) {
        self.shared = shared
        self.local = local
        self.health = health
    }

    /// The shared store's location.
    public var location: String { shared.location }
    /// The shared store's cap.
    public var maxBytes: Int { shared.maxBytes }

    public func salt() throws -> [UInt8] { try health.run({ try shared.salt() }, otherwise: { try local.salt() }) }

    public func read(provider: String, key: String) throws -> HTTPCacheLookup {
        try health.run({ try shared.read(provider: provider, key: key) }, otherwise: { try local.read(provider: provider, key: key) })
    }

    public func write(_ entry: HTTPCacheEntry, provider: String, key: String) throws {
        try health.run({ try shared.write(entry, provider: provider, key: key) }, otherwise: { try local.write(entry, provider: provider, key: key) })
    }

    public func touch(provider: String, key: String) throws {
        try health.run({ try shared.touch(provider: provider, key: key) }, otherwise: { try local.touch(provider: provider, key: key) })
    }

    public func record(_ outcome: HTTPCacheOutcome, provider: String) throws {
        try health.run({ try shared.record(outcome, provider: provider) }, otherwise: { try local.record(outcome, provider: provider) })
    }

    public func statistics() throws -> [HTTPCacheStore.ProviderStatistics] {
        try health.run({ try shared.statistics() }, otherwise: { try local.statistics() })
    }

    @discardableResult
    public func clear(provider: String?, keepingCounts: Bool) throws -> (entries: Int, bytes: Int) {
        try health.run(
            { try shared.clear(provider: provider, keepingCounts: keepingCounts) },
            otherwise: { try local.clear(provider: provider, keepingCounts: keepingCounts) })
    }
}
