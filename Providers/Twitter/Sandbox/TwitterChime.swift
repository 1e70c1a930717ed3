import AggregateJSON
import AggregateText
import Foundation

/// `@hourly_chime`, a sandbox bot with a timeline long enough to page through: one post an hour for ten days
/// (240 posts), more than one v2 page (at most 100) or one v1.1 page (at most 200) holds. Its posts are made
/// here rather than stored, since they differ only in their number and time; its account is in `users.json`.
enum TwitterChime {
    static let userID = "1688888888888888888"
    static let count = 240
    /// The newest post's time: 2025-11-28 23:00 UTC.
    static let newest = Date(timeIntervalSince1970: 1_764_370_800)

    static let posts: [JSONValue] = (1...count).map(post)

    /// Post number `number` (1 = the oldest), in the v2 shape of `tweets.json`.
    static func post(_ number: Int) -> JSONValue {
        let date = newest.addingTimeInterval(-3600 * TimeInterval(count - number))
        let id = snowflake(date, sequence: number)
        let time = UTCTimestamp.parts(of: date)
        let hour = UTCTimestamp.pad(time.hour, 2)
        let day = "\(TwitterSandboxV11.days[time.weekday]) \(time.day) \(TwitterSandboxV11.months[time.month - 1]) \(time.year)"
        var text = "🔔 Chime #\(number): it's \(hour):00 UTC on \(day)."
        var entities: JSONValue?
        if hour == "00" {
            let start = text.unicodeScalars.count + 1
            text += " #midnight"
            entities = ["hashtags": [["start": .int(start), "end": .int(start + 9), "tag": "midnight"]]]
        }
        var post = JSONObject()
        post["id"] = .string(id)
        post["text"] = .string(text)
        post["created_at"] = .string(UTCTimestamp.iso8601(date, milliseconds: true))
        post["author_id"] = .string(userID)
        post["conversation_id"] = .string(id)
        post["edit_history_tweet_ids"] = [.string(id)]
        post["lang"] = "en"
        post["public_metrics"] = [
            "retweet_count": .int(number % 3), "reply_count": 0, "like_count": .int(number * 7 % 13), "quote_count": 0,
            "bookmark_count": 0, "impression_count": .int(40 + number % 50),
        ]
        post.set("entities", entities)
        post["possibly_sensitive"] = false
        post["source"] = "Chime Bot"
        return .object(post)
    }

    /// An id the way X makes them: milliseconds since X's epoch (2010-11-04) shifted left 22 bits, plus a sequence.
    static func snowflake(_ date: Date, sequence: Int) -> String {
        let milliseconds = UInt64(date.timeIntervalSince1970 * 1000) - 1_288_834_974_657
        return String(milliseconds << 22 | UInt64(sequence & 0xFFF))
    }
}
