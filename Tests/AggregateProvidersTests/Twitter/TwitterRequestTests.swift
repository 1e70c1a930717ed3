import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import KivaProvider
import MeetupProvider
import MessageBoardProvider
import TMDbProvider
import Testing
@testable import TwitterProvider

@Suite struct TwitterConfigureTests {
    @Test(arguments: ["nasa", "@nasa", "NASA_2024", "a", "abcdefghijklmno", "_"])
    func validUsernamesAreAccepted(_ text: String) throws {
        let query = try twitterQuery(text)
        let bare = text.hasPrefix("@") ? String(text.dropFirst()) : text
        #expect((query.plan as? TwitterProvider.Plan)?.username == bare)
        #expect(query.parameters["username"] == .string(bare), "the query echoes the handle without @")
    }

    @Test(arguments: ["", "@", "@@nasa", "na sa", "nasa!", "abcdefghijklmnop", "ñandú", "nasa/../x", "١٢٣"])
    func invalidUsernamesAreUsageErrors(_ text: String) throws {
        let error = #expect(throws: AggregateError.self) { try twitterQuery(text) }
        #expect(error?.kind == .usage)
        #expect(error?.message.contains("1–15 letters, digits or underscores") == true)
    }

    @Test func aBadUsernameIsReportedBeforeMissingCredentials() {
        let error = #expect(throws: AggregateError.self) { try twitterQuery("bad name", environment: [:]) }
        #expect(error?.kind == .usage)
    }

    @Test func missingTokenNamesBothVariablesAndOffline() {
        let error = #expect(throws: AggregateError.self) { try twitterQuery("nasa", environment: ["X_BEARER_TOKEN": "  "]) }
        #expect(error?.kind == .config)
        #expect(error?.message == "no API token: set X_BEARER_TOKEN (or TWITTER_BEARER_TOKEN), or use --offline to see sample data")
        #expect(error.map(ExitCode.init(for:)) == .config)
    }

    @Test func theOlderVariableIsAcceptedAndTheNewerWins() throws {
        let old = try twitterQuery("nasa", environment: ["TWITTER_BEARER_TOKEN": "old-token"])
        #expect(try TwitterProvider().call(for: old).credential?.value == "old-token")
        let both = try twitterQuery("nasa", environment: ["TWITTER_BEARER_TOKEN": "old-token", "X_BEARER_TOKEN": "new-token"])
        #expect(try TwitterProvider().call(for: both).credential?.value == "new-token")
    }

    @Test func apiDefaultsToV2() throws {
        var query = Query(provider: "twitter", operation: "timeline", parameters: JSONObject(pairs: ["username": "nasa"]), baseURL: URL(string: "https://api.x.com")!, environment: ["X_BEARER_TOKEN": "t"])
        try TwitterProvider().configure(&query)
        #expect((query.plan as? TwitterProvider.Plan)?.api == .v2)
    }
}

@Suite struct TwitterRequestTests {
    func components(_ spec: HTTPRequestSpec) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: spec.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { result[item.name] = item.value }
        return result
    }

    @Test func userLookup() async throws {
        let query = try twitterQuery("@NASA", environment: ["X_BEARER_TOKEN": "secret-token"], baseURL: URL(string: "https://api.x.com")!)
        let sent = Recorder<HTTPRequestSpec>()
        var resolved = query
        try await TwitterProvider().resolve(&resolved, using: FetchClient { spec in
            sent.append(spec)
            return HTTPResponse(status: 200, body: Data(#"{"data": {"id": "11348282", "username": "NASA", "name": "NASA"}}"#.utf8))
        })
        let spec = try #require(sent.values.first)
        #expect(spec.url.absoluteString == "https://api.x.com/2/users/by/username/NASA")
        #expect(spec.credential == .bearer("secret-token"))
        #expect(spec.headers["Authorization"] == nil, "the fetch layer attaches the token, only for the base host")
        #expect((resolved.plan as? TwitterProvider.Plan)?.owner?.id == "11348282")
    }

    @Test func v2TimelineParameters() throws {
        var query = try twitterQuery("nasa", environment: ["X_BEARER_TOKEN": "secret-token"], baseURL: URL(string: "https://api.x.com")!)
        query.plan = withUserID("11348282", query)
        let spec = try TwitterProvider().request(for: query, cursor: nil, remaining: 5)
        #expect(spec.url.path == "/2/users/11348282/tweets")
        #expect(components(spec) == [
            "max_results": "5",
            "tweet.fields": "author_id,created_at,public_metrics,lang,entities,referenced_tweets,in_reply_to_user_id",
            "expansions": "author_id",
            "user.fields": "username,name",
        ])
        #expect(!spec.url.absoluteString.contains("secret-token"))
        #expect(spec.credential == .bearer("secret-token"))
    }

    @Test(arguments: [(1, "5"), (5, "5"), (42, "42"), (100, "100"), (3000, "100")])
    func v2PageSizeStaysWithin5And100(_ remaining: Int, _ expected: String) throws {
        var query = try twitterQuery("nasa")
        query.plan = withUserID("1", query)
        #expect(components(try TwitterProvider().request(for: query, cursor: nil, remaining: remaining))["max_results"] == expected)
    }

    @Test func v2ExcludeAndPaginationToken() throws {
        var query = try twitterQuery("nasa", exclude: ["retweets", "replies"])
        query.plan = withUserID("1", query)
        let parts = components(try TwitterProvider().request(for: query, cursor: "tok en/+", remaining: 5))
        #expect(parts["exclude"] == "replies,retweets")
        #expect(parts["pagination_token"] == "tok en/+")
        #expect(parts["max_results"] == "100", "excluded posts count towards max_results, so filtered runs ask for full pages")
    }

    @Test func v2RequestWithoutLookupIsAnError() throws {
        let query = try twitterQuery("nasa")
        #expect(throws: AggregateError.self) { try TwitterProvider().request(for: query, cursor: nil, remaining: 5) }
    }

    @Test func v11TimelineParameters() throws {
        let query = try twitterQuery("@nasa", api: "v1.1", baseURL: URL(string: "https://api.twitter.com")!)
        let spec = try TwitterProvider().request(for: query, cursor: nil, remaining: 5)
        #expect(spec.url.path == "/1.1/statuses/user_timeline.json")
        #expect(components(spec) == ["screen_name": "nasa", "count": "5", "tweet_mode": "extended", "include_rts": "true"])
        let next = try TwitterProvider().request(for: query, cursor: "1858405719530369024", remaining: 500)
        #expect(components(next)["max_id"] == "1858405719530369024")
        #expect(components(next)["count"] == "200")
    }

    @Test func v11Exclusions() throws {
        let query = try twitterQuery("nasa", api: "v1.1", exclude: ["replies", "retweets"])
        let parts = components(try TwitterProvider().request(for: query, cursor: nil, remaining: 5))
        #expect(parts["exclude_replies"] == "true")
        #expect(parts["include_rts"] == "false")
        #expect(parts["count"] == "200")
        let onlyRetweets = components(try TwitterProvider().request(for: try twitterQuery("nasa", api: "v1.1", exclude: ["retweets"]), cursor: nil, remaining: 5))
        #expect(onlyRetweets["exclude_replies"] == nil)
        #expect(onlyRetweets["include_rts"] == "false")
    }

    @Test func v11NeedsNoLookup() async throws {
        var query = try twitterQuery("nasa", api: "v1.1")
        let client = FetchClient { _ in
            Issue.record("v1.1 must not look the user up")
            return HTTPResponse(status: 500)
        }
        try await TwitterProvider().resolve(&query, using: client)
        #expect((query.plan as? TwitterProvider.Plan)?.owner == nil)
    }
}

@Suite struct TwitterRetryDelayTests {
    let provider = TwitterProvider()

    @Test func a429WaitsUntilTheResetPlusOneSecond() {
        let response = twitterResponse(429, "Rate limit exceeded\n", headers: ["x-rate-limit-reset": "1764425000", "x-rate-limit-remaining": "0"])
        #expect(provider.retryDelay(for: response, now: twitterTestNow) == 21)
    }

    @Test func aResetInThePastMeansRetryNow() {
        let response = twitterResponse(429, "", headers: ["x-rate-limit-reset": "1764424000"])
        #expect(provider.retryDelay(for: response, now: twitterTestNow) == 1)
    }

    @Test func withoutTheResetHeaderRetryAfterIsUsed() {
        #expect(provider.retryDelay(for: twitterResponse(429, "", headers: ["Retry-After": "7"]), now: twitterTestNow) == 7)
        #expect(provider.retryDelay(for: twitterResponse(429, "", headers: [:]), now: twitterTestNow) == nil)
    }

    @Test func otherStatusesIgnoreTheRateLimitHeaders() {
        // Every X response carries x-rate-limit-reset; on a 503 it says nothing about when to retry.
        let response = twitterResponse(503, "", headers: ["x-rate-limit-reset": "1764425800"])
        #expect(provider.retryDelay(for: response, now: twitterTestNow) == nil)
    }
}

/// The plan of `query` as if the user lookup had found the id `id`.
private func withUserID(_ id: String, _ query: Query) -> TwitterProvider.Plan? {
    guard var plan = query.plan as? TwitterProvider.Plan else { return nil }
    plan.owner = TwitterAccount(id: id, username: plan.username, name: nil)
    return plan
}
