public import AggregateCore
import Foundation

/// Twitter/X's part of the sandbox: API v2 `GET /2/users/by/username/:username` and `GET /2/users/:id/tweets`,
/// and v1.1 `GET /1.1/statuses/user_timeline.json`, over the bundled accounts in `SampleData/`.
///
/// Like X: every answer carries `x-rate-limit-*` headers; requests without the sandbox's bearer token get 401;
/// unknown users are v2's HTTP 200 with `errors[]` and v1.1's 404 code 34; protected accounts are refused;
/// `max_results` / `count` count posts before the exclude filter; v2 pages both ways with `next_token` and
/// `previous_token`, v1.1 with `max_id` and `since_id`.
///
/// Settings: `twitter.v1-access=limited` makes v1.1 answer 403 code 453, as it does for most access levels today;
/// `twitter.rate-limit-reset=SECONDS` moves the reset of an injected 429 that close (default: the window's end).
extension TwitterSandbox: SandboxProviding {
    public static let providerName = "twitter"

    /// The credentials the sandbox accepts.
    public static let sandboxEnvironment = ["X_BEARER_TOKEN": "sandbox-x-bearer-token"]

    /// X's users (v2) and v1.1, at the sandbox's root: beside Meetup's `/2/groups`, not over it.
    public static let sandboxPaths: [SandboxPathPattern] = ["/2/users/**", "/1.1/**"]

    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard let route = TwitterSandbox.Route(path: request.path) else { return nil }
        guard request.method == "GET" else {
            return route.isV11
                ? TwitterSandboxV11.error(404, code: 34, message: "Sorry, that page does not exist.", context: context, route: route)
                : TwitterSandbox.problem(
                    405, title: "Method Not Allowed", detail: "\(request.method) is not supported here", route: route, context: context)
        }
        switch route {
        case .userByUsername(let username): return TwitterSandbox.userByUsername(username, request: request, context: context)
        case .userTweets(let id): return TwitterSandbox.userTweets(id, request: request, context: context)
        case .userTimelineV11: return TwitterSandboxV11.userTimeline(request, context: context)
        }
    }

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        TwitterSandbox.fault(status: status, request: request, context: context)
    }
}

/// An answer that ends a sandbox request early (a parameter error).
struct SandboxAnswer: Error {
    let response: SandboxResponse
}

public enum TwitterSandbox {
    /// X's rule for handles: 1–15 ASCII letters, digits or underscores.
    static func isValidUsername(_ handle: String) -> Bool {
        (1...15).contains(handle.count) && handle.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    // MARK: Data

    /// The bundled accounts.
    static let users: [JSONValue] = (try? JSONParser().parse(TwitterSampleData.usersJSON))?.array ?? []
    /// The bundled posts and the chime account's, newest first.
    static let tweets: [JSONValue] = (((try? JSONParser().parse(TwitterSampleData.tweetsJSON))?.array ?? []) + TwitterChime.posts)
        .sorted { numericID($0) > numericID($1) }

    static func numericID(_ value: JSONValue) -> UInt64 { value["id"]?.string.flatMap { UInt64($0) } ?? 0 }

    static func user(username: String) -> JSONValue? {
        users.first { $0["username"]?.string?.lowercased() == username.lowercased() }
    }

    static func user(id: String) -> JSONValue? { users.first { $0["id"]?.string == id } }

    static func tweet(id: String) -> JSONValue? { tweets.first { $0["id"]?.string == id } }

    /// A user's posts, newest first.
    static func timeline(userID: String) -> [JSONValue] { tweets.filter { $0["author_id"]?.string == userID } }

    static func isReply(_ tweet: JSONValue) -> Bool {
        tweet["referenced_tweets"]?.array?.contains { $0["type"]?.string == "replied_to" } ?? false
    }

    static func isRetweet(_ tweet: JSONValue) -> Bool {
        tweet["referenced_tweets"]?.array?.contains { $0["type"]?.string == "retweeted" } ?? false
    }

    // MARK: Routes

    enum Route: Equatable {
        case userByUsername(String)
        case userTweets(String)
        case userTimelineV11

        init?(path: String) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            switch parts.count {
            case 5 where parts[0] == "2" && parts[1] == "users" && parts[2] == "by" && parts[3] == "username":
                self = .userByUsername(parts[4].removingPercentEncoding ?? parts[4])
            case 4 where parts[0] == "2" && parts[1] == "users" && parts[3] == "tweets":
                self = .userTweets(parts[2])
            case 3 where parts == ["1.1", "statuses", "user_timeline.json"]:
                self = .userTimelineV11
            default:
                return nil
            }
        }

        var isV11: Bool { self == .userTimelineV11 }

        /// Requests allowed per 15 minutes for an app (x-rate-limit-limit).
        var windowLimit: Int {
            switch self {
            case .userByUsername: return 300
            case .userTweets: return 10_000
            case .userTimelineV11: return 900
            }
        }
    }

    // MARK: Headers and errors

    /// X's rate-limit windows are 15 minutes long.
    static let window: TimeInterval = 900

    /// The end of the current 15-minute window, in epoch seconds.
    static func windowReset(_ now: Date) -> Int64 {
        (Int64(now.timeIntervalSince1970) / Int64(window) + 1) * Int64(window)
    }

    /// `x-rate-limit-*` headers (and v1.1's `x-app-rate-limit-*` on user_timeline). The sandbox keeps no count,
    /// so every request seems to be the window's first.
    static func rateLimitHeaders(_ route: Route, now: Date, exhausted: Bool = false, reset: Int64? = nil) -> HTTPHeaders {
        let resetText = String(reset ?? windowReset(now))
        var headers: HTTPHeaders = [
            "x-rate-limit-limit": String(route.windowLimit),
            "x-rate-limit-remaining": String(exhausted ? 0 : route.windowLimit - 1),
            "x-rate-limit-reset": resetText,
        ]
        if route.isV11 {
            headers["x-app-rate-limit-limit"] = "100000"
            headers["x-app-rate-limit-remaining"] = exhausted ? "0" : "99999"
            headers["x-app-rate-limit-reset"] = String(Int64(now.timeIntervalSince1970) / 86_400 * 86_400 + 86_400)
        }
        return headers
    }

    static func json(_ value: JSONValue, status: Int = 200, route: Route, context: SandboxContext) -> SandboxResponse {
        var headers = rateLimitHeaders(route, now: context.now)
        headers["Content-Type"] = route.isV11 ? "application/json;charset=utf-8" : "application/json; charset=utf-8"
        return .json(value, status: status, headers: headers)
    }

    static let problemPrefix = "https://api.twitter.com/2/problems/"

    /// A v2 problem object, `{title, detail, type, status}`, as `application/problem+json` (RFC 7807), the
    /// content type the OpenAPI document gives problems.
    static func problem(_ status: Int, title: String, detail: String, type: String = "about:blank", route: Route, context: SandboxContext) -> SandboxResponse {
        problemResponse(["title": .string(title), "detail": .string(detail), "type": .string(type), "status": .int(status)], status: status, route: route, context: context)
    }

    static func problemResponse(_ body: JSONValue, status: Int, route: Route, context: SandboxContext, exhausted: Bool = false, reset: Int64? = nil) -> SandboxResponse {
        var headers = rateLimitHeaders(route, now: context.now, exhausted: exhausted, reset: reset)
        headers["Content-Type"] = "application/problem+json"
        return .json(body, status: status, headers: headers)
    }

    /// v2's 400 for a bad parameter: an `invalid-request` problem whose `errors[].parameters` names it.
    static func invalidRequest(_ parameter: String, value: String, message: String, route: Route, context: SandboxContext) -> SandboxAnswer {
        SandboxAnswer(response: problemResponse([
            "errors": [["parameters": .object(JSONObject([.init(parameter, [.string(value)])])), "message": .string(message)]],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": .string(problemPrefix + "invalid-request"),
            "status": 400,
        ], status: 400, route: route, context: context))
    }

    /// v2's HTTP 200 with only `errors[]`, for a user that cannot be shown.
    /// `section` is required by `ResourceUnauthorizedProblem` (where the refused resource would have been).
    static func userErrors(
        value: String, parameter: String, detail: String, title: String, type: String, section: String? = nil, route: Route, context: SandboxContext
    ) -> SandboxResponse {
        var error = JSONObject()
        error["value"] = .string(value)
        error["detail"] = .string(detail)
        error["title"] = .string(title)
        error["resource_type"] = "user"
        error["parameter"] = .string(parameter)
        if let section { error["section"] = .string(section) }
        error["resource_id"] = .string(value)
        error["type"] = .string(problemPrefix + type)
        return json(["errors": [.object(error)]], route: route, context: context)
    }

    static func authorized(_ request: SandboxRequest) -> Bool {
        request.bearerToken == TwitterSandbox.sandboxEnvironment["X_BEARER_TOKEN"]
    }

    static func unauthorized(_ route: Route, context: SandboxContext) -> SandboxResponse {
        route.isV11
            ? TwitterSandboxV11.error(401, code: 89, message: "Invalid or expired token.", context: context, route: route)
            : problem(401, title: "Unauthorized", detail: "Unauthorized", route: route, context: context)
    }

    /// The answer to an injected fault, in the shape of the API version the path belongs to.
    /// `nil` for paths that are not X's, so another provider's shape answers there.
    static func fault(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard let route = Route(path: request.path) else { return nil }
        if status == 401 { return unauthorized(route, context: context) }
        if status == 429 {
            let reset = context.settings["twitter.rate-limit-reset"].flatMap(Int64.init).map { Int64(context.now.timeIntervalSince1970) + $0 }
            if route.isV11 {
                var headers = rateLimitHeaders(route, now: context.now, exhausted: true, reset: reset)
                headers["Content-Type"] = "application/json;charset=utf-8"
                return .json(["errors": [["code": 88, "message": "Rate limit exceeded"]]], status: 429, headers: headers)
            }
            // X has also answered 429 with a plain-text "Rate limit exceeded" (twitter.md), but the OpenAPI
            // document allows only JSON bodies, so the sandbox sends the problem (the client reads both).
            return problemResponse(
                ["title": "Too Many Requests", "detail": "Too Many Requests", "type": "about:blank", "status": 429],
                status: 429, route: route, context: context, exhausted: true, reset: reset)
        }
        if route.isV11 {
            return status == 503
                ? TwitterSandboxV11.error(503, code: 130, message: "Over capacity", context: context, route: route)
                : TwitterSandboxV11.error(status, code: 131, message: "Internal error", context: context, route: route)
        }
        let title = reasonPhrases[status] ?? "Error"
        return problem(status, title: title, detail: title, route: route, context: context)
    }

    static let reasonPhrases = [
        400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    // MARK: API v2

    static let usernamePattern = "^[A-Za-z0-9_]{1,15}$"

    /// `GET /2/users/by/username/:username`.
    static func userByUsername(_ username: String, request: SandboxRequest, context: SandboxContext) -> SandboxResponse {
        let route = Route.userByUsername(username)
        guard authorized(request) else { return unauthorized(route, context: context) }
        do {
            guard isValidUsername(username) else {
                throw invalidRequest(
                    "username", value: username,
                    message: "The `username` query parameter value [\(username)] does not match \(usernamePattern)", route: route, context: context)
            }
            let parameters = TwitterParameters(request: request, route: route, context: context)
            let userFields = try parameters.list("user.fields", allowed: TwitterSpec.userFields)
            let expansions = try parameters.list("expansions", allowed: TwitterSpec.userExpansions)
            let tweetFields = try parameters.list("tweet.fields", allowed: TwitterSpec.tweetFields)
            guard let user = user(username: username) else {
                var error = JSONObject()
                error["value"] = .string(username)
                error["detail"] = .string("Could not find user with username: [\(username)].")
                error["title"] = "Not Found Error"
                error["resource_type"] = "user"
                error["parameter"] = "username"
                error["resource_id"] = .string(username)
                error["type"] = .string(problemPrefix + "resource-not-found")
                return json(["errors": [.object(error)]], route: route, context: context)
            }
            var body: JSONObject = ["data": project(user: user, fields: userFields)]
            if expansions.contains("pinned_tweet_id"), let pinned = user["pinned_tweet_id"]?.string.flatMap(tweet(id:)) {
                body["includes"] = ["tweets": [project(tweet: pinned, fields: tweetFields)]]
            }
            return json(.object(body), route: route, context: context)
        } catch let answer as SandboxAnswer {
            return answer.response
        } catch {
            return problem(500, title: "Internal Server Error", detail: "\(error)", route: route, context: context)
        }
    }

    /// `GET /2/users/:id/tweets`.
    static func userTweets(_ id: String, request: SandboxRequest, context: SandboxContext) -> SandboxResponse {
        let route = Route.userTweets(id)
        guard authorized(request) else { return unauthorized(route, context: context) }
        do {
            guard TwitterSpec.isID(id) else {
                throw invalidRequest("id", value: id, message: "The `id` query parameter value [\(id)] does not match \(TwitterSpec.idPattern)", route: route, context: context)
            }
            let parameters = TwitterParameters(request: request, route: route, context: context)
            let filter = TimelineFilter(
                sinceID: try parameters.id("since_id"), untilID: try parameters.id("until_id"),
                startTime: try parameters.dateTime("start_time"), endTime: try parameters.dateTime("end_time"))
            let maxResults = try parameters.integer("max_results", in: 5...100) ?? 10
            let token = try parameters.pageToken("pagination_token")
            let excluded = try parameters.list("exclude", allowed: TwitterSpec.excludable)
            let tweetFields = try parameters.list("tweet.fields", allowed: TwitterSpec.tweetFields)
            let expansions = try parameters.list("expansions", allowed: TwitterSpec.tweetExpansions)
            _ = try parameters.list("media.fields", allowed: TwitterSpec.mediaFields)
            _ = try parameters.list("poll.fields", allowed: TwitterSpec.pollFields)
            let userFields = try parameters.list("user.fields", allowed: TwitterSpec.userFields)
            _ = try parameters.list("place.fields", allowed: TwitterSpec.placeFields)
            guard let user = user(id: id) else {
                return userErrors(
                    value: id, parameter: "id", detail: "Could not find user with id: [\(id)].", title: "Not Found Error",
                    type: "resource-not-found", route: route, context: context)
            }
            if user["protected"]?.bool == true {
                return userErrors(
                    value: id, parameter: "id", detail: "Sorry, you are not authorized to see the user with id: [\(id)].",
                    title: "Authorization Error", type: "not-authorized-for-resource", section: "data", route: route, context: context)
            }
            let timeline = timeline(userID: id).filter(filter.admits)
            let window = pageWindow(in: timeline, token: token, size: maxResults)
            // As on X, max_results counts posts before replies and retweets are taken out.
            let shown = timeline[window].filter { tweet in
                !(excluded.contains("replies") && isReply(tweet)) && !(excluded.contains("retweets") && isRetweet(tweet))
            }
            var body = JSONObject()
            if !shown.isEmpty {
                body["data"] = .array(shown.map { project(tweet: $0, fields: tweetFields) })
                var includes = JSONObject()
                let referenced = orderedUnique(shown.flatMap { $0["referenced_tweets"]?.array ?? [] }.compactMap { $0["id"]?.string })
                    .compactMap(tweet(id:))
                let users = orderedUnique(expandedUserIDs(shown, referenced: referenced, expansions: expansions)).compactMap { self.user(id: $0) }
                if !users.isEmpty { includes["users"] = .array(users.map { project(user: $0, fields: userFields) }) }
                if expansions.contains("referenced_tweets.id"), !referenced.isEmpty {
                    includes["tweets"] = .array(referenced.map { project(tweet: $0, fields: tweetFields) })
                }
                if !includes.isEmpty { body["includes"] = .object(includes) }
            }
            var meta = JSONObject()
            if let newest = shown.first?["id"], let oldest = shown.last?["id"] {
                meta["newest_id"] = newest
                meta["oldest_id"] = oldest
            }
            meta["result_count"] = .int(shown.count)
            if window.upperBound < timeline.count, let anchor = timeline[window.upperBound]["id"]?.string.flatMap({ UInt64($0) }) {
                meta["next_token"] = .string(PageToken.older(than: anchor).text)
            }
            if token != nil, window.lowerBound > 0, let anchor = timeline[window.lowerBound]["id"]?.string.flatMap({ UInt64($0) }) {
                meta["previous_token"] = .string(PageToken.newer(than: anchor).text)
            }
            body["meta"] = .object(meta)
            return json(.object(body), route: route, context: context)
        } catch let answer as SandboxAnswer {
            return answer.response
        } catch {
            return problem(500, title: "Internal Server Error", detail: "\(error)", route: route, context: context)
        }
    }

    /// The positions of the page a token points at in a newest-first timeline.
    static func pageWindow(in timeline: [JSONValue], token: PageToken?, size: Int) -> Range<Int> {
        switch token {
        case nil:
            return 0..<min(size, timeline.count)
        case .older(let anchor)?:
            // The page starts at the anchor (the first post not yet shown).
            let start = timeline.firstIndex { numericID($0) <= anchor } ?? timeline.count
            return start..<min(timeline.count, start + size)
        case .newer(let anchor)?:
            // The page ends just before the anchor (the first post of the page the token came from).
            let end = timeline.firstIndex { numericID($0) <= anchor } ?? timeline.count
            return max(0, end - size)..<end
        }
    }

    /// A pagination token: which way to go from which post. Opaque to clients.
    enum PageToken: Equatable {
        /// Posts at or below this id.
        case older(than: UInt64)
        /// The page of posts just above this id.
        case newer(than: UInt64)

        var text: String {
            switch self {
            case .older(let anchor): return "7n" + String(anchor, radix: 36)
            case .newer(let anchor): return "7p" + String(anchor, radix: 36)
            }
        }

        init?(_ text: String) {
            guard text.count > 2, text.hasPrefix("7"), let anchor = UInt64(text.dropFirst(2), radix: 36) else { return nil }
            switch text.dropFirst().first {
            case "n": self = .older(than: anchor)
            case "p": self = .newer(than: anchor)
            default: return nil
            }
        }
    }

    /// The accounts the user expansions ask for, in the order X lists them.
    static func expandedUserIDs(_ shown: [JSONValue], referenced: [JSONValue], expansions: [String]) -> [String] {
        var ids: [String] = []
        if expansions.contains("author_id") { ids += shown.compactMap { $0["author_id"]?.string } }
        if expansions.contains("in_reply_to_user_id") { ids += shown.compactMap { $0["in_reply_to_user_id"]?.string } }
        if expansions.contains("entities.mentions.username") {
            ids += shown.flatMap { $0["entities"]?["mentions"]?.array ?? [] }
                .compactMap { $0["username"]?.string.flatMap(user(username:))?["id"]?.string }
        }
        if expansions.contains("referenced_tweets.id.author_id") { ids += referenced.compactMap { $0["author_id"]?.string } }
        return ids
    }

    /// `since_id`/`until_id` (exclusive) and `start_time` (inclusive)/`end_time` (exclusive); an id bound
    /// takes precedence over the time bound on the same side, as the OpenAPI document says.
    struct TimelineFilter {
        var sinceID: UInt64?
        var untilID: UInt64?
        var startTime: Date?
        var endTime: Date?

        func admits(_ tweet: JSONValue) -> Bool {
            let id = TwitterSandbox.numericID(tweet)
            let created = tweet["created_at"]?.string.flatMap(ISO8601.date(from:))
            if let sinceID { guard id > sinceID else { return false } } else if let startTime {
                guard let created, created >= startTime else { return false }
            }
            if let untilID { guard id < untilID else { return false } } else if let endTime {
                guard let created, created < endTime else { return false }
            }
            return true
        }
    }

    /// A post with the default fields (`id`, `text`, `edit_history_tweet_ids`) and the requested ones.
    static func project(tweet: JSONValue, fields: [String]) -> JSONValue {
        let keep = Set(fields).union(["id", "text", "edit_history_tweet_ids"])
        return .object(JSONObject((tweet.object?.members ?? []).filter { keep.contains($0.key) }))
    }

    /// An account with the default fields (`id`, `name`, `username`) and the requested ones.
    static func project(user: JSONValue, fields: [String]) -> JSONValue {
        let keep = Set(fields).union(["id", "name", "username"])
        return .object(JSONObject((user.object?.members ?? []).filter { keep.contains($0.key) }))
    }

    static func orderedUnique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }
}
