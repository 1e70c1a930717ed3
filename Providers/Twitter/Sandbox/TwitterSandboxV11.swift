import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateText
import Foundation

/// The sandbox's API v1.1 `GET /1.1/statuses/user_timeline.json`: the bundled v2 posts rewritten in v1.1's shape
/// (numeric `id` beside `id_str`, `Wed Oct 10 20:19:24 +0000 2018` dates, `indices`, a full `user` object per
/// status, `retweeted_status`, `quoted_status`, and an HTML `source`).
enum TwitterSandboxV11 {
    /// v1.1's JSON, whose content type has no space before `charset`.
    static func json(_ value: JSONValue, status: Int = 200) -> SandboxResponse {
        .json(value, status: status, headers: ["Content-Type": "application/json;charset=utf-8"])
    }

    static func error(_ status: Int, code: Int, message: String) -> SandboxResponse {
        json(["errors": [["code": .int(code), "message": .string(message)]]], status: status)
    }

    static func userTimeline(_ request: SandboxRequest, context: SandboxContext) -> SandboxResponse {
        if context.settings["twitter.v1-access"] == "limited" {
            return error(
                403, code: 453,
                message: "This endpoint is not part of your access level: the app may use a subset of X API v2 endpoints and a few v1.1 endpoints only. Other access levels are listed in the developer portal.")
        }
        let user = request.queryValue("screen_name").flatMap(TwitterSandbox.user(username:))
            ?? request.queryValue("user_id").flatMap(TwitterSandbox.user(id:))
        guard let user, let userID = user["id"]?.string else {
            return error(404, code: 34, message: "Sorry, that page does not exist.")
        }
        if user["protected"]?.bool == true {
            return json(["request": "/1.1/statuses/user_timeline.json", "error": "Not authorized."], status: 401)
        }
        // The answer depends only on the query (the rate-limit headers, added later, carry the clock), so repeated
        // requests reuse it.
        return memo.response(for: SandboxResponseMemo.key(request)) {
            // count is capped at 200; like X, it is applied before replies and retweets are removed.
            let count = min(200, max(1, request.queryValue("count").flatMap { Int($0) } ?? 20))
            let maxID = request.queryValue("max_id").flatMap { UInt64($0) } ?? .max
            let sinceID = request.queryValue("since_id").flatMap { UInt64($0) } ?? 0
            let excludeReplies = ["true", "1", "t"].contains(request.queryValue("exclude_replies")?.lowercased() ?? "")
            let includeRetweets = !["false", "0", "f"].contains(request.queryValue("include_rts")?.lowercased() ?? "")
            let extended = request.queryValue("tweet_mode") == "extended"
            // "each Tweet returned in a timeline will include a user object including only the status author's numerical ID"
            let trimUser = ["true", "1", "t"].contains(request.queryValue("trim_user")?.lowercased() ?? "")
            let window = TwitterSandbox.timeline(userID: userID)
                .filter { TwitterSandbox.numericID($0) > sinceID && TwitterSandbox.numericID($0) <= maxID }
                .prefix(count)
            let shown = window.filter { tweet in
                !(excludeReplies && TwitterSandbox.references(tweet, as: "replied_to"))
                    && !(!includeRetweets && TwitterSandbox.references(tweet, as: "retweeted"))
            }
            return json(.array(shown.map { precomputedStatus($0, extended: extended, trimUser: trimUser) }))
        }
    }

    // MARK: v2 record → v1.1 status

    /// Every bundled post in both v1.1 shapes (compatibility and extended), converted once rather than per request.
    static let statuses: [Bool: [String: JSONValue]] = Dictionary(uniqueKeysWithValues: [false, true].map { extended in
        (extended, Dictionary(TwitterSandbox.tweets.compactMap { tweet in tweet["id"]?.string.map { ($0, status(tweet, extended: extended)) } },
                              uniquingKeysWith: { first, _ in first }))
    })

    static let memo = SandboxResponseMemo()

    static func precomputedStatus(_ tweet: JSONValue, extended: Bool, trimUser: Bool) -> JSONValue {
        if trimUser { return status(tweet, extended: extended, trimUser: true) }
        return tweet["id"]?.string.flatMap { statuses[extended]?[$0] } ?? status(tweet, extended: extended)
    }

    static func status(_ tweet: JSONValue, extended: Bool, trimUser: Bool = false, nested: Bool = false) -> JSONValue {
        let id = tweet["id"]?.string ?? "0"
        let fullText = tweet["text"]?.string ?? ""
        let author = tweet["author_id"]?.string.flatMap(TwitterSandbox.user(id:)) ?? [:]
        let references = tweet["referenced_tweets"]?.array ?? []
        func reference(_ type: String) -> String? { references.first { $0["type"]?.string == type }?["id"]?.string }
        let repliedTo = reference("replied_to")
        let replyUser = tweet["in_reply_to_user_id"]?.string
        let scalars = Array(fullText.unicodeScalars)
        let compatibilityCut = !extended && scalars.count > 140
        let text = compatibilityCut ? String(String.UnicodeScalarView(scalars.prefix(139))) + "…" : fullText
        let visibleLength = compatibilityCut ? 139 : scalars.count
        let (entities, media) = entitiesV11(tweet["entities"], within: visibleLength)

        var status = JSONObject()
        status["created_at"] = .string(tweet["created_at"]?.string.flatMap(ISO8601.date(from:)).map(format) ?? "")
        status["id"] = .number(id)
        status["id_str"] = .string(id)
        status[extended ? "full_text" : "text"] = .string(text)
        status["truncated"] = .bool(compatibilityCut)
        if extended {
            status["display_text_range"] = [.int(displayStart(tweet, isReply: repliedTo != nil)), .int(scalars.count)]
        }
        status["entities"] = .object(entities)
        if !media.isEmpty { status["extended_entities"] = ["media": .array(media)] }
        status["source"] = .string(sourceAnchor(tweet["source"]?.string ?? "Twitter Web App"))
        status["in_reply_to_status_id"] = repliedTo.map(JSONValue.number) ?? .null
        status["in_reply_to_status_id_str"] = .optional(repliedTo)
        status["in_reply_to_user_id"] = replyUser.map(JSONValue.number) ?? .null
        status["in_reply_to_user_id_str"] = .optional(replyUser)
        status["in_reply_to_screen_name"] = .optional(replyUser.flatMap(TwitterSandbox.user(id:))?["username"]?.string)
        status["user"] = trimUser ? trimmedUser(author) : userV11(author)
        status["geo"] = .null
        status["coordinates"] = .null
        status["place"] = .null
        status["contributors"] = .null
        if let original = reference("retweeted").flatMap(TwitterSandbox.tweet(id:)), !nested {
            status["retweeted_status"] = self.status(original, extended: extended, trimUser: trimUser, nested: true)
        }
        let quoted = reference("quoted")
        status["is_quote_status"] = .bool(quoted != nil)
        if let quoted {
            status["quoted_status_id"] = .number(quoted)
            status["quoted_status_id_str"] = .string(quoted)
            if let original = TwitterSandbox.tweet(id: quoted), !nested {
                let link = (tweet["entities"]?["urls"]?.array ?? []).last
                status["quoted_status_permalink"] = [
                    "url": link?["url"] ?? .null, "expanded": link?["expanded_url"] ?? .null, "display": link?["display_url"] ?? .null,
                ]
                status["quoted_status"] = self.status(original, extended: extended, trimUser: trimUser, nested: true)
            }
        }
        let metrics = tweet["public_metrics"]
        status["retweet_count"] = metrics?["retweet_count"] ?? 0
        status["favorite_count"] = metrics?["like_count"] ?? 0
        status["favorited"] = false
        status["retweeted"] = false
        if tweet["entities"]?["urls"] != nil { status["possibly_sensitive"] = tweet["possibly_sensitive"] ?? false }
        status["lang"] = tweet["lang"] ?? "und"
        return .object(status)
    }

    /// Where the displayed text starts: after the leading @mentions of a reply.
    static func displayStart(_ tweet: JSONValue, isReply: Bool) -> Int {
        guard isReply else { return 0 }
        var start = 0
        for mention in (tweet["entities"]?["mentions"]?.array ?? []).sorted(by: { ($0["start"]?.int ?? 0) < ($1["start"]?.int ?? 0) }) {
            guard mention["start"]?.int == start, let end = mention["end"]?.int else { break }
            start = end + 1
        }
        return start
    }

    /// v1.1 entities (`indices` instead of start/end; photos under `media`), keeping those inside `length`.
    static func entitiesV11(_ entities: JSONValue?, within length: Int) -> (JSONObject, [JSONValue]) {
        func inside(_ entity: JSONValue) -> Bool { (entity["end"]?.int ?? .max) <= length }
        func indices(_ entity: JSONValue) -> JSONValue { [entity["start"] ?? 0, entity["end"] ?? 0] }
        let hashtags = (entities?["hashtags"]?.array ?? []).filter(inside).map { tag -> JSONValue in
            ["text": tag["tag"] ?? "", "indices": indices(tag)]
        }
        let mentions = (entities?["mentions"]?.array ?? []).filter(inside).map { mention -> JSONValue in
            let user = mention["username"]?.string.flatMap(TwitterSandbox.user(username:))
            let id = mention["id"]?.string ?? user?["id"]?.string ?? "0"
            return [
                "screen_name": mention["username"] ?? "", "name": user?["name"] ?? mention["username"] ?? "",
                "id": .number(id), "id_str": .string(id), "indices": indices(mention),
            ]
        }
        var urls: [JSONValue] = []
        var media: [JSONValue] = []
        for url in (entities?["urls"]?.array ?? []).filter(inside) {
            if let key = url["media_key"]?.string, let mediaID = key.split(separator: "_").last.map(String.init) {
                let code = url["url"]?.string?.split(separator: "/").last.map(String.init) ?? mediaID
                media.append([
                    "id": .number(mediaID), "id_str": .string(mediaID), "indices": indices(url),
                    "media_url_https": .string("https://pbs.twimg.com/media/\(code).jpg"),
                    "url": url["url"] ?? "", "display_url": url["display_url"] ?? "", "expanded_url": url["expanded_url"] ?? "",
                    "type": "photo",
                    "sizes": [
                        "thumb": ["w": 150, "h": 150, "resize": "crop"], "small": ["w": 680, "h": 510, "resize": "fit"],
                        "medium": ["w": 1200, "h": 900, "resize": "fit"], "large": ["w": 2048, "h": 1536, "resize": "fit"],
                    ],
                ])
            } else {
                urls.append(["url": url["url"] ?? "", "expanded_url": url["expanded_url"] ?? "", "display_url": url["display_url"] ?? "", "indices": indices(url)])
            }
        }
        var object = JSONObject()
        object["hashtags"] = .array(hashtags)
        object["symbols"] = []
        object["user_mentions"] = .array(mentions)
        object["urls"] = .array(urls)
        if !media.isEmpty { object["media"] = .array(media) }
        return (object, media)
    }

    /// The user object of `trim_user=true`: the id alone.
    static func trimmedUser(_ user: JSONValue) -> JSONValue {
        let id = user["id"]?.string ?? "0"
        return ["id": .number(id), "id_str": .string(id)]
    }

    /// A v1.1 user object for a bundled v2 account.
    static func userV11(_ user: JSONValue) -> JSONValue {
        let id = user["id"]?.string ?? "0"
        let metrics = user["public_metrics"]
        var object = JSONObject()
        object["id"] = .number(id)
        object["id_str"] = .string(id)
        object["name"] = user["name"] ?? ""
        object["screen_name"] = user["username"] ?? ""
        object["location"] = user["location"] ?? ""
        object["description"] = user["description"] ?? ""
        object["url"] = .null
        object["entities"] = ["description": ["urls": []]]
        object["protected"] = user["protected"] ?? false
        object["followers_count"] = metrics?["followers_count"] ?? 0
        object["friends_count"] = metrics?["following_count"] ?? 0
        object["listed_count"] = metrics?["listed_count"] ?? 0
        object["created_at"] = .string(user["created_at"]?.string.flatMap(ISO8601.date(from:)).map(format) ?? "")
        object["favourites_count"] = .int((metrics?["following_count"]?.int ?? 0) * 7)
        object["utc_offset"] = .null
        object["time_zone"] = .null
        object["geo_enabled"] = false
        object["verified"] = user["verified"] ?? false
        object["statuses_count"] = metrics?["tweet_count"] ?? 0
        object["lang"] = .null
        object["profile_image_url_https"] = .string("https://pbs.twimg.com/profile_images/\(id)/avatar_normal.png")
        object["default_profile"] = false
        object["default_profile_image"] = false
        return .object(object)
    }

    /// v1.1's HTML anchor for a client name.
    static func sourceAnchor(_ name: String) -> String {
        let links = [
            "Twitter for iPhone": "http://twitter.com/download/iphone", "Twitter for Android": "http://twitter.com/download/android",
            "TweetDeck Web App": "https://tweetdeck.twitter.com",
        ]
        return "<a href=\"\(links[name] ?? "https://mobile.twitter.com")\" rel=\"nofollow\">\(name)</a>"
    }

    static func format(_ date: Date) -> String {
        let p = UTCTimestamp.parts(of: date)
        let time = "\(UTCTimestamp.pad(p.hour, 2)):\(UTCTimestamp.pad(p.minute, 2)):\(UTCTimestamp.pad(p.second, 2))"
        return "\(days[p.weekday]) \(months[p.month - 1]) \(UTCTimestamp.pad(p.day, 2)) \(time) +0000 \(p.year)"
    }

    /// Day and month names as X writes them, whatever the locale.
    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
