import AggregateCore
import Foundation

/// Builds the requests; the bearer token travels as the request's credential, never in the URL or headers.
enum TwitterRequests {
    /// The tweet fields every v2 timeline request asks for: each one the normalizer reads (`author_id` too, which
    /// X sends only when asked).
    static let tweetFields = "author_id,created_at,public_metrics,lang,entities,referenced_tweets,in_reply_to_user_id"

    static func credential(_ query: Query) -> Credential? { TwitterProvider.bearerToken(query).map(Credential.bearer) }

    /// `GET /2/users/by/username/:username`.
    static func userLookup(_ query: Query, username: String) -> HTTPRequestSpec {
        HTTPRequestSpec(url: query.baseURL.appendingEndpoint("/2/users/by/username/\(username)"), credential: credential(query))
    }

    /// `GET /2/users/:id/tweets`. `max_results` must be 5–100; when filtering, the largest page is asked for
    /// because excluded posts still count towards it.
    static func v2Timeline(_ query: Query, userID: String, cursor: String?, remaining: Int) -> HTTPRequestSpec {
        let excluded = exclusions(query)
        let size = excluded.isEmpty ? min(100, max(5, remaining)) : 100
        var items: [(String, String)] = [
            ("max_results", String(size)),
            ("tweet.fields", tweetFields),
            ("expansions", "author_id"),
            ("user.fields", "username,name"),
        ]
        if !excluded.isEmpty { items.append(("exclude", excluded.joined(separator: ","))) }
        if let cursor { items.append(("pagination_token", cursor)) }
        return HTTPRequestSpec(
            url: query.baseURL.appendingEndpoint("/2/users/\(userID)/tweets").appendingQuery(items), credential: credential(query))
    }

    /// `GET /1.1/statuses/user_timeline.json`. `count` is at most 200 and, as in v2, counts excluded posts too.
    static func v11Timeline(_ query: Query, cursor: String?, remaining: Int) -> HTTPRequestSpec {
        let excluded = exclusions(query)
        let size = excluded.isEmpty ? min(200, max(1, remaining)) : 200
        var items: [(String, String)] = [
            ("screen_name", query.state[TwitterState.username] ?? query.string("username") ?? ""),
            ("count", String(size)),
            ("tweet_mode", "extended"),
        ]
        if excluded.contains("replies") { items.append(("exclude_replies", "true")) }
        items.append(("include_rts", excluded.contains("retweets") ? "false" : "true"))
        if let cursor { items.append(("max_id", cursor)) }
        return HTTPRequestSpec(
            url: query.baseURL.appendingEndpoint("/1.1/statuses/user_timeline.json").appendingQuery(items),
            credential: credential(query))
    }

    /// The `--exclude` words in a fixed order (`replies`, then `retweets`).
    static func exclusions(_ query: Query) -> [String] {
        let given = query.parameters["exclude"]?.array?.compactMap(\.string) ?? []
        return ["replies", "retweets"].filter(given.contains)
    }
}
