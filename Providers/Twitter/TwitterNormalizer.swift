import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// An account as both APIs name it.
struct TwitterAccount: Sendable, Equatable {
    var id: String
    var username: String
    var name: String?

    /// `@username (Name)`, or `@username` when the name is unknown.
    var byline: String { name.map { "@\(username) (\($0))" } ?? "@\(username)" }

    func statusURL(_ id: String) -> String { "https://x.com/\(username)/status/\(id)" }

    /// The account as the run's cache keeps it.
    var jsonValue: JSONValue { ["id": .string(id), "username": .string(username), "name": .optional(name)] }
}

extension TwitterAccount {
    /// Reads `{"id", "username", "name"}` (v2) or `{"id_str", "screen_name", "name"}` (v1.1).
    init?(json: JSONValue) {
        guard let id = json["id_str"]?.nonEmptyString ?? json["id"]?.idString,
            let username = json["username"]?.nonEmptyString ?? json["screen_name"]?.nonEmptyString
        else { return nil }
        self.init(id: id, username: username, name: json["name"]?.nonEmptyString)
    }
}

/// A post's text as people read it: HTML entities decoded (both APIs send `&amp;`, `&lt;`, `&gt;`) and
/// t.co short links replaced by the URLs they stand for.
enum TweetText {
    static func readable(_ text: String, links: [(short: String, expanded: String)]) -> String {
        var result = PlainText.decodeEntities(text)
        // Longest first, so one short link can never be replaced inside a longer one.
        for link in links.sorted(by: { $0.short.count > $1.short.count }) where !link.short.isEmpty {
            result = result.replacingOccurrences(of: link.short, with: link.expanded)
        }
        return result
    }

    /// The `url` → `expanded_url` pairs of an entity list (v2 `urls`, v1.1 `urls` and `media`).
    static func links(_ entities: [JSONValue]?) -> [(short: String, expanded: String)] {
        (entities ?? []).compactMap { entity in
            guard let short = entity["url"]?.nonEmptyString, let expanded = entity["expanded_url"]?.nonEmptyString else { return nil }
            return (short, expanded)
        }
    }

    /// The metrics under the contract's names (`names` maps the API's field to ours); only those the API sent.
    static func metrics(_ json: JSONValue?, _ names: KeyValuePairs<String, String>) -> [String: Decimal] {
        var result: [String: Decimal] = [:]
        for (field, name) in names {
            if let value = json?[field]?.decimal { result[name] = value }
        }
        return result
    }

    /// A `tweet` item as both APIs fill it; hashtags (without `#`) are kept in order, each once.
    static func item(
        id: String, title: String, author: TwitterAccount?, createdAt: Date?, metrics: [String: Decimal], hashtags: [String],
        lang: String?, isRetweet: Bool, isReply: Bool, inReplyToUserId: String?
    ) -> Item {
        var item = Item(provider: "twitter", kind: "tweet", id: id, title: title)
        item.author = author?.byline
        item.url = author?.statusURL(id)
        item.createdAt = createdAt
        item.metrics = metrics
        var seen: Set<String> = []
        item.tags = hashtags.filter { seen.insert($0).inserted }
        var extra: [JSONObject.Member] = []
        extra.append("lang", lang.map(JSONValue.string))
        extra.append("isRetweet", .bool(isRetweet))
        extra.append("isReply", .bool(isReply))
        extra.append("inReplyToUserId", inReplyToUserId.map(JSONValue.string))
        item.extra = JSONObject(extra)
        return item
    }
}

// MARK: - API v2

/// Pure functions from API v2 bodies to accounts, items and pages.
enum TwitterV2 {
    /// The account in a `GET /2/users/by/username/:username` body. Unknown and suspended users arrive as HTTP 200
    /// with only an `errors` list.
    static func user(from json: JSONValue, requested handle: String) throws -> TwitterAccount {
        if let account = json["data"].flatMap(TwitterAccount.init(json:)) {
            // The id goes into the timeline's URL path.
            guard !account.id.isEmpty, account.id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw AggregateError(.decoding, "the user lookup gave '\(account.id)' as @\(handle)'s id, which is not a number")
            }
            return account
        }
        if let errors = json["errors"]?.array, let first = errors.first {
            throw resourceError(first, handle: handle)
        }
        throw AggregateError(.decoding, "the user lookup answer has neither data nor errors (not a users/by/username response)")
    }

    /// One `GET /2/users/:id/tweets` page. An empty timeline is `{"meta":{"result_count":0}}`, without `data`.
    /// A page may hold fewer posts than asked for and still have a `next_token`: paging goes on while there is one.
    static func timelinePage(_ json: JSONValue, owner: TwitterAccount?) throws -> Page {
        guard case .object = json else {
            throw AggregateError(.decoding, "the timeline answer is not a JSON object (not an API v2 response)")
        }
        if let data = json["data"], data.array == nil {
            throw AggregateError(.decoding, "the timeline answer's data is \(data.typeName), not a list of posts (not an API v2 timeline)")
        }
        let data = json["data"]?.array ?? []
        if json["data"] == nil, let first = json["errors"]?.array?.first {
            throw resourceError(first, handle: owner?.username ?? first["value"]?.string ?? "?")
        }
        if json["data"] == nil, json["meta"] == nil {
            throw AggregateError(.decoding, "the timeline answer has neither data nor meta (not an API v2 timeline)")
        }
        let accounts = (json["includes"]?["users"]?.array ?? []).compactMap(TwitterAccount.init(json:))
        let users = Dictionary(accounts.map { ($0.id, $0) }, uniquingKeysWith: { _, later in later })
        let items = data.compactMap { item($0, users: users, owner: owner) }
        let next = json["meta"]?["next_token"]?.nonEmptyString.map(Page.Next.cursor)
        return Page(items: items, next: next)
    }

    /// One post; `nil` when it has no id.
    static func item(_ tweet: JSONValue, users: [String: TwitterAccount], owner: TwitterAccount?) -> Item? {
        guard let id = tweet["id"]?.idString else { return nil }
        let text = tweet["text"]?.string ?? ""
        let entities = tweet["entities"]
        let references = tweet["referenced_tweets"]?.array?.compactMap { $0["type"]?.string } ?? []
        let inReplyTo = tweet["in_reply_to_user_id"]?.idString
        return TweetText.item(
            id: id, title: TweetText.readable(text, links: TweetText.links(entities?["urls"]?.array)),
            author: tweet["author_id"]?.idString.flatMap { users[$0] } ?? owner,
            createdAt: tweet["created_at"]?.string.flatMap(ISO8601.date(from:)),
            metrics: TweetText.metrics(tweet["public_metrics"], [
                "like_count": "likes", "retweet_count": "retweets", "reply_count": "replies", "quote_count": "quotes",
                "impression_count": "impressions",
            ]),
            hashtags: entities?["hashtags"]?.array?.compactMap { $0["tag"]?.nonEmptyString } ?? [],
            lang: tweet["lang"]?.nonEmptyString,
            // Without referenced_tweets (default fields) a retweet still shows as "RT @user: ...".
            isRetweet: references.contains("retweeted") || (tweet["referenced_tweets"] == nil && text.hasPrefix("RT @")),
            isReply: references.contains("replied_to") || inReplyTo != nil, inReplyToUserId: inReplyTo)
    }

    /// The error for an `errors` entry that came with HTTP 200 instead of data.
    static func resourceError(_ error: JSONValue, handle: String) -> AggregateError {
        let type = error["type"]?.string ?? ""
        // A Problem has `title` and may have `detail`; nothing else is defined for these errors.
        let detail = error["detail"]?.nonEmptyString ?? error["title"]?.nonEmptyString ?? "an unspecified error"
        if detail.lowercased().contains("suspended") {
            return AggregateError(.notFound, "@\(handle) is suspended")
        }
        if type.hasSuffix("/resource-not-found") {
            return error["resource_type"]?.string == "user"
                ? AggregateError(.notFound, "no user named @\(handle)")
                : AggregateError(.notFound, "not found: \(detail)")
        }
        if type.hasSuffix("/not-authorized-for-resource") {
            return AggregateError(.auth, "@\(handle)'s posts are protected: only approved followers can see them")
        }
        return AggregateError(.http, "the API returned an error: \(detail)")
    }
}

// MARK: - API v1.1

/// Pure functions from API v1.1 bodies to items and pages.
enum TwitterV11 {
    /// One `statuses/user_timeline.json` page: a bare JSON array of statuses. The next (older) page is
    /// `max_id` = the smallest `id_str` on this page minus one; an empty page is the end.
    static func timelinePage(_ json: JSONValue, username: String) throws -> Page {
        guard let statuses = json.array else {
            if json["errors"] != nil || json["error"] != nil {
                throw AggregateError(.http, "the API returned an error with HTTP 200: \(JSONWriter().string(json))")
            }
            throw AggregateError(.decoding, "the timeline answer is not a JSON array (not an API v1.1 user_timeline response)")
        }
        let items = statuses.compactMap(item)
        let ids = statuses.compactMap(statusID).compactMap { UInt64($0) }
        let next = ids.min().flatMap(olderPageCursor)
        return Page(items: items, next: next)
    }

    /// `max_id` for the page after one whose smallest id is `smallest`: ids exceed 2^53, so this is integer
    /// arithmetic on the exact value, never a Double.
    static func olderPageCursor(after smallest: UInt64) -> Page.Next? {
        smallest > 0 ? .cursor(String(smallest - 1)) : nil
    }

    /// A status's id as the exact decimal text: `id_str`, else the literal digits of `id`.
    static func statusID(_ status: JSONValue) -> String? {
        status["id_str"]?.nonEmptyString ?? status["id"]?.numberText
    }

    /// One status; `nil` when it has no id. A retweet's own text is cut to 140 characters, so its title is
    /// rebuilt as `RT @author: ` + the original's full text.
    static func item(_ status: JSONValue) -> Item? {
        guard let id = statusID(status) else { return nil }
        let original = status["retweeted_status"].flatMap { $0.object == nil ? nil : $0 }
        let textSource = original ?? status
        var title = readableText(textSource)
        if let original {
            let originalAuthor = original["user"]?["screen_name"]?.nonEmptyString ?? "?"
            title = "RT @\(originalAuthor): " + title
        }
        let inReplyToStatus = status["in_reply_to_status_id_str"]?.nonEmptyString ?? status["in_reply_to_status_id"]?.numberText
        let inReplyToUser = status["in_reply_to_user_id_str"]?.nonEmptyString ?? status["in_reply_to_user_id"]?.numberText
        return TweetText.item(
            id: id, title: title, author: status["user"].flatMap(TwitterAccount.init(json:)),
            createdAt: status["created_at"]?.string.flatMap(date),
            // Only some v1.1 payloads (premium/enterprise) carry replies and quotes.
            metrics: TweetText.metrics(status, [
                "favorite_count": "likes", "retweet_count": "retweets", "reply_count": "replies", "quote_count": "quotes",
            ]),
            hashtags: textSource["entities"]?["hashtags"]?.array?.compactMap { $0["text"]?.nonEmptyString } ?? [],
            lang: status["lang"]?.nonEmptyString, isRetweet: original != nil, isReply: inReplyToStatus != nil || inReplyToUser != nil,
            inReplyToUserId: inReplyToUser)
    }

    /// `full_text` (tweet_mode=extended) or `text` (compatibility mode), readable, with links expanded.
    static func readableText(_ status: JSONValue) -> String {
        let text = status["full_text"]?.string ?? status["text"]?.string ?? ""
        let entities = status["entities"]
        let media = (entities?["media"]?.array ?? []) + (status["extended_entities"]?["media"]?.array ?? [])
        return TweetText.readable(text, links: TweetText.links(entities?["urls"]?.array) + TweetText.links(media))
    }

    /// Parses v1.1's `Wed Oct 10 20:19:24 +0000 2018`.
    static func date(_ text: String) -> Date? {
        UTCTimestamp.date(fromTwitter: text) ?? dateFormatter.withLock { $0.date(from: text) }
    }

    /// The format needs the POSIX locale: day and month names are English whatever the user's locale.
    static let dateFormatter = LockedFormatter(ISO8601.utcFormatter(format: "EEE MMM dd HH:mm:ss Z yyyy"))
}
