import AggregateCore
import AggregateText
import Foundation
import Testing

/// The formatter-free timestamps agree with Foundation's formatters on every date tried.
@Suite struct UTCTimestampTests {
    static func formatter(_ format: String) -> DateFormatter { ISO8601.utcFormatter(format: format) }

    @Test func formattingAgreesWithDateFormatterOverManyDates() {
        let seconds = Self.formatter("yyyy-MM-dd'T'HH:mm:ss'Z'")
        let millis = Self.formatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        let twitter = Self.formatter("EEE MMM dd HH:mm:ss Z yyyy")
        var generator = SystemRandomNumberGenerator()
        // From 1900: DateFormatter switches to the Julian calendar before 1582, which timestamps never need.
        let samples = [0, -1, 951_782_400, 4_107_542_399.999, -2_208_988_800] + (0..<2000).map { _ in
            Double(Int64.random(in: -2_208_988_800_000...32_503_680_000_000, using: &generator)) / 1000
        }
        for value in samples {
            let date = Date(timeIntervalSince1970: value)
            #expect(UTCTimestamp.iso8601(date) == seconds.string(from: date), "\(value)")
            #expect(UTCTimestamp.iso8601(date, milliseconds: true) == millis.string(from: date), "\(value)")
            let p = UTCTimestamp.parts(of: date)
            #expect(twitter.string(from: date).hasPrefix(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][p.weekday]), "\(value)")
        }
    }

    @Test func parsingAgreesWithISO8601DateFormatter() {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for text in ["2012-07-03T10:20:30Z", "1999-12-31T23:59:59+05:30", "2000-02-29T00:00:00-08:00", "2024-01-01T00:00:00.250Z"] {
            let expected = plain.date(from: text) ?? fractional.date(from: text)
            #expect(UTCTimestamp.date(fromISO8601: text) == expected, "\(text)")
        }
        for bad in ["2012-02-30T10:20:30Z", "2012-07-03 10:20:30Z", "2012-07-03T25:00:00Z", "2012-07-03T10:20:30", "2012-07-03T10:20:30.Z"] {
            #expect(UTCTimestamp.date(fromISO8601: bad) == nil, "\(bad)")
        }
    }
}
