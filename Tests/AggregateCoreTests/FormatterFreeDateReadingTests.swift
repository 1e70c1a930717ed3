import AggregateCore
import AggregateText
import Foundation
import Testing

/// The formatter-free date readers agree with Foundation's formatters and refuse what those refuse (their writing
/// side is checked in `UTCTimestampTests`).
@Suite struct FormatterFreeDateReadingTests {
    @Test func agreesWithTheFormattersOverCenturiesOfSeconds() {
        let iso = ISO8601DateFormatter()
        let twitter = ISO8601.utcFormatter(format: "EEE MMM dd HH:mm:ss Z yyyy")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &random)))
            let isoText = iso.string(from: date)
            #expect(UTCTimestamp.date(fromISO8601: isoText) == date, "\(isoText)")
            let twitterText = twitter.string(from: date)
            #expect(UTCTimestamp.date(fromTwitter: twitterText) == date, "\(twitterText)")
        }
    }

    @Test func readsOffsetsFractionsAndPlainDates() {
        #expect(UTCTimestamp.date(fromISO8601: "2022-11-03T09:20:26.000Z") == Date(timeIntervalSince1970: 1_667_467_226))
        #expect(UTCTimestamp.date(fromISO8601: "2022-11-03T09:20:26.250Z") == Date(timeIntervalSince1970: 1_667_467_226.25))
        #expect(UTCTimestamp.date(fromISO8601: "2022-11-03T11:20:26+02:00") == Date(timeIntervalSince1970: 1_667_467_226))
        #expect(UTCTimestamp.date(fromISO8601: "2012-07-03") == Date(timeIntervalSince1970: 1_341_273_600))
        #expect(UTCTimestamp.date(fromTwitter: "Sat Nov 09 12:14:18 +0000 2024") == Date(timeIntervalSince1970: 1_731_154_458))
        #expect(UTCTimestamp.date(fromTwitter: "Sat Nov 09 14:14:18 +0200 2024") == Date(timeIntervalSince1970: 1_731_154_458))
        #expect(ISO8601.date(from: " 2024-02-29T00:00:00Z ") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test(arguments: ["2023-02-29", "2023-13-01", "2023-01-01T24:00:00Z", "2023-01-01T10:00:00", "2023-01-01 10:00:00Z",
                      "2023-01-01T10:00:00.Z", "20230101", "Sat Nov 09 12:14:18 +0000 24", "Sat Foo 09 12:14:18 +0000 2024", ""])
    func refusesWhatIsNotOneOfItsForms(text: String) {
        #expect(UTCTimestamp.date(fromISO8601: text) == nil && UTCTimestamp.date(fromTwitter: text) == nil)
    }
}
