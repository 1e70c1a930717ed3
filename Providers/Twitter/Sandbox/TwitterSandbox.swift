public import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
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
public enum TwitterSandbox: RoutedSandbox {
    public static let providerName = "twitter"

    /// The credentials the sandbox accepts.
    public static let sandboxEnvironment = ["X_BEARER_TOKEN": "sandbox-x-bearer-token"]

    /// X's users (v2) and v1.1, at the sandbox's root: beside Meetup's `/2/groups`, not over it.
    public static let sandboxPaths: [PathPattern] = ["/2/users/**", "/1.1/**"]

    public static let routes = SandboxRoutes([
        route(.userByUsername) { request, _, segments in try userByUsername(segments[4].removingPercentEncoding ?? segments[4], request) },
        route(.userTweets) { request, _, segments in try userTweets(segments[2], request) },
        route(.userTimelineV11) { request, context, _ in TwitterSandboxV11.userTimeline(request, context: context) },
    ])

    /// Other methods on X's paths: v2 answers a 405 problem, v1.1 its "page does not exist" (code 34).
    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard request.method != "GET", let endpoint = Endpoint.of(request.path) else {
            return routes.respond(to: request, context: context)
        }
        let answer = endpoint.isV11
            ? TwitterSandboxV11.error(404, code: 34, message: "Sorry, that page does not exist.")
            : problem(405, title: "Method Not Allowed", detail: "\(request.method) is not supported here")
        return withRateLimit(answer, endpoint, context: context)
    }

    /// The answer to an injected fault, in the shape of the API version the path belongs to.
    /// `nil` for paths that are not X's endpoints, so the generic body answers there.
    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard let endpoint = Endpoint.of(request.path) else { return nil }
        if status == 429 {
            let reset = context.settings["twitter.rate-limit-reset"].flatMap(Int64.init).map { Int64(context.now.timeIntervalSince1970) + $0 }
            // X has also answered 429 with a plain-text "Rate limit exceeded" (twitter.md), but the OpenAPI
            // document allows only JSON bodies, so the sandbox sends the problem (the client reads both).
            let answer = endpoint.isV11
                ? TwitterSandboxV11.error(429, code: 88, message: "Rate limit exceeded")
                : problem(429, title: "Too Many Requests", detail: "Too Many Requests")
            return withRateLimit(answer, endpoint, context: context, exhausted: true, reset: reset)
        }
        let answer: SandboxResponse
        switch (status, endpoint.isV11) {
        case (401, _): answer = unauthorized(endpoint)
        case (503, true): answer = TwitterSandboxV11.error(503, code: 130, message: "Over capacity")
        case (_, true): answer = TwitterSandboxV11.error(status, code: 131, message: "Internal error")
        default:
            let title = [400, 403, 404, 500, 502, 503, 504].contains(status) ? HTTPStatus.reason(status) : "Error"
            answer = problem(status, title: title, detail: title)
        }
        return withRateLimit(answer, endpoint, context: context)
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

    /// Whether `tweet` references another as `type` (`replied_to`, `retweeted`, `quoted`).
    static func references(_ tweet: JSONValue, as type: String) -> Bool {
        tweet["referenced_tweets"]?.array?.contains { $0["type"]?.string == type } ?? false
    }

    // MARK: Endpoints, headers and errors

    /// One emulated endpoint: its paths and its requests allowed per 15 minutes for an app (`x-rate-limit-limit`).
    struct Endpoint: Equatable {
        var pattern: PathPattern
        var limit: Int

        static let userByUsername = Endpoint(pattern: "/2/users/by/username/*", limit: 300)
        static let userTweets = Endpoint(pattern: "/2/users/*/tweets", limit: 10_000)
        static let userTimelineV11 = Endpoint(pattern: "/1.1/statuses/user_timeline.json", limit: 900)

        /// The endpoint whose paths include `path`.
        static func of(_ path: String) -> Endpoint? { [userByUsername, userTweets, userTimelineV11].first { $0.pattern.matches(path) } }

        var isV11: Bool { self == .userTimelineV11 }
    }

    /// A `GET` route of `endpoint`: the sandbox's token is required first, and every answer carries X's
    /// rate-limit headers.
    static func route(_ endpoint: Endpoint, _ handler: @escaping SandboxRoute.Handler) -> SandboxRoute {
        SandboxRoute("GET", endpoint.pattern) { request, context, segments in
            var answer: SandboxResponse
            do {
                try request.requireBearer(sandboxEnvironment["X_BEARER_TOKEN"] ?? "") { _ in unauthorized(endpoint) }
                answer = try handler(request, context, segments)
            } catch let exit as SandboxExit {
                answer = exit.response
            }
            return withRateLimit(answer, endpoint, context: context)
        }
    }

    /// X's rate-limit windows are 15 minutes long.
    static let window: TimeInterval = 900

    /// The end of the current 15-minute window, in epoch seconds.
    static func windowReset(_ now: Date) -> Int64 {
        (Int64(now.timeIntervalSince1970) / Int64(window) + 1) * Int64(window)
    }

    /// `answer` with the `x-rate-limit-*` headers first (and v1.1's `x-app-rate-limit-*` on user_timeline). The
    /// sandbox keeps no count, so every request seems to be the window's first.
    static func withRateLimit(
        _ answer: SandboxResponse, _ endpoint: Endpoint, context: SandboxContext, exhausted: Bool = false, reset: Int64? = nil
    ) -> SandboxResponse {
        let now = context.now
        var headers: HTTPHeaders = [
            "x-rate-limit-limit": String(endpoint.limit),
            "x-rate-limit-remaining": String(exhausted ? 0 : endpoint.limit - 1),
            "x-rate-limit-reset": String(reset ?? windowReset(now)),
        ]
        if endpoint.isV11 {
            headers["x-app-rate-limit-limit"] = "100000"
            headers["x-app-rate-limit-remaining"] = exhausted ? "0" : "99999"
            headers["x-app-rate-limit-reset"] = String(Int64(now.timeIntervalSince1970) / 86_400 * 86_400 + 86_400)
        }
        var response = answer
        response.headers = HTTPHeaders(headers.fields + answer.headers.fields)
        return response
    }

    static let problemPrefix = "https://api.twitter.com/2/problems/"

    /// A v2 problem object, `{title, detail, type, status}`, as `application/problem+json` (RFC 7807), the
    /// content type the OpenAPI document gives problems.
    static func problem(_ status: Int, title: String, detail: String) -> SandboxResponse {
        problemResponse(["title": .string(title), "detail": .string(detail), "type": "about:blank", "status": .int(status)], status: status)
    }

    static func problemResponse(_ body: JSONValue, status: Int) -> SandboxResponse {
        .json(body, status: status, headers: ["Content-Type": "application/problem+json"])
    }

    /// v2's 400 for a bad parameter: an `invalid-request` problem whose `errors[].parameters` names it, saying
    /// "The `parameter` query parameter value [value] `complaint`".
    static func invalidRequest(_ parameter: String, _ value: String, _ complaint: String) -> SandboxExit {
        let message = "The `\(parameter)` query parameter value [\(value)] \(complaint)"
        return SandboxExit(problemResponse([
            "errors": [["parameters": .object(JSONObject([.init(parameter, [.string(value)])])), "message": .string(message)]],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": .string(problemPrefix + "invalid-request"),
            "status": 400,
        ], status: 400))
    }

    /// v2's HTTP 200 with only `errors[]`, for a user that cannot be shown.
    /// `section` is required by `ResourceUnauthorizedProblem` (where the refused resource would have been).
    static func userErrors(
        value: String, parameter: String, detail: String, title: String, type: String, section: String? = nil
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
        return .json(["errors": [.object(error)]])
    }

    static func unauthorized(_ endpoint: Endpoint) -> SandboxResponse {
        endpoint.isV11
            ? TwitterSandboxV11.error(401, code: 89, message: "Invalid or expired token.")
            : problem(401, title: "Unauthorized", detail: "Unauthorized")
    }

    // MARK: API v2

    /// `GET /2/users/by/username/:username`.
    static func userByUsername(_ username: String, _ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        guard username.wholeMatch(of: /[A-Za-z0-9_]{1,15}/.matchingSemantics(.unicodeScalar)) != nil else {
            throw invalidRequest("username", username, "does not match ^[A-Za-z0-9_]{1,15}$")
        }
        let userFields = try request.list("user.fields", allowed: TwitterSpec.userFields)
        let expansions = try request.list("expansions", allowed: TwitterSpec.userExpansions)
        let tweetFields = try request.list("tweet.fields", allowed: TwitterSpec.tweetFields)
        guard let user = user(username: username) else {
            return userErrors(
                value: username, parameter: "username", detail: "Could not find user with username: [\(username)].",
                title: "Not Found Error", type: "resource-not-found")
        }
        var body: JSONObject = ["data": project(user, fields: userFields, defaults: TwitterSpec.userDefaults)]
        if expansions.contains("pinned_tweet_id"), let pinned = user["pinned_tweet_id"]?.string.flatMap(tweet(id:)) {
            body["includes"] = ["tweets": [project(pinned, fields: tweetFields, defaults: TwitterSpec.tweetDefaults)]]
        }
        return .json(.object(body))
    }

    /// `GET /2/users/:id/tweets`.
    static func userTweets(_ id: String, _ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        guard TwitterSpec.isID(id) else {
            throw invalidRequest("id", id, "does not match \(TwitterSpec.idPattern)")
        }
        let idRule = "does not match \(TwitterSpec.idPattern)"
        let dateRule = "is not an RFC 3339 date-time, e.g. 2021-02-01T18:40:40Z"
        let filter = TimelineFilter(
            sinceID: try request.checked("since_id", idRule, TwitterSpec.id),
            untilID: try request.checked("until_id", idRule, TwitterSpec.id),
            startTime: try request.checked("start_time", dateRule, TwitterSpec.rfc3339),
            endTime: try request.checked("end_time", dateRule, TwitterSpec.rfc3339))
        let maxResults = try request.checked("max_results", "is not between 5 and 100") { text in
            Int(text).flatMap { (5...100).contains($0) ? $0 : nil }
        }
        let token = try request.checked("pagination_token", "is not valid", PageToken.init)
        let excluded = try request.list("exclude", allowed: TwitterSpec.excludable)
        let tweetFields = try request.list("tweet.fields", allowed: TwitterSpec.tweetFields)
        let expansions = try request.list("expansions", allowed: TwitterSpec.tweetExpansions)
        _ = try request.list("media.fields", allowed: TwitterSpec.mediaFields)
        _ = try request.list("poll.fields", allowed: TwitterSpec.pollFields)
        let userFields = try request.list("user.fields", allowed: TwitterSpec.userFields)
        _ = try request.list("place.fields", allowed: TwitterSpec.placeFields)
        guard let user = user(id: id) else {
            return userErrors(
                value: id, parameter: "id", detail: "Could not find user with id: [\(id)].", title: "Not Found Error", type: "resource-not-found")
        }
        if user["protected"]?.bool == true {
            return userErrors(
                value: id, parameter: "id", detail: "Sorry, you are not authorized to see the user with id: [\(id)].",
                title: "Authorization Error", type: "not-authorized-for-resource", section: "data")
        }
        let posts = timeline(userID: id)
        // The sandbox only hands out tokens that name one of the user's posts; any other token (`7n0`, below the
        // oldest post) is refused as X refuses a token it did not issue.
        if let token, !posts.contains(where: { numericID($0) == token.anchor }) {
            throw invalidRequest("pagination_token", request.queryValue("pagination_token") ?? token.text, "is not valid")
        }
        let timeline = posts.filter(filter.admits)
        let window = pageWindow(in: timeline, token: token, size: maxResults ?? 10)
        // As on X, max_results counts posts before replies and retweets are taken out.
        let shown = timeline[window].filter { tweet in
            !(excluded.contains("replies") && references(tweet, as: "replied_to"))
                && !(excluded.contains("retweets") && references(tweet, as: "retweeted"))
        }
        var body = JSONObject()
        if !shown.isEmpty {
            body["data"] = .array(shown.map { project($0, fields: tweetFields, defaults: TwitterSpec.tweetDefaults) })
            var includes = JSONObject()
            let referenced = orderedUnique(shown.flatMap { $0["referenced_tweets"]?.array ?? [] }.compactMap { $0["id"]?.string })
                .compactMap(tweet(id:))
            let users = orderedUnique(expandedUserIDs(shown, referenced: referenced, expansions: expansions)).compactMap { self.user(id: $0) }
            if !users.isEmpty {
                includes["users"] = .array(users.map { project($0, fields: userFields, defaults: TwitterSpec.userDefaults) })
            }
            if expansions.contains("referenced_tweets.id"), !referenced.isEmpty {
                includes["tweets"] = .array(referenced.map { project($0, fields: tweetFields, defaults: TwitterSpec.tweetDefaults) })
            }
            if !includes.isEmpty { body["includes"] = .object(includes) }
        }
        var meta = JSONObject()
        if let newest = shown.first?["id"], let oldest = shown.last?["id"] {
            meta["newest_id"] = newest
            meta["oldest_id"] = oldest
        }
        meta["result_count"] = .int(shown.count)
        if window.upperBound < timeline.count {
            meta["next_token"] = .string(PageToken(newer: false, anchor: numericID(timeline[window.upperBound])).text)
        }
        if let token, window.lowerBound > 0 {
            // A filter can leave the anchor below every post shown (the window is then empty, at the end): the
            // page before it is the one above the token's own anchor.
            let anchor = window.lowerBound < timeline.count ? numericID(timeline[window.lowerBound]) : token.anchor
            meta["previous_token"] = .string(PageToken(newer: true, anchor: anchor).text)
        }
        body["meta"] = .object(meta)
        return .json(.object(body))
    }

    /// The positions of the page a token points at in a newest-first timeline.
    static func pageWindow(in timeline: [JSONValue], token: PageToken?, size: Int) -> Range<Int> {
        guard let token else { return 0..<min(size, timeline.count) }
        // An older page starts at the anchor (the first post not yet shown); a newer one ends just before it
        // (the anchor is then the first post of the page the token came from).
        let anchor = timeline.firstIndex { numericID($0) <= token.anchor } ?? timeline.count
        return token.newer ? max(0, anchor - size)..<anchor : anchor..<min(timeline.count, anchor + size)
    }

    /// A pagination token: which way to go from which post. Opaque to clients.
    struct PageToken: Equatable {
        /// The page of posts just above the anchor, rather than the posts at or below it.
        var newer: Bool
        var anchor: UInt64

        var text: String { (newer ? "7p" : "7n") + String(anchor, radix: 36) }

        init(newer: Bool, anchor: UInt64) {
            self.newer = newer
            self.anchor = anchor
        }

        init?(_ text: String) {
            guard text.count > 2, text.hasPrefix("7n") || text.hasPrefix("7p"), let anchor = UInt64(text.dropFirst(2), radix: 36) else {
                return nil
            }
            self.init(newer: text.hasPrefix("7p"), anchor: anchor)
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

    /// A post or an account with its default fields and the requested ones.
    static func project(_ value: JSONValue, fields: [String], defaults: Set<String>) -> JSONValue {
        let keep = defaults.union(fields)
        return .object(JSONObject((value.object?.members ?? []).filter { keep.contains($0.key) }))
    }

    static func orderedUnique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }
}
