public import Foundation

/// The one retry policy: which failures are retried, and how long to wait before each retry.
///
/// Idempotent requests are retried on connection errors and on 429, 502, 503 and 504, at most ``maxRetries``
/// times and with at most ``maxTotalWait`` seconds of waiting in all. The wait is the server's `Retry-After`
/// when it gives one, else capped exponential backoff with jitter. Non-idempotent requests are never retried.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    /// Seconds of waiting allowed across all retries of one request.
    public var maxTotalWait: TimeInterval
    /// The first backoff, doubled for each further retry.
    public var baseDelay: TimeInterval
    /// The longest single backoff.
    public var maxDelay: TimeInterval
    /// Returns a factor in 0.5...1.0 applied to backoffs so clients do not retry in step (replaceable in tests).
    public var jitter: @Sendable () -> Double

    /// Statuses that are worth retrying.
    public static let retryableStatuses: Set<Int> = [429, 502, 503, 504]

    /// Creates a policy.
    public init(
        maxRetries: Int = 3, maxTotalWait: TimeInterval = 30, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1.0) }
    ) {
        self.maxRetries = maxRetries
        self.maxTotalWait = maxTotalWait
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// What to do after a failed attempt.
    public enum Decision: Sendable, Equatable {
        /// Wait this many seconds, then try again.
        case retry(after: TimeInterval)
        /// Give up; `budgetExceeded` is true when the server asked for a longer wait than the budget allows.
        case giveUp(budgetExceeded: Bool)
    }

    /// Decides whether to retry after attempt number `attempt` (1 = the first try) failed.
    /// - Parameters:
    ///   - retryable: whether the failure is of a retryable kind and the request is idempotent.
    ///   - suggested: the server's requested wait, if any.
    ///   - waited: seconds already spent waiting on this request.
    public func decide(attempt: Int, retryable: Bool, suggested: TimeInterval?, waited: TimeInterval) -> Decision {
        guard retryable, attempt <= maxRetries else { return .giveUp(budgetExceeded: false) }
        let remaining = maxTotalWait - waited
        let delay: TimeInterval
        if let suggested {
            guard suggested <= remaining else { return .giveUp(budgetExceeded: true) }
            delay = max(0, suggested)
        } else {
            let backoff = min(maxDelay, baseDelay * pow(2, Double(attempt - 1))) * jitter()
            delay = min(backoff, max(0, remaining))
        }
        return .retry(after: delay)
    }
}
