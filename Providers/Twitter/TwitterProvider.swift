public import AggregateCore
public import Foundation

/// A user's most recent posts on X (formerly Twitter), from API v2 (the default) or the legacy v1.1
/// `statuses/user_timeline` that the original tutorial used.
public struct TwitterProvider: Provider, ProviderTextView {
    public static let descriptor = ProviderDescriptor(
        name: "twitter",
        displayName: "Twitter/X",
        summary: "A user's most recent posts on X (Twitter), from API v2 or the legacy API v1.1.",
        docsURL: "https://docs.x.com/x-api/posts/timelines/introduction",
        defaultBaseURL: "https://api.x.com",
        auth: [
            AuthVariable("X_BEARER_TOKEN", usage: "App-only bearer token, sent as 'Authorization: Bearer' (both API versions)."),
            AuthVariable("TWITTER_BEARER_TOKEN", usage: "The same token under its older name; used when X_BEARER_TOKEN is not set."),
        ],
        authStyle: "OAuth 2.0 app-only bearer token (Authorization: Bearer)",
        paginationStyle: "v2: meta.next_token sent back as pagination_token; v1.1: max_id = the smallest id seen minus one",
        options: [
            Parameter(
                "api", type: .choice([TwitterAPIVersion.v2.rawValue, TwitterAPIVersion.v1_1.rawValue]), default: "v2",
                valueName: "VERSION",
                help: "Which API to call: v2 (current; looks the user's id up first) or v1.1 (legacy; most access levels now get error 453).")
        ],
        operations: [
            ProviderOperation(
                name: "timeline", summary: "A user's most recent posts, newest first (the API serves the last 3,200 at most).",
                itemKind: "tweet",
                parameters: [
                    Parameter(
                        "username", style: .positional, required: true, valueName: "USERNAME",
                        help: "The account's handle: 1–15 letters, digits or underscores; a leading @ is accepted."),
                    Parameter(
                        "exclude", type: .choiceList(["replies", "retweets"]), valueName: "KINDS",
                        help: "Leave out replies and/or retweets (the API filters after counting, so pages can come back short)."),
                ])
        ],
        examples: [
            ProviderExample(["twitter", "orbitalnotes", "--limit", "5"], "The last five posts of @orbitalnotes (the original tutorial's query)."),
            ProviderExample(
                ["twitter", "timeline", "@matcha_mori", "--exclude", "replies,retweets", "--limit", "6"],
                "Six posts of @matcha_mori without replies or retweets: Japanese text, emoji and expanded links."),
            ProviderExample(
                ["twitter", "swiftbytes", "--api", "v1.1", "--limit", "8"],
                "The same kind of timeline through the legacy API v1.1 (dates like 'Wed Nov 26 16:05:00 +0000 2025')."),
        ])

    public init() {}

    public func configure(_ query: inout Query) throws {
        // Usage errors first: a malformed username is wrong whatever the environment holds.
        let username = try TwitterUsername(parsing: query.string("username") ?? "")
        query.parameters["username"] = .string(username.handle)
        query.state[TwitterState.username] = username.handle
        query.state[TwitterState.api] = TwitterAPIVersion(rawValue: query.string("api") ?? "")?.rawValue ?? TwitterAPIVersion.v2.rawValue
        guard Self.bearerToken(query) != nil else {
            throw AggregateError(
                .config, "no API token: set X_BEARER_TOKEN (or TWITTER_BEARER_TOKEN), or use --offline to see sample data")
        }
    }

    /// Looks the user's id up once per run (API v2 addresses timelines by id). The answer is kept in the run's
    /// cache, so several invocations for the same user (e.g. in `compare`) ask only once.
    public func resolve(_ query: inout Query, using client: FetchClient) async throws {
        guard Self.api(query) == .v2 else { return }
        let handle = query.state[TwitterState.username] ?? ""
        let lookup = TwitterRequests.userLookup(query, username: handle)
        let key = "twitter.v2.user-by-username \(query.baseURL.absoluteString) \(handle.lowercased())"
        let user = try await client.cache.value(for: key) {
            let response = try await client.send(lookup)
            return try TwitterV2.user(from: response.json(), requested: handle).jsonValue
        }
        guard let account = TwitterAccount(json: user) else {
            throw AggregateError(.decoding, "the user lookup for @\(handle) gave no id")
        }
        query.state[TwitterState.userID] = account.id
        query.state[TwitterState.username] = account.username
        query.state[TwitterState.name] = account.name
    }

    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        switch Self.api(query) {
        case .v2:
            guard let userID = query.state[TwitterState.userID] else {
                throw AggregateError(.config, "the user id was not looked up before the timeline request")
            }
            return TwitterRequests.v2Timeline(query, userID: userID, cursor: cursor, remaining: remaining)
        case .v1_1:
            return TwitterRequests.v11Timeline(query, cursor: cursor, remaining: remaining)
        }
    }

    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        switch Self.api(query) {
        case .v2: return try TwitterV2.timelinePage(page.json(), owner: Self.owner(query))
        case .v1_1: return try TwitterV11.timelinePage(page.json(), username: query.state[TwitterState.username] ?? "")
        }
    }

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        TwitterErrors.error(
            for: response, api: Self.api(query), username: query.state[TwitterState.username] ?? query.string("username") ?? "",
            now: query.now, timeZone: Self.localTimeZone(query))
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

    // MARK: Run settings

    /// The bearer token: `X_BEARER_TOKEN`, else the older `TWITTER_BEARER_TOKEN`.
    static func bearerToken(_ query: Query) -> String? {
        query.environmentValue("X_BEARER_TOKEN") ?? query.environmentValue("TWITTER_BEARER_TOKEN")
    }

    static func api(_ query: Query) -> TwitterAPIVersion {
        TwitterAPIVersion(rawValue: query.state[TwitterState.api] ?? query.string("api") ?? "") ?? .v2
    }

    /// The timeline's owner as looked up, used when a v2 page carries no `includes.users`.
    static func owner(_ query: Query) -> TwitterAccount? {
        guard let id = query.state[TwitterState.userID], let username = query.state[TwitterState.username] else { return nil }
        return TwitterAccount(id: id, username: username, name: query.state[TwitterState.name])
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
enum TwitterAPIVersion: String, Sendable {
    /// `GET /2/users/:id/tweets`, after `GET /2/users/by/username/:username`.
    case v2
    /// `GET /1.1/statuses/user_timeline.json` (legacy).
    case v1_1 = "v1.1"
}

/// The keys the provider keeps in `Query.state`.
enum TwitterState {
    static let api = "api"
    static let username = "username"
    static let userID = "userId"
    static let name = "name"
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
