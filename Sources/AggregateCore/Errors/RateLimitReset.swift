public import Foundation

/// When a rate limit resets, in the words every rate-limit error uses: `at 14:03 local time (in 12 min)`, with the
/// date when the reset is not today.
public enum RateLimitReset {
    /// Describes `reset` as seen at `now` in `timeZone`.
    public static func describe(_ reset: Date, now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = calendar.isDate(reset, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        let clock = formatter.string(from: reset)
        let seconds = reset.timeIntervalSince(now)
        guard seconds > 0 else { return "at \(clock) local time (already passed: try again now)" }
        let minutes = Int((seconds / 60).rounded(.up))
        let wait = minutes >= 120 ? "in about \(minutes / 60) h" : "in \(minutes) min"
        return "at \(clock) local time (\(wait))"
    }

    /// The time zone rate-limit resets are told in: `TZ` from `environment` when it names one, else the system's.
    public static func timeZone(environment: [String: String]) -> TimeZone {
        environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) } ?? .current
    }
}
