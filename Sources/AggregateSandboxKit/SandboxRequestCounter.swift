import AggregateCore
public import Foundation

/// Counts a sandbox's requests per provider and window, so an emulator can enforce its API's rate limit for real
/// (Kiva REST's 60 a minute), as ``SandboxContext/countRequest(provider:budget:limit:window:)`` uses it.
///
/// Windows are fixed: the first request opens one, and it closes `window` seconds later. Only the
/// `aggregate sandbox` server keeps a counter; in-process `--offline` runs have none, so demos are never throttled.
public final class SandboxRequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var windows: [String: (opened: Date, count: Int)] = [:]

    /// Creates a counter with no requests counted.
    public init() {}

    /// Counts one request against `key`'s window of `limit` requests per `window` seconds.
    public func count(_ key: String, limit: Int, window: TimeInterval, now: Date) -> SandboxRateWindow {
        lock.lock()
        defer { lock.unlock() }
        var current = windows[key] ?? (now, 0)
        if now.timeIntervalSince(current.opened) >= window || now < current.opened { current = (now, 0) }
        current.count += 1
        windows[key] = current
        return SandboxRateWindow(limit: limit, used: current.count, resets: current.opened.addingTimeInterval(window))
    }
}

/// One counted window, as a route tells it in its rate-limit headers.
public struct SandboxRateWindow: Sendable, Equatable {
    /// The requests allowed in the window.
    public var limit: Int
    /// The requests counted in it so far, this one included.
    public var used: Int
    /// When it closes.
    public var resets: Date

    /// Creates a window (an emulator's picture of one it does not count, e.g. under `--offline`).
    public init(limit: Int, used: Int, resets: Date) {
        (self.limit, self.used, self.resets) = (limit, used, resets)
    }

    /// The requests left (never below zero).
    public var remaining: Int { max(0, limit - used) }
    /// Whether this request is over the limit.
    public var isExceeded: Bool { used > limit }
}

extension SandboxContext {
    /// The setting that shrinks or widens a provider's enforced limits, e.g. `kiva.rate-limit` = `5/2s`
    /// (`aggregate sandbox --rate-limit kiva=5/2s`).
    public static func rateLimitSetting(provider: String) -> String { "\(provider).rate-limit" }

    /// Counts this request against `provider`'s `budget` (e.g. `rest` or `rest-app`) of `limit` requests per
    /// `window` seconds, or the provider's `rate-limit` setting when one is given; `nil` when the sandbox does not
    /// count (in-process `--offline`).
    public func countRequest(provider: String, budget: String, limit: Int, window: TimeInterval) -> SandboxRateWindow? {
        guard let requestCounter else { return nil }
        let setting = settings[Self.rateLimitSetting(provider: provider)].flatMap(RateBudget.parseRate)
        return requestCounter.count("\(provider) \(budget)", limit: setting?.requests ?? limit, window: setting?.window ?? window, now: now)
    }
}
