public import AggregateCore
public import AggregateJSON
public import Foundation

/// A user's most recent posts on X (formerly Twitter), from API v2 (the default) or the legacy v1.1
/// `statuses/user_timeline` that the original tutorial used.
public struct TwitterProvider: Provider, ProviderTextView {
    static let username = ParameterKey<String>(
        "username", style: .positional, required: true, valueName: "USERNAME", freeText: false,
        help: "The account's handle: 1–15 letters, digits or underscores; a leading @ is accepted.")
    static let exclude = ParameterKey<[String]>(
        "exclude", type: .choiceList(["replies", "retweets"]), valueName: "KINDS",
        help: "Leave out replies and/or retweets (the API filters after counting, so pages can come back short).")
    static let api = ParameterKey<TwitterAPIVersion>(
        "api", default: "v2", valueName: "VERSION",
        help: "Which API to call: v2 (current; looks the user's id up first) or v1.1 (legacy; most access levels now get error 453).")

    /// The descriptor's name, stated without making the descriptor.
    public static let providerName = "twitter"

    public static let descriptor: ProviderDescriptor = {
        var descriptor = ProviderDescriptor(
            name: "twitter",
            displayName: "Twitter/X",
            summary: "A user's most recent posts on X (Twitter), from API v2 or the legacy API v1.1.",
            docsURL: "https://docs.x.com/x-api/posts/timelines/introduction",
            defaultBaseURL: "https://api.x.com",
            auth: [
                AuthVariable("X_BEARER_TOKEN", usage: "App-only bearer token, sent as 'Authorization: Bearer' (both API versions).", sent: .bearer, required: true),
                AuthVariable(
                    "TWITTER_BEARER_TOKEN", usage: "The same token under its older name; used when X_BEARER_TOKEN is not set.",
                    sent: .bearer, required: true, aliasOfPrevious: true),
            ],
            authStyle: "OAuth 2.0 app-only bearer token (Authorization: Bearer)",
            paginationStyle: "v2: meta.next_token sent back as pagination_token; v1.1: max_id = the smallest id seen minus one",
            options: [api.declaration],
            operations: [
                ProviderOperation(
                    name: "timeline", summary: "A user's most recent posts, newest first (the API serves the last 3,200 at most).",
                    itemKind: "tweet", declaring: [username, exclude],
                    // v2: the user's id first, then pages of up to 100 (v1.1 pages hold 200 and need no lookup).
                    cost: RequestCost(pageSize: 100, lookups: 1))
            ],
            cacheFreshness: CacheFreshness(defaultSeconds: 60, endpoints: [.init("/2/users/by/username", seconds: 86_400)]),
            examples: [
                ProviderExample(["twitter", "orbitalnotes", "--limit", "5"], "The last five posts of @orbitalnotes (the original tutorial's query)."),
                ProviderExample(
                    ["twitter", "timeline", "@matcha_mori", "--exclude", "replies,retweets", "--limit", "6"],
                    "Six posts of @matcha_mori without replies or retweets: Japanese text, emoji and expanded links."),
                ProviderExample(
                    ["twitter", "swiftbytes", "--api", "v1.1", "--limit", "8"],
                    "The same kind of timeline through the legacy API v1.1 (dates like 'Wed Nov 26 16:05:00 +0000 2025')."),
            ])
        descriptor.missingCredentialsNoun = "API token"
        // Per endpoint and 15-minute window, app-only limits (the responses' x-rate-limit-* headers refine them).
        descriptor.rateBudgets = [
            RateBudget("users-by-username", requests: 300, per: 900, paths: ["/2/users/by/username/*"]),
            RateBudget("users-tweets", requests: 1500, per: 900, paths: ["/2/users/*/tweets"]),
            RateBudget("user-timeline", requests: 900, per: 900, paths: ["/1.1/statuses/user_timeline.json"]),
        ]
        // Rate-limit resets are told in the user's time zone.
        descriptor.settingVariables = ["TZ"]
        descriptor.metrics = ["likes", "retweets", "replies", "quotes", "impressions"]
        return descriptor
    }()

    public init() {}

    /// What a run knows: the API, the handle, and (v2) the account as looked up.
    public struct Plan: Sendable {
        var api: TwitterAPIVersion
        var username: String
        var owner: TwitterAccount?
    }

    public func plan(for query: Query, credentials: Credentials) throws -> Plan {
        // Usage errors come first: a malformed username is wrong whatever the environment holds.
        let text = query[Self.username] ?? ""
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let handle = trimmed.hasPrefix("@") ? String(trimmed.dropFirst()) : trimmed
        // X's rule for handles: 1–15 ASCII letters, digits or underscores.
        guard handle.wholeMatch(of: /[A-Za-z0-9_]{1,15}/.matchingSemantics(.unicodeScalar)) != nil else {
            throw AggregateError(.usage, "'\(text)' is not a valid username: use 1–15 letters, digits or underscores (a leading @ is fine)")
        }
        return Plan(api: query[Self.api] ?? .v2, username: handle)
    }

    public func echo(_ plan: Plan, into parameters: inout JSONObject) { parameters[Self.username.name] = .string(plan.username) }

    /// Looks the user's id up once per run (API v2 addresses timelines by id). The answer is kept in the run's
    /// cache, so several invocations for the same user (e.g. in `compare`) ask only once.
    public func resolve(_ plan: inout Plan, for query: Query, using client: FetchClient) async throws {
        guard plan.api == .v2 else { return }
        let handle = plan.username
        let lookup = HTTPRequestSpec(url: query.baseURL.appendingEndpoint("/2/users/by/username/\(handle)"))
        let key = "twitter.v2.user-by-username \(query.baseURL.absoluteString) \(handle.lowercased())"
        let user = try await client.cache.value(for: key) {
            let response = try await client.send(lookup)
            return try TwitterV2.user(from: response.json(), requested: handle).jsonValue
        }
        guard let account = TwitterAccount(json: user) else {
            throw AggregateError(.decoding, "the user lookup for @\(handle) gave no id")
        }
        plan.owner = account
        plan.username = account.username
    }

    public func operation(named name: String, plan: Plan) -> any APIOperation<Plan> {
        plan.api == .v2 ? V2Timeline() : V11Timeline()
    }

    /// The tweet fields every v2 timeline request asks for: each one the normalizer reads (`author_id` too, which
    /// X sends only when asked).
    static let tweetFields = "author_id,created_at,public_metrics,lang,entities,referenced_tweets,in_reply_to_user_id"

    /// `GET /2/users/:id/tweets`. `max_results` must be 5–100; when filtering, the largest page is asked for
    /// because excluded posts still count towards it.
    struct V2Timeline: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            guard let userID = call.plan.owner?.id else {
                throw AggregateError(.config, "the user id was not looked up before the timeline request")
            }
            let excluded = exclusions(call)
            return HTTPRequestSpec(url: call.url("/2/users/\(userID)/tweets", [
                ("max_results", String(excluded.isEmpty ? min(100, max(5, remaining)) : 100)),
                ("tweet.fields", tweetFields), ("expansions", "author_id"), ("user.fields", "username,name"),
                ("exclude", excluded.isEmpty ? nil : excluded.joined(separator: ",")), ("pagination_token", cursor),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try TwitterV2.timelinePage(response.json(), owner: call.plan.owner)
        }
    }

    /// `GET /1.1/statuses/user_timeline.json`. `count` is at most 200 and, as in v2, counts excluded posts too.
    struct V11Timeline: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            let excluded = exclusions(call)
            return HTTPRequestSpec(url: call.url("/1.1/statuses/user_timeline.json", [
                ("screen_name", call.plan.username), ("count", String(excluded.isEmpty ? min(200, max(1, remaining)) : 200)),
                ("tweet_mode", "extended"), ("exclude_replies", excluded.contains("replies") ? "true" : nil),
                ("include_rts", excluded.contains("retweets") ? "false" : "true"), ("max_id", cursor),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try TwitterV11.timelinePage(response.json(), username: call.plan.username)
        }
    }

    /// The `--exclude` words in a fixed order (`replies`, then `retweets`).
    static func exclusions(_ call: Call<Plan>) -> [String] {
        let given = call[exclude] ?? []
        return ["replies", "retweets"].filter(given.contains)
    }

    public func error(for response: HTTPResponse, call: Call<Plan>) -> AggregateError {
        TwitterErrors.error(for: response, username: call.plan.username, now: call.query.now, timeZone: Self.localTimeZone(call.query))
    }

    /// A 429 names the second its window resets in `x-rate-limit-reset`; X sends no `Retry-After`.
    public func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? {
        guard response.status == 429, let limit = TwitterRateLimit(headers: response.headers, now: now) else {
            return RetryAfter.delay(response, now: now)
        }
        return limit.secondsUntilReset(now: now)
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        TwitterTextView.render(result.items, style: style)
    }

    /// The time zone rate-limit resets are told in: `TZ` from the run's environment when it names a zone,
    /// else the process's own.
    static func localTimeZone(_ query: Query) -> TimeZone {
        guard var name = query.environment["TZ"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return .current }
        if name.hasPrefix(":") { name.removeFirst() }
        return TimeZone(identifier: name) ?? .current
    }
}

/// The two APIs the provider speaks.
public enum TwitterAPIVersion: String, ParameterChoice, Sendable {
    /// `GET /2/users/:id/tweets`, after `GET /2/users/by/username/:username`.
    case v2
    /// `GET /1.1/statuses/user_timeline.json` (legacy).
    case v1_1 = "v1.1"
}
