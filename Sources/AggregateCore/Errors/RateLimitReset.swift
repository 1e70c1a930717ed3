public import Foundation

/// When a rate limit resets, in the words every rate-limit error uses: `at 14:03 local time (in 12 min)`, with the
/// date when the reset is not today.
public enum RateLimitReset {
    /// Describes `reset` as seen at `now` in `timeZone`. A reset further than ``RateLimitHeaders/longestWait``
    /// away is told as that far (no learned reset is further, see ``RateLimitHeaders``), so the wording is always
    /// a real clock and a wait of at most two days; a clock that cannot be told (a `now` out of the calendar's
    /// range) is left out rather than printed blank.
    public static func describe(_ reset: Date, now: Date, timeZone: TimeZone) -> String {
        let raw = reset.timeIntervalSince(now)
        // Not a number (or the difference of two infinities): treat as passed, the harmless reading.
        let seconds = raw.isNaN ? 0 : min(max(raw, -RateLimitHeaders.longestWait), RateLimitHeaders.longestWait)
        let shown = now.addingTimeInterval(seconds)
        let clock = Self.clock(shown, now: now, timeZone: timeZone)
        let at = clock.map { "at \($0) local time " } ?? ""
        guard seconds > 0 else { return "\(at)(already passed: try again now)" }
        let minutes = Int((seconds / 60).rounded(.up))
        let wait = minutes >= 120 ? "in about \(minutes / 60) h" : "in \(minutes) min"
        return "\(at)(\(wait))"
    }

    /// `14:03`, or `2026-12-02 14:03` when `date` is not on `now`'s day; `nil` when it cannot be told.
    private static func clock(_ date: Date, now: Date, timeZone: TimeZone) -> String? {
        // Years 1...9999 only: outside them the formatter answers an empty or garbled string.
        let range = -62_135_596_800.0...253_402_300_799.0
        guard range.contains(date.timeIntervalSince1970), range.contains(now.timeIntervalSince1970) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = calendar.isDate(date, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        let text = formatter.string(from: date)
        return text.isEmpty ? nil : text
    }

    /// The time zone rate-limit resets are told in: `TZ` from `environment` when it names one, else the system's.
    public static func timeZone(environment: [String: String]) -> TimeZone {
        environment["TZ"].flatMap { TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) } ?? .current
    }
}
