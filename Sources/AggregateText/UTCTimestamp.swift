public import Foundation

/// Calendar arithmetic for UTC timestamps without a `DateFormatter`: formatters are slow and not thread-safe, so
/// shared ones serialize every caller behind a lock, which sandbox routes and normalizers hit once per item.
public enum UTCTimestamp {
    /// The parts of a UTC date-time.
    public struct Parts: Sendable, Equatable {
        public var year, month, day, hour, minute, second, millisecond: Int
        /// 0 for Sunday through 6 for Saturday.
        public var weekday: Int
    }

    /// The UTC parts of `date`, to the nearest millisecond (as `DateFormatter` shows them).
    public static func parts(of date: Date) -> Parts {
        let interval = date.timeIntervalSince1970
        let totalMilliseconds = interval.isFinite ? Int64(max(-1e15, min(1e15, (interval * 1000).rounded()))) : 0
        var days = totalMilliseconds / 86_400_000
        var rest = totalMilliseconds % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        // Days to civil date, after Howard Hinnant's public-domain `civil_from_days`.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4)
        return Parts(
            year: Int(year), month: Int(month), day: Int(day), hour: Int(rest / 3_600_000), minute: Int(rest / 60_000 % 60),
            second: Int(rest / 1000 % 60), millisecond: Int(rest % 1000), weekday: weekday)
    }

    /// `2002-10-08T17:22:14Z`, or `2002-10-08T17:22:14.123Z` with milliseconds.
    public static func iso8601(_ date: Date, milliseconds: Bool = false) -> String {
        // Whole seconds are cut, not rounded: 12:00:59.9 is still 12:00:59.
        let p = parts(of: milliseconds ? date : Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
        if (0...9999).contains(p.year) {
            // Every field has its fixed width: written as digits into the string's own storage, as a result's dates are
            // written once per item. The interpolation below gives the same text, and is kept for other years.
            return String(unsafeUninitializedCapacity: 24) { buffer in
                var end = 0
                func put(_ value: Int, _ width: Int, then separator: UInt8) {
                    var rest = value
                    for offset in stride(from: width - 1, through: 0, by: -1) {
                        buffer[end + offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                    buffer[end + width] = separator
                    end += width + 1
                }
                put(p.year, 4, then: UInt8(ascii: "-"))
                put(p.month, 2, then: UInt8(ascii: "-"))
                put(p.day, 2, then: UInt8(ascii: "T"))
                put(p.hour, 2, then: UInt8(ascii: ":"))
                put(p.minute, 2, then: UInt8(ascii: ":"))
                if milliseconds {
                    put(p.second, 2, then: UInt8(ascii: "."))
                    put(p.millisecond, 3, then: UInt8(ascii: "Z"))
                } else {
                    put(p.second, 2, then: UInt8(ascii: "Z"))
                }
                return end
            }
        }
        var text = "\(pad(p.year, 4))-\(pad(p.month, 2))-\(pad(p.day, 2))T\(pad(p.hour, 2)):\(pad(p.minute, 2)):\(pad(p.second, 2))"
        if milliseconds { text += "." + pad(p.millisecond, 3) }
        return text + "Z"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or a plain `YYYY-MM-DD` as midnight UTC, or `nil` for
    /// anything else (callers fall back to a formatter for rarer shapes).
    public static func date(fromISO8601 text: String) -> Date? {
        let bytes = Array(text.utf8)
        if bytes.count == 10, bytes[4] == 45, bytes[7] == 45 { return day(bytes) }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116, bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), day >= 1,
            day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 90, 122:  // Z
            guard index + 1 == bytes.count else { return nil }
        case 43, 45:  // + or -
            guard index + 6 == bytes.count, bytes[index + 3] == 58, let hours = number((index + 1)..<(index + 3)),
                let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == 45 ? -1 : 1)
        default:
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// `YYYY-MM-DD` as midnight UTC.
    private static func day(_ bytes: [UInt8]) -> Date? {
        var parts = [0, 0, 0]
        for (part, range) in [0..<4, 5..<7, 8..<10].enumerated() {
            for index in range {
                guard (48...57).contains(bytes[index]) else { return nil }
                parts[part] = parts[part] * 10 + Int(bytes[index] - 48)
            }
        }
        guard (1...12).contains(parts[1]), parts[2] >= 1, parts[2] <= daysIn(month: parts[1], year: parts[0]) else { return nil }
        return Date(timeIntervalSince1970: Double(daysFromCivil(year: parts[0], month: parts[1], day: parts[2]) * 86_400))
    }

    /// Reads Twitter's `Sat Nov 09 12:14:18 +0000 2024` (English names, a `±HHMM` offset), or `nil` for anything else.
    public static func date(fromTwitter text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 30, bytes[3] == 32, bytes[7] == 32, bytes[10] == 32, bytes[13] == 58, bytes[16] == 58,
            bytes[19] == 32, bytes[20] == 43 || bytes[20] == 45, bytes[25] == 32,
            let month = twitterMonths.firstIndex(of: String(decoding: bytes[4..<7], as: UTF8.self))
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (48...57).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard let day = number(8..<10), let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let hours = number(21..<23), let minutes = number(23..<25), let year = number(26..<30),
            day >= 1, day <= daysIn(month: month + 1, year: year), hour < 24, minute < 60, second < 60
        else { return nil }
        let offset = (hours * 3600 + minutes * 60) * (bytes[20] == 45 ? -1 : 1)
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
    }

    private static let twitterMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Civil date to days since 1970-01-01, after Howard Hinnant's public-domain `days_from_civil`.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `value` with leading zeros to `width` digits.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
