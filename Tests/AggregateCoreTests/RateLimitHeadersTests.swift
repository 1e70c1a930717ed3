import AggregateCore
import AggregateText
import Foundation
import Testing

/// Issue 27: rate-limit and retry headers are untrusted input, read in one place and bounded there.
@Suite struct RateLimitHeadersTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)
    let utc = TimeZone(identifier: "UTC")!

    func retryAfter(_ value: String) -> TimeInterval? { RetryAfter.delay(HTTPResponse(status: 429, headers: ["Retry-After": value]), now: now) }

    @Test func retryAfterIgnoresWhatIsNotAFiniteNonNegativeNumberOrADate() {
        for value in ["inf", "-inf", "Infinity", "nan", "NaN", "-1", "-0.5", "0x1p70", "soon", "", "1e", "Fri, 31 Dec 99999999999 23:59:59 GMT"] {
            #expect(retryAfter(value) == nil, "\(value)")
        }
        #expect(retryAfter("2") == 2)
        #expect(retryAfter(" 1.5 ") == 1.5)
        #expect(retryAfter(HTTPDate.format(now.addingTimeInterval(90))) == 90)
        #expect(retryAfter(HTTPDate.format(now.addingTimeInterval(-90))) == 0, "a date in the past: no wait")
    }

    @Test func retryAfterIsClampedToTwoDays() {
        for value in ["1e308", "9.3e18", "9223372036854775807", "99999999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"] {
            #expect(retryAfter(value) == RateLimitHeaders.longestWait, "\(value)")
        }
        #expect(RateLimitHeaders.longestWait == 172_800)
    }

    @Test func resetsAreBoundedEpochOrRelative() {
        let limit = now.addingTimeInterval(RateLimitHeaders.longestWait)
        #expect(RateLimitHeaders.reset("1e308", now: now) == limit)
        #expect(RateLimitHeaders.reset("9223372036854775807", now: now, epoch: true) == limit)
        #expect(RateLimitHeaders.reset("1e18", now: now, epoch: false) == limit)
        #expect(RateLimitHeaders.reset("30", now: now) == now.addingTimeInterval(30))
        #expect(RateLimitHeaders.reset("1796000600", now: now) == Date(timeIntervalSince1970: 1_796_000_600))
        for value in ["inf", "nan", "-5", "-1e308", "x"] {
            #expect(RateLimitHeaders.reset(value, now: now) == nil, "\(value)")
            #expect(RateLimitHeaders.reset(value, now: now, epoch: true) == nil, "\(value)")
        }
        #expect(RateLimitHeaders.remaining("-3") == 0)
        #expect(RateLimitHeaders.remaining("99999999999999999999999") == nil)
    }

    /// Before: `Int((seconds / 60).rounded(.up))` trapped for a reset 1e308 s away (exit 132), and a reset in year
    /// 292 billion printed a blank clock with "in about 2562047788015215 h".
    @Test func theResetWordingNeverTrapsAndNeverPrintsABlankClock() {
        let far = [1e308, 9.3e18, 9.2e18 + 1_796_000_000, .infinity, .nan, -1e308, -.infinity, .greatestFiniteMagnitude]
        for seconds in far {
            let words = RateLimitReset.describe(Date(timeIntervalSince1970: seconds), now: now, timeZone: utc)
            #expect(!words.contains("at  local"), "\(seconds): \(words)")
            #expect(!words.contains("2562047788015215"), "\(seconds): \(words)")
        }
        #expect(RateLimitReset.describe(Date(timeIntervalSince1970: 1e308), now: now, timeZone: utc) == "at 2026-12-02 00:53 local time (in about 48 h)")
        #expect(RateLimitReset.describe(now.addingTimeInterval(720), now: now, timeZone: utc) == "at 01:05 local time (in 12 min)")
        #expect(RateLimitReset.describe(now.addingTimeInterval(-5), now: now, timeZone: utc) == "at 00:53 local time (already passed: try again now)")
        // A clock reading no calendar can show: the clock is left out, not printed blank.
        let absurd = Date(timeIntervalSince1970: 1e300)
        #expect(RateLimitReset.describe(absurd.addingTimeInterval(1e299), now: absurd, timeZone: utc) == "(in about 48 h)")
    }
}
