public import Foundation

/// Reads and writes the fixed date forms APIs use without Foundation's formatters, which cost tens of microseconds
/// a call (ICU clones a formatter per parse): a 50 MB page of movies spent most of its normalizing time there.
/// Anything these do not recognise returns `nil`, and callers fall back to the formatters.
public enum FastDates {
    /// `2012-07-03` (midnight UTC) or `2012-07-03T17:22:14Z`, with optional fractional seconds and a `Z` or
    /// `±HH:MM` offset.
    public static func iso8601(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 10 || bytes.count >= 20 else { return nil }
            guard let year = number(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(bytes, 5, 2),
                bytes[7] == UInt8(ascii: "-"), let day = number(bytes, 8, 2), valid(year, month, day)
            else { return nil }
            let midnight = Double(daysFromCivil(year, month, day)) * 86_400
            if bytes.count == 10 { return Date(timeIntervalSince1970: midnight) }
            guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), let hour = number(bytes, 11, 2),
                bytes[13] == UInt8(ascii: ":"), let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
                let second = number(bytes, 17, 2), hour < 24, minute < 60, second < 61
            else { return nil }
            var index = 19
            var fraction = 0.0
            if bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start, index < bytes.count else { return nil }
            }
            var offset = 0
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                guard index + 1 == bytes.count else { return nil }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard index + 6 == bytes.count, let hours = number(bytes, index + 1, 2), bytes[index + 3] == UInt8(ascii: ":"),
                    let minutes = number(bytes, index + 4, 2)
                else { return nil }
                offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            default:
                return nil
            }
            return Date(timeIntervalSince1970: midnight + Double(hour * 3600 + minute * 60 + second - offset) + fraction)
        }
    }

    /// Twitter's `Sat Nov 09 12:14:18 +0000 2024` (English names, a `±HHMM` offset).
    public static func twitter(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 30, bytes[3] == 0x20, bytes[7] == 0x20, bytes[10] == 0x20, bytes[19] == 0x20, bytes[25] == 0x20,
                let month = months.firstIndex(of: String(decoding: UnsafeBufferPointer(rebasing: bytes[4..<7]), as: UTF8.self)),
                let day = number(bytes, 8, 2), let hour = number(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
                let minute = number(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"), let second = number(bytes, 17, 2),
                let hours = number(bytes, 21, 2), let minutes = number(bytes, 23, 2), let year = number(bytes, 26, 4),
                bytes[20] == UInt8(ascii: "+") || bytes[20] == UInt8(ascii: "-"), valid(year, month + 1, day),
                hour < 24, minute < 60, second < 61
            else { return nil }
            let offset = (hours * 3600 + minutes * 60) * (bytes[20] == UInt8(ascii: "+") ? 1 : -1)
            let seconds = daysFromCivil(year, month + 1, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
            return Date(timeIntervalSince1970: Double(seconds))
        }
    }

    /// `date` as `2002-10-08T17:22:14Z` (whole seconds, rounded down), as ``ISO8601/string(from:)`` writes it.
    public static func iso8601String(_ date: Date) -> String {
        let seconds = Int((date.timeIntervalSince1970).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 1000 ? "\(year)" : String(repeating: "0", count: max(0, 4 - "\(max(year, 0))".count)) + "\(max(year, 0))"
        return "\(yearText)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<(start + count) {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    private static func valid(_ year: Int, _ month: Int, _ day: Int) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
