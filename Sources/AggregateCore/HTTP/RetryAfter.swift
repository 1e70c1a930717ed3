public import Foundation

/// How long a response's `Retry-After` header asks a client to wait: the one reading of it, used by the retry
/// policy, the rate limiter and providers that read their own rate-limit answers.
public enum RetryAfter {
    /// The wait a `Retry-After` header asks for (seconds, or an HTTP date), if any.
    public static func delay(_ response: HTTPResponse, now: Date) -> TimeInterval? {
        guard let value = response.headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = ISO8601.utcFormatter(format: "EEE, dd MMM yyyy HH:mm:ss zzz")
        if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        return nil
    }
}
