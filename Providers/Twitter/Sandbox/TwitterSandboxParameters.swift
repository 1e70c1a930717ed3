import AggregateCore
import AggregateSandboxKit
import Foundation

/// X API v2's request rules as the OpenAPI document 2.62 declares them (`Schemas/twitter/openapi-2.62.yaml`):
/// the enums of the `*.fields` and `expansions` parameters, and the id pattern.
///
/// Field names that newer X documentation adds (`user.fields` affiliation, most_recent_tweet_id, ...;
/// `tweet.fields` note_tweet, article, ...) are not in 2.62, so the sandbox rejects them as that document does:
/// the sandbox follows one published contract, and the conformance suite checks it against that contract.
enum TwitterSpec {
    static let userFields = [
        "created_at", "description", "entities", "id", "location", "name", "pinned_tweet_id", "profile_image_url", "protected",
        "public_metrics", "url", "username", "verified", "verified_type", "withheld",
    ]
    static let tweetFields = [
        "attachments", "author_id", "context_annotations", "conversation_id", "created_at", "edit_controls", "edit_history_tweet_ids",
        "entities", "geo", "id", "in_reply_to_user_id", "lang", "non_public_metrics", "organic_metrics", "possibly_sensitive",
        "promoted_metrics", "public_metrics", "referenced_tweets", "reply_settings", "source", "text", "withheld",
    ]
    static let tweetExpansions = [
        "attachments.media_keys", "attachments.poll_ids", "author_id", "edit_history_tweet_ids", "entities.mentions.username",
        "geo.place_id", "in_reply_to_user_id", "referenced_tweets.id", "referenced_tweets.id.author_id",
    ]
    static let userExpansions = ["pinned_tweet_id"]
    static let mediaFields = [
        "alt_text", "duration_ms", "height", "media_key", "non_public_metrics", "organic_metrics", "preview_image_url",
        "promoted_metrics", "public_metrics", "type", "url", "variants", "width",
    ]
    static let pollFields = ["duration_minutes", "end_datetime", "id", "options", "voting_status"]
    static let placeFields = ["contained_within", "country", "country_code", "full_name", "geo", "id", "name", "place_type"]
    static let excludable = ["replies", "retweets"]

    /// The fields every post and every account has, whatever `tweet.fields` or `user.fields` ask for.
    static let tweetDefaults: Set = ["id", "text", "edit_history_tweet_ids"]
    static let userDefaults: Set = ["id", "name", "username"]

    /// `UserId` and `TweetId`: `^[0-9]{1,19}$`.
    static let idPattern = "^[0-9]{1,19}$"

    static func isID(_ text: String) -> Bool { !text.isEmpty && text.count <= 19 && text.utf8.allSatisfy { (48...57).contains($0) } }

    /// A `TweetId`'s value.
    static func id(_ text: String) -> UInt64? { isID(text) ? UInt64(text) : nil }

    /// An RFC 3339 `date-time` (`2021-02-01T18:40:40Z`, `…40.123+02:00`): date, `T`, time, zone, nothing else.
    static func rfc3339(_ text: String) -> Date? {
        guard let match = text.wholeMatch(
            of: #/([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})/#)
        else { return nil }
        // The formatter rolls 2021-02-30 over to March; RFC 3339 does not.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let fields = DateComponents(
            calendar: calendar, year: Int(match.1), month: Int(match.2), day: Int(match.3), hour: Int(match.4), minute: Int(match.5),
            second: Int(match.6))
        guard fields.isValidDate else { return nil }
        return ISO8601.date(from: text.uppercased())
    }
}

/// Reading one v2 request's query parameters by ``TwitterSpec``'s rules: the first invalid one ends the request
/// with X's 400 problem naming it.
extension SandboxRequest {
    /// The parameter `name` as `parse` reads it (`nil` when absent); a value `parse` refuses is answered with
    /// "The `name` query parameter value [value] `complaint`".
    func checked<Value>(_ name: String, _ complaint: String, _ parse: (String) -> Value?) throws(SandboxExit) -> Value? {
        guard let text = queryValue(name) else { return nil }
        guard let value = parse(text) else { throw TwitterSandbox.invalidRequest(name, text, complaint) }
        return value
    }

    /// A comma-separated list (`explode: false`) of distinct words from `allowed`, at least one; `[]` when absent.
    func list(_ name: String, allowed: [String]) throws(SandboxExit) -> [String] {
        guard let text = queryValue(name) else { return [] }
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if text.isEmpty || words.contains("") {
            throw TwitterSandbox.invalidRequest(name, text, "is empty; give at least one of [\(allowed.joined(separator: ","))]")
        }
        for word in words where !allowed.contains(word) {
            throw TwitterSandbox.invalidRequest(name, word, "is not one of [\(allowed.joined(separator: ","))]")
        }
        if let repeated = words.enumerated().first(where: { words[..<$0.offset].contains($0.element) })?.element {
            throw TwitterSandbox.invalidRequest(name, repeated, "is repeated; each value may be given once")
        }
        return words
    }
}
