public import Foundation
import AggregateText

/// How long a response's `Retry-After` header asks a client to wait: the one reading of it, used by the retry
/// policy, the rate limiter and providers that read their own rate-limit answers.
public enum RetryAfter {
    /// The wait a `Retry-After` header asks for (seconds, or an HTTP date), if any, within
    /// ``RateLimitHeaders/longestWait`` (see ``RateLimitHeaders/retryAfter(_:now:)``).
    public static func delay(_ response: HTTPResponse, now: Date) -> TimeInterval? {
        RateLimitHeaders.retryAfter(response.headers, now: now)
    }
}

/// The one reading of the rate-limit headers a server sends (`Retry-After`, `X-RateLimit-Reset`,
/// `x-rate-limit-remaining` and their kin): the limiter, the retry policy, the definition engine's error reader and
/// the Swift providers all read them here, so that a hostile or broken server is bounded in one place.
///
/// These headers are untrusted input. A value that is not a finite, non-negative number (or an HTTP date) is
/// ignored; a wait or reset further away than ``longestWait`` is clamped to it, so no answer can lock a provider out
/// for longer than that (`aggregate limits reset` clears even that). See docs/rate-limits.md.
public enum RateLimitHeaders {
    /// The longest any server-announced wait or reset is believed: two days, that is one day past the longest
    /// window a rate budget may declare (24 h, the cap of `N/WINDOW` and of every built-in provider's windows).
    public static let longestWait: TimeInterval = 2 * 86_400

    /// Reset values above this are epoch seconds, below it seconds from now (APIs differ; 10⁹ s is 2001).
    public static let epochThreshold: TimeInterval = 1e9

    /// `wait` limited to `0...longestWait`; `nil` for a value that is not finite or is negative.
    public static func bounded(_ wait: TimeInterval) -> TimeInterval? {
        guard wait.isFinite, wait >= 0 else { return nil }
        return min(wait, longestWait)
    }

    /// `date` moved no further than ``longestWait`` past `now`; `nil` for a date that is not finite.
    public static func bounded(_ date: Date, now: Date) -> Date? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, now.timeIntervalSince1970.isFinite else { return nil }
        return min(date, now.addingTimeInterval(longestWait))
    }

    /// A non-negative finite number of seconds as a header gives it (`12`, `1.5`); `nil` for anything else,
    /// including `inf`, `nan`, hexadecimal and negative values.
    static func number(_ text: String) -> TimeInterval? {
        let text = text.trimmingCharacters(in: .whitespaces)
        // Decimal digits, a point and an exponent only: `Double` alone also reads `inf`, `nan` and `0x1p3`.
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "+" || $0 == "-") }),
              let value = Double(text), value.isFinite, value >= 0
        else { return nil }
        return value
    }

    /// The wait a `Retry-After` header asks for: delay-seconds or an HTTP date, within `0...longestWait`.
    public static func retryAfter(_ headers: HTTPHeaders, now: Date) -> TimeInterval? {
        guard now.timeIntervalSince1970.isFinite, let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty
        else { return nil }
        if let seconds = number(value) { return bounded(seconds) }
        guard value.count <= 64, let date = HTTPDate.parse(value) ?? legacyDate(value) else { return nil }
        let wait = date.timeIntervalSince(now)
        guard wait.isFinite else { return nil }
        return min(max(0, wait), longestWait)
    }

    /// When a window resets, from a reset header's `text`: epoch seconds when `epoch` is true, seconds from `now`
    /// when false, and by size (past ``epochThreshold`` is epoch) when `nil`. Never further than ``longestWait``
    /// past `now`; `nil` for a value that is not a finite, non-negative number.
    public static func reset(_ text: String, now: Date, epoch: Bool? = nil) -> Date? {
        guard now.timeIntervalSince1970.isFinite, let value = number(text) else { return nil }
        if epoch ?? (value > epochThreshold) { return bounded(Date(timeIntervalSince1970: value), now: now) }
        return bounded(value).map { now.addingTimeInterval($0) }
    }

    /// The requests a remaining header says are left: a whole number, at least 0; `nil` for anything else.
    public static func remaining(_ text: String) -> Int? {
        Int(text.trimmingCharacters(in: .whitespaces)).map { max(0, $0) }
    }

    /// An HTTP date in a form `HTTPDate` does not read (a zone other than `GMT`).
    private static func legacyDate(_ text: String) -> Date? {
        ISO8601.utcFormatter(format: "EEE, dd MMM yyyy HH:mm:ss zzz").date(from: text)
    }
}
