import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing
@testable import TwitterProvider
@testable import TwitterSandbox

/// The provider against its in-process sandbox: the full fetch path without sockets.
@Suite struct TwitterSandboxRunTests {
    @Test func v2LooksTheUserUpOnceThenReadsTheTimeline() async throws {
        let log = RequestLog()
        let result = try await sandboxFetcher(log: log, limit: 5).run(TwitterProvider(), query: twitterQuery("@OrbitalNotes", limit: 5))
        #expect(result.error == nil)
        #expect(result.items.count == 5)
        #expect(log.requests.map(\.url.path) == ["/twitter/2/users/by/username/OrbitalNotes", "/twitter/2/users/1587369841290375168/tweets"])
        #expect(log.requests.allSatisfy { $0.headers["Authorization"] == "Bearer sandbox-x-bearer-token" })
        // The looked-up spelling of the handle is used, not the one typed.
        #expect(result.items[0].author == "@orbitalnotes (Orbital Notes 🚀)")
        #expect(result.items.allSatisfy { $0.url?.hasPrefix("https://x.com/orbitalnotes/status/") == true })
        let ids = result.items.compactMap { UInt64($0.id) }
        #expect(ids == ids.sorted(by: >), "newest first")
        #expect(ids.allSatisfy { $0 > 1 << 53 })
    }

    @Test func oneLookupServesEveryRunThatSharesTheCache() async throws {
        let log = RequestLog()
        let cache = RunCache()
        let fetcher = try sandboxFetcher(log: log, limit: 5, cache: cache)
        let first = await fetcher.run(TwitterProvider(), query: try twitterQuery("orbitalnotes", limit: 5))
        let second = await fetcher.run(TwitterProvider(), query: try twitterQuery("OrbitalNotes", limit: 5))
        #expect(first.error == nil && second.error == nil)
        #expect(log.requests.filter { $0.url.path.contains("/by/username/") }.count == 1)
        #expect(log.requests.count == 3)
    }

    @Test func v11PagesWithMaxIdUntilAnEmptyPage() async throws {
        let log = RequestLog()
        let result = try await sandboxFetcher(log: log, limit: 50).run(TwitterProvider(), query: twitterQuery("orbitalnotes", api: "v1.1", limit: 50))
        #expect(result.error == nil)
        #expect(result.items.count == 32)
        #expect(log.requests.count == 2, "no lookup; the second page is empty")
        let smallest = try #require(result.items.compactMap { UInt64($0.id) }.min())
        #expect(log.requests[1].url.queryValue("max_id") == String(smallest - 1))
        #expect(result.meta.pages == 2)
    }

    @Test func bothAPIsGiveTheSamePostsInTheSameOrder() async throws {
        let log = RequestLog()
        let v2 = try await sandboxFetcher(log: log, limit: 40).run(TwitterProvider(), query: twitterQuery("swiftbytes", limit: 40))
        let v11 = try await sandboxFetcher(log: log, limit: 40).run(TwitterProvider(), query: twitterQuery("swiftbytes", api: "v1.1", limit: 40))
        #expect(v2.items.map(\.id) == v11.items.map(\.id))
        #expect(v2.items.map(\.createdAt) == v11.items.map(\.createdAt))
        #expect(v2.items.map(\.tags) == v11.items.map(\.tags))
        #expect(v2.items.map { $0.extra["isRetweet"] } == v11.items.map { $0.extra["isRetweet"] })
        #expect(v2.items.map { $0.extra["isReply"] } == v11.items.map { $0.extra["isReply"] })
        // Titles match except retweets: v2's is cut at 140 characters, v1.1's is rebuilt from the original.
        for (a, b) in zip(v2.items, v11.items) where a.extra["isRetweet"] == false {
            #expect(a.title == b.title)
        }
        let retweets = v11.items.filter { $0.extra["isRetweet"] == true }
        #expect(!retweets.isEmpty)
        #expect(retweets.contains { $0.title.count > 140 })
    }

    @Test(arguments: ["v2", "v1.1"])
    func excludeLeavesOutRepliesAndRetweets(_ api: String) async throws {
        let log = RequestLog()
        let all = try await sandboxFetcher(log: log, limit: 100).run(TwitterProvider(), query: twitterQuery("matcha_mori", api: api, limit: 100))
        let filtered = try await sandboxFetcher(log: log, limit: 100).run(
            TwitterProvider(), query: twitterQuery("matcha_mori", api: api, exclude: ["replies", "retweets"], limit: 100))
        #expect(filtered.error == nil)
        let expected = all.items.filter { $0.extra["isReply"] == false && $0.extra["isRetweet"] == false }.map(\.id)
        #expect(filtered.items.map(\.id) == expected)
        #expect(filtered.items.count < all.items.count)
        let noRetweets = try await sandboxFetcher(log: log, limit: 100).run(
            TwitterProvider(), query: twitterQuery("matcha_mori", api: api, exclude: ["retweets"], limit: 100))
        #expect(noRetweets.items.contains { $0.extra["isReply"] == true })
        #expect(!noRetweets.items.contains { $0.extra["isRetweet"] == true })
    }

    @Test(arguments: ["v2", "v1.1"])
    func unknownUser(_ api: String) async throws {
        let log = RequestLog()
        let result = try await sandboxFetcher(log: log).run(TwitterProvider(), query: twitterQuery("nobody_here", api: api))
        #expect(result.error?.kind == .notFound)
        #expect(result.error?.message == "no user named @nobody_here")
        #expect(result.error.map(ExitCode.init(for:)) == .failure)
        #expect(log.requests.count == 1)
    }

    @Test(arguments: ["v2", "v1.1"])
    func aWrongTokenIsRejected(_ api: String) async throws {
        let log = RequestLog()
        let query = try twitterQuery("orbitalnotes", api: api, environment: ["X_BEARER_TOKEN": "not-the-sandbox-token"])
        let result = try await sandboxFetcher(log: log).run(TwitterProvider(), query: query)
        #expect(result.error?.kind == .auth)
        #expect(result.error?.message.hasPrefix("the API token was rejected (HTTP 401") == true)
        #expect(result.error?.message.contains("not-the-sandbox-token") == false)
        #expect(log.requests.count == 1, "401 is not retried")
    }

    @Test(arguments: ["v2", "v1.1"])
    func protectedAccountsAreRefused(_ api: String) async throws {
        let result = try await sandboxFetcher(log: RequestLog()).run(TwitterProvider(), query: twitterQuery("quietvault", api: api))
        #expect(result.error?.kind == .auth)
        #expect(result.error?.message.hasPrefix("@QuietVault's posts are protected") == true || result.error?.message.hasPrefix("@quietvault's posts are protected") == true)
    }

    @Test(arguments: ["v2", "v1.1"])
    func anEmptyTimelineIsASuccessWithNoItems(_ api: String) async throws {
        let result = try await sandboxFetcher(log: RequestLog()).run(TwitterProvider(), query: twitterQuery("emptynest", api: api))
        #expect(result.error == nil)
        #expect(result.items.isEmpty)
    }

    @Test func v11AtALimitedAccessLevelSaysSo() async throws {
        let result = try await sandboxFetcher(log: RequestLog(), settings: ["twitter.v1-access": "limited"])
            .run(TwitterProvider(), query: twitterQuery("orbitalnotes", api: "v1.1"))
        #expect(result.error?.kind == .auth)
        #expect(result.error?.httpStatus == 403)
        #expect(result.error?.message.contains("higher access level") == true)
    }

    @Test func a429WithinTheBudgetIsWaitedOut() async throws {
        let log = RequestLog()
        let events = EventLog()
        let sandbox = SandboxTransport(catalog: try SandboxCatalog([TwitterProvider.self], sandboxes: [TwitterSandbox.self]))
        let limited = LimitOnce()
        let transport = FakeTransport { request in
            log.append(request)
            if request.url.path.hasSuffix("/tweets"), limited.take() {
                let context = SandboxContext(baseURL: URL(string: "http://sandbox.localhost/twitter")!, now: twitterTestNow, settings: ["twitter.rate-limit-reset": "5"])
                let fault = try #require(TwitterSandbox.sandboxFaultResponse(status: 429, request: SandboxRequest(method: "GET", path: "/2/users/1/tweets"), context: context))
                return HTTPResponse(status: fault.status, headers: fault.headers, body: fault.body, url: request.url)
            }
            return try await sandbox.send(request)
        }
        let fetcher = Fetcher(transport: transport, options: testFetchOptions(events: events), source: .offline)
        let result = await fetcher.run(TwitterProvider(), query: try twitterQuery("orbitalnotes", limit: 5))
        #expect(result.error == nil)
        #expect(result.items.count == 5)
        #expect(log.requests.count == 3)
        #expect(events.events.contains { $0.kind == .retrying(afterSeconds: 6, reason: "HTTP 429", retry: 1, of: 3) })
    }

    @Test func a429BeyondTheBudgetFailsWithTheResetTime() async throws {
        let sandbox = SandboxTransport(catalog: try SandboxCatalog([TwitterProvider.self], sandboxes: [TwitterSandbox.self]))
        let transport = FakeTransport { request in
            if request.url.path.hasSuffix("/tweets") {
                // The window resets at 14:15 UTC, 12 minutes after the test clock's 14:03.
                return HTTPResponse(
                    status: 429, headers: ["content-type": "text/plain;charset=utf-8", "x-rate-limit-remaining": "0", "x-rate-limit-reset": "1764425700"],
                    body: Data("Rate limit exceeded\n".utf8), url: request.url)
            }
            return try await sandbox.send(request)
        }
        let fetcher = Fetcher(transport: transport, options: testFetchOptions(), source: .offline)
        var query = try twitterQuery("orbitalnotes", limit: 5)
        query.environment["TZ"] = "Europe/Paris"
        let result = await fetcher.run(TwitterProvider(), query: query)
        #expect(result.error?.kind == .rateLimited)
        #expect(result.error?.message == "rate limited (HTTP 429: Rate limit exceeded); the limit resets at 15:15 local time (in 12 min)")
    }
}

/// True the first time only.
final class LimitOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var used = false

    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { used = true }
        return !used
    }
}

/// The sandbox's routes, request by request.
@Suite struct TwitterSandboxRouteTests {
    let context = SandboxContext(baseURL: URL(string: "http://sandbox.localhost/twitter")!, now: twitterTestNow)
    let token: HTTPHeaders = ["Authorization": "Bearer sandbox-x-bearer-token"]

    func get(_ pathAndQuery: String, headers: HTTPHeaders? = nil, settings: [String: String] = [:]) throws -> SandboxResponse {
        let url = try #require(URL(string: "http://sandbox.localhost" + pathAndQuery))
        var context = context
        context.settings = settings
        return try #require(TwitterSandbox.sandboxResponse(for: SandboxRequest(method: "GET", url: url, headers: headers ?? token), context: context))
    }

    func json(_ response: SandboxResponse) throws -> JSONValue { try JSONParser().parse(response.body) }

    @Test func everyAnswerCarriesRateLimitHeaders() throws {
        let requests: [(String, HTTPHeaders)] = [
            ("/2/users/by/username/orbitalnotes", token),
            ("/2/users/by/username/orbitalnotes", [:]),
            ("/2/users/by/username/nobody_here", token),
            ("/2/users/by/username/bad!name", token),
            ("/2/users/1587369841290375168/tweets?max_results=5", token),
            ("/2/users/1587369841290375168/tweets?max_results=3", token),
            ("/2/users/1234/tweets", token),
            ("/2/users/880129472/tweets", token),
            ("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes", token),
            ("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes", ["Authorization": "Bearer nope"]),
            ("/1.1/statuses/user_timeline.json?screen_name=nobody_here", token),
            ("/1.1/statuses/user_timeline.json?screen_name=quietvault", token),
        ]
        for (path, headers) in requests {
            let response = try get(path, headers: headers)
            #expect(response.headers["x-rate-limit-limit"] != nil, "\(path)")
            #expect(response.headers["x-rate-limit-remaining"] != nil, "\(path)")
            #expect(response.headers["x-rate-limit-reset"] == "1764425700", "\(path): the end of the 15-minute window")
        }
        for status in [429, 500, 503] {
            for path in ["/2/users/1/tweets", "/1.1/statuses/user_timeline.json"] {
                let fault = try #require(TwitterSandbox.sandboxFaultResponse(status: status, request: SandboxRequest(method: "GET", path: path), context: context))
                #expect(fault.headers["x-rate-limit-reset"] != nil)
                #expect(fault.status == status)
            }
        }
    }

    @Test func injected429sLookLikeXs() throws {
        let v2 = try #require(TwitterSandbox.sandboxFaultResponse(status: 429, request: SandboxRequest(method: "GET", path: "/2/users/by/username/x"), context: context))
        // The OpenAPI document allows only JSON error bodies: a problem, not X's occasional plain text.
        #expect(try json(v2) == ["title": "Too Many Requests", "detail": "Too Many Requests", "type": "about:blank", "status": 429])
        #expect(v2.headers["Content-Type"] == "application/problem+json")
        #expect(v2.headers["x-rate-limit-remaining"] == "0")
        let v11 = try #require(TwitterSandbox.sandboxFaultResponse(status: 429, request: SandboxRequest(method: "GET", path: "/1.1/statuses/user_timeline.json"), context: context))
        #expect(try json(v11)["errors"]?[0]?["code"] == 88)
    }

    @Test func withoutATokenBothAPIsAnswer401() throws {
        let v2 = try get("/2/users/by/username/orbitalnotes", headers: [:])
        #expect(v2.status == 401)
        #expect(try json(v2) == ["title": "Unauthorized", "detail": "Unauthorized", "type": "about:blank", "status": 401])
        let v11 = try get("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes", headers: [:])
        #expect(v11.status == 401)
        #expect(try json(v11)["errors"]?[0]?["code"] == 89)
    }

    @Test func unknownUsersAreA200WithErrorsInV2AndCode34InV11() throws {
        let v2 = try get("/2/users/by/username/nobody_here")
        #expect(v2.status == 200)
        let errors = try json(v2)["errors"]
        #expect(errors?[0]?["type"] == "https://api.twitter.com/2/problems/resource-not-found")
        #expect(errors?[0]?["value"] == "nobody_here")
        let v11 = try get("/1.1/statuses/user_timeline.json?screen_name=nobody_here")
        #expect(v11.status == 404)
        #expect(try json(v11)["errors"]?[0]?["code"] == 34)
    }

    @Test func lookupIsCaseInsensitiveAndHonoursUserFields() throws {
        let plain = try json(get("/2/users/by/username/ORBITALNOTES"))
        #expect(plain["data"] == ["id": "1587369841290375168", "name": "Orbital Notes 🚀", "username": "orbitalnotes"])
        let fields = try json(get("/2/users/by/username/orbitalnotes?user.fields=created_at,protected"))
        #expect(fields["data"]?["created_at"] == "2022-11-01T09:12:44.000Z")
        #expect(fields["data"]?["protected"] == false)
        #expect(fields["data"]?["description"] == nil)
    }

    @Test func v2PagesForwardAndBack() throws {
        let base = "/2/users/1587369841290375168/tweets?max_results=5"
        var pages: [JSONValue] = []
        var token: String?
        repeat {
            let page = try json(get(base + (token.map { "&pagination_token=" + $0 } ?? "")))
            pages.append(page)
            token = page["meta"]?["next_token"]?.string
        } while token != nil && pages.count < 20
        let ids = pages.flatMap { $0["data"]?.array ?? [] }.compactMap { $0["id"]?.string }
        let expected = TwitterSandbox.timeline(userID: "1587369841290375168").compactMap { $0["id"]?.string }
        #expect(ids == expected)
        #expect(pages.count == 7, "32 posts in pages of 5")
        #expect(pages[0]["meta"]?["previous_token"] == nil)
        #expect(pages.last?["meta"]?["next_token"] == nil)
        #expect(pages.last?["meta"]?["result_count"] == 2)
        // previous_token of page 3 leads back to page 2.
        let previous = try #require(pages[2]["meta"]?["previous_token"]?.string)
        let back = try json(get(base + "&pagination_token=" + previous))
        #expect(back["data"] == pages[1]["data"])
        #expect(back["meta"]?["next_token"] == pages[1]["meta"]?["next_token"])
    }

    @Test func v2MaxResultsCountsExcludedPosts() throws {
        let page = try json(get("/2/users/2994561827/tweets?max_results=10&exclude=replies,retweets"))
        let count = try #require(page["meta"]?["result_count"]?.int)
        #expect(count < 10, "the page is short because excluded posts were counted")
        #expect(page["meta"]?["next_token"] != nil, "and there is still a next page")
    }

    @Test func v2ProjectsOnlyTheRequestedFields() throws {
        let minimal = try json(get("/2/users/1587369841290375168/tweets?max_results=5"))
        #expect(minimal["data"]?[0]?.object?.keys.sorted() == ["edit_history_tweet_ids", "id", "text"])
        #expect(minimal["includes"] == nil)
        let full = try json(get("/2/users/1587369841290375168/tweets?max_results=5&tweet.fields=\(TwitterProvider.tweetFields)&expansions=author_id&user.fields=username,name"))
        #expect(full["data"]?[0]?["created_at"] != nil)
        #expect(full["data"]?[0]?["public_metrics"] != nil)
        #expect(full["data"]?[0]?["author_id"] == "1587369841290375168", "the client asks for the author_id it reads")
        let noAuthor = try json(get("/2/users/1587369841290375168/tweets?max_results=5&tweet.fields=created_at"))
        #expect(noAuthor["data"]?[0]?["author_id"] == nil, "author_id is sent only when asked for")
        #expect(full["includes"]?["users"] == [["id": "1587369841290375168", "name": "Orbital Notes 🚀", "username": "orbitalnotes"]])
    }

    @Test func v2RejectsBadParameters() throws {
        for query in ["max_results=3", "max_results=101", "max_results=ten", "tweet.fields=bogus", "expansions=nothing", "exclude=quotes", "pagination_token=zzz"] {
            let response = try get("/2/users/1587369841290375168/tweets?" + query)
            #expect(response.status == 400, "\(query)")
            #expect(try json(response)["type"] == "https://api.twitter.com/2/problems/invalid-request", "\(query)")
        }
        #expect(try get("/2/users/by/username/this_name_is_too_long").status == 400)
        #expect(try get("/2/users/12ab/tweets").status == 400)
    }

    @Test func v2UnknownAndProtectedIdsAreA200WithErrors() throws {
        let unknown = try get("/2/users/1234/tweets")
        #expect(unknown.status == 200)
        #expect(try json(unknown)["errors"]?[0]?["type"] == "https://api.twitter.com/2/problems/resource-not-found")
        let protected = try get("/2/users/880129472/tweets")
        #expect(protected.status == 200)
        #expect(try json(protected)["errors"]?[0]?["type"] == "https://api.twitter.com/2/problems/not-authorized-for-resource")
    }

    @Test func emptyTimelineIsMetaOnly() throws {
        #expect(try json(get("/2/users/1720044553189023744/tweets")) == ["meta": ["result_count": 0]])
        #expect(try json(get("/1.1/statuses/user_timeline.json?screen_name=emptynest")) == [])
    }

    @Test func v11PagesBackwardsWithMaxIdAndForwardWithSinceId() throws {
        let base = "/1.1/statuses/user_timeline.json?screen_name=swiftbytes&tweet_mode=extended&count=7"
        var ids: [String] = []
        var maxID: String?
        for _ in 0..<10 {
            let page = try json(get(base + (maxID.map { "&max_id=" + $0 } ?? ""))).array ?? []
            if page.isEmpty { break }
            ids += page.compactMap { $0["id_str"]?.string }
            maxID = String(page.compactMap { $0["id_str"]?.string.flatMap { UInt64($0) } }.min()! - 1)
        }
        #expect(ids == TwitterSandbox.timeline(userID: "14826131").compactMap { $0["id"]?.string })
        let newer = try json(get(base + "&since_id=" + ids[4])).array ?? []
        #expect(newer.compactMap { $0["id_str"]?.string } == Array(ids.prefix(4)))
    }

    @Test func v11StatusesHaveTheLegacyShape() throws {
        let page = try json(get("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes&tweet_mode=extended&count=200"))
        let statuses = try #require(page.array)
        let first = try #require(statuses.first)
        #expect(first["id"]?.numberText == first["id_str"]?.string, "the numeric id has the same exact digits")
        #expect(first["created_at"]?.string.flatMap(TwitterV11.date) != nil)
        #expect(first["full_text"] != nil && first["text"] == nil)
        #expect(first["user"]?["screen_name"] == "orbitalnotes")
        #expect(first["source"]?.string?.hasPrefix("<a href=") == true)
        let retweet = try #require(statuses.first { $0["retweeted_status"] != nil })
        #expect(retweet["retweeted_status"]?["user"]?["screen_name"] == "nebula_ines")
        let quote = try #require(statuses.first { $0["is_quote_status"] == true })
        #expect(quote["quoted_status"]?["id_str"] == quote["quoted_status_id_str"])
        let photo = try #require(statuses.first { $0["entities"]?["media"] != nil })
        #expect(photo["extended_entities"]?["media"]?[0]?["type"] == "photo")
        let reply = try #require(statuses.first { $0["in_reply_to_screen_name"] == "stargazer_kim" })
        #expect(reply["display_text_range"]?[0] == 15, "the displayed text starts after the leading @mention")
    }

    @Test func v11CompatibilityModeCutsLongTexts() throws {
        let page = try json(get("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes&count=200")).array ?? []
        #expect(page.allSatisfy { $0["full_text"] == nil })
        let cut = page.filter { $0["truncated"] == true }
        #expect(!cut.isEmpty)
        #expect(cut.allSatisfy { ($0["text"]?.string?.unicodeScalars.count ?? 0) == 140 })
    }

    @Test func v11CountIsAppliedBeforeTheFilters() throws {
        let page = try json(get("/1.1/statuses/user_timeline.json?screen_name=matcha_mori&count=10&exclude_replies=true&include_rts=false")).array ?? []
        #expect(page.count < 10)
        #expect(page.allSatisfy { $0["in_reply_to_status_id_str"] == .null && $0["retweeted_status"] == nil })
    }

    @Test func otherPathsAndMethodsAreNotTwitters() throws {
        #expect(TwitterSandbox.sandboxResponse(for: SandboxRequest(method: "GET", path: "/2/groups"), context: context) == nil)
        let post = try #require(TwitterSandbox.sandboxResponse(for: SandboxRequest(method: "POST", path: "/2/users/1/tweets", headers: token), context: context))
        #expect(post.status == 405)
    }

    @Test func theBundledDataHasTheQuirksItPromises() throws {
        #expect(TwitterSandbox.users.count == 12)
        #expect(TwitterSandbox.users.contains { $0["username"] == "NASA" }, "the account of the original tutorial and the compare example")
        #expect(TwitterSandbox.timeline(userID: TwitterChime.userID).count == 240)
        #expect(Set(TwitterSandbox.tweets.compactMap { $0["id"]?.string }).count == TwitterSandbox.tweets.count, "ids are unique")
        #expect(TwitterSandbox.tweets.count >= 90)
        #expect(TwitterSandbox.tweets.allSatisfy { TwitterSandbox.numericID($0) > 1 << 53 })
        #expect(TwitterSandbox.tweets.contains { $0["text"]?.string?.contains("&amp;") == true })
        #expect(TwitterSandbox.tweets.contains { $0["lang"] == "ja" })
        #expect(TwitterSandbox.tweets.contains { $0["lang"] == "zxx" })
        #expect(TwitterSandbox.tweets.contains { TwitterSandbox.references($0, as: "retweeted") })
        #expect(TwitterSandbox.tweets.contains { TwitterSandbox.references($0, as: "replied_to") })
        #expect(TwitterSandbox.tweets.contains { $0["entities"] == nil })
        // Every referenced retweet or quote exists, so v1.1 can embed it.
        for tweet in TwitterSandbox.tweets {
            for reference in tweet["referenced_tweets"]?.array ?? [] where reference["type"] != "replied_to" {
                #expect(TwitterSandbox.tweet(id: reference["id"]?.string ?? "") != nil)
            }
        }
    }
}
