public import AggregateCore
public import Foundation

/// A user's most recent posts on X (formerly Twitter), from API v2 (the default) or the legacy v1.1
/// `statuses/user_timeline` that the original tutorial used.
public struct TwitterProvider: Provider, ProviderTextView {
    static let username = ParameterKey<String>(
        "username", style: .positional, required: true, valueName: "USERNAME",
        help: "The account's handle: 1–15 letters, digits or underscores; a leading @ is accepted.")
    static let exclude = ParameterKey<[String]>(
        "exclude", type: .choiceList(["replies", "retweets"]), valueName: "KINDS",
        help: "Leave out replies and/or retweets (the API filters after counting, so pages can come back short).")
    static let api = ParameterKey<TwitterAPIVersion>(
        "api", default: "v2", valueName: "VERSION",
        help: "Which API to call: v2 (current; looks the user's id up first) or v1.1 (legacy; most access levels now get error 453).")

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
                    itemKind: "tweet", declaring: [username, exclude])
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
        // Rate-limit resets are told in the user's time zone.
        descriptor.settingVariables = ["TZ"]
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
        let username = try TwitterUsername(parsing: query[Self.username] ?? "")
        return Plan(api: query[Self.api] ?? .v2, username: username.handle)
    }

    public func echo(_ plan: Plan, into parameters: inout JSONObject) { parameters["username"] = .string(plan.username) }

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
        plan.api == .v2 ? TwitterRequests.V2Timeline() : TwitterRequests.V11Timeline()
    }

    public func error(for response: HTTPResponse, call: Call<Plan>) -> AggregateError {
        TwitterErrors.error(
            for: response, api: call.plan.api, username: call.plan.username, now: call.query.now, timeZone: Self.localTimeZone(call.query))
    }

    /// A 429 names the second its window resets in `x-rate-limit-reset`; X sends no `Retry-After`.
    public func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? {
        guard response.status == 429 else { return RetryPolicy.retryAfter(response, now: now) }
        if let wait = TwitterRateLimit(headers: response.headers)?.secondsUntilReset(now: now) { return wait }
        return RetryPolicy.retryAfter(response, now: now)
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

/// A handle as X allows it: 1–15 ASCII letters, digits or underscores, given with or without `@`.
struct TwitterUsername: Equatable {
    /// The handle without `@`.
    let handle: String

    init(parsing text: String) throws(AggregateError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let handle = trimmed.hasPrefix("@") ? String(trimmed.dropFirst()) : trimmed
        guard Self.isValid(handle) else {
            throw AggregateError(
                .usage, "'\(text)' is not a valid username: use 1–15 letters, digits or underscores (a leading @ is fine)")
        }
        self.handle = handle
    }

    static func isValid(_ handle: String) -> Bool {
        (1...15).contains(handle.count) && handle.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }
}
