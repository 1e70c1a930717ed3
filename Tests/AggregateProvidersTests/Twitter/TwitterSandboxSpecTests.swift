import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import Foundation
import Testing
@testable import TwitterProvider
@testable import TwitterSandbox

/// The X emulator against the rules of the OpenAPI document 2.62 (`Schemas/twitter/openapi-2.62.yaml`). The CI
/// conformance suite (`.ci/twitter_conformance.py`) checks every response against the document's schemas; these
/// tests pin the rules themselves.
@Suite struct TwitterSandboxSpecTests {
    let route = TwitterSandboxRouteTests()
    let orbital = "/2/users/1587369841290375168/tweets"

    func ids(_ pathAndQuery: String) throws -> [String] {
        try route.json(route.get(pathAndQuery))["data"]?.array?.compactMap { $0["id"]?.string } ?? []
    }

    /// The parameter a 400 Problem names, after checking it is an invalid-request problem+json.
    func rejectedParameter(_ pathAndQuery: String) throws -> String? {
        let response = try route.get(pathAndQuery)
        #expect(response.status == 400, "\(pathAndQuery)")
        #expect(response.headers["Content-Type"] == "application/problem+json", "\(pathAndQuery)")
        let body = try route.json(response)
        #expect(body["type"] == "https://api.twitter.com/2/problems/invalid-request")
        #expect(body["title"] == "Invalid Request")
        return body["errors"]?[0]?["parameters"]?.object?.keys.first
    }

    @Test func sinceIdAndUntilIdAreExclusiveBounds() throws {
        let all = try ids(orbital + "?max_results=100")
        #expect(all.count == 32)
        let newer = try ids(orbital + "?max_results=100&since_id=\(all[5])")
        #expect(newer == Array(all[0..<5]))
        let older = try ids(orbital + "?max_results=100&until_id=\(all[5])")
        #expect(older == Array(all[6...]))
        let between = try ids(orbital + "?max_results=100&since_id=\(all[9])&until_id=\(all[3])")
        #expect(between == Array(all[4..<9]))
    }

    @Test func startTimeIsInclusiveAndEndTimeExclusive() throws {
        // Posts at 2025-11-27T21:08:39Z, 2025-11-25T01:43:10Z and 2025-11-23T10:13:20Z among others.
        let window = try ids(orbital + "?max_results=100&start_time=2025-11-23T10:13:20Z&end_time=2025-11-27T21:08:39Z")
        #expect(window == ["1993133328184864310", "1992536942400237128"])
        let offset = try ids(orbital + "?max_results=100&start_time=2025-11-27T22:08:39%2B01:00")
        #expect(offset == ["1994521682231368563", "1994151406409104487"], "an offset is honoured")
        // since_id wins over start_time.
        #expect(try ids(orbital + "?max_results=100&since_id=1994151406409104487&start_time=2020-01-01T00:00:00Z") == ["1994521682231368563"])
    }

    @Test func filtersApplyBeforePagination() throws {
        let first = try route.json(route.get(orbital + "?max_results=5&end_time=2025-11-20T00:00:00Z"))
        #expect(first["data"]?[0]?["id"] == "1991067978064694243")
        let token = try #require(first["meta"]?["next_token"]?.string)
        let second = try ids(orbital + "?max_results=5&end_time=2025-11-20T00:00:00Z&pagination_token=\(token)")
        #expect(second.count == 5 && !second.contains("1991067978064694243"))
    }

    /// Issue 27: `pagination_token=7n0` (any `7n<base36>` below the oldest post) trapped with an index out of range.
    @Test func aTokenTheSandboxNeverIssuedIsX400() throws {
        for token in ["7n0", "7p0", "7n1", "7nzzzzzzzzzzzz", "7p3w5e11264sgsf"] {
            let path = "/2/users/11348282/tweets?pagination_token=\(token)"
            #expect(try rejectedParameter(path) == "pagination_token", "\(token)")
            let body = try route.json(route.get(path))
            #expect(body["errors"]?[0]?["message"] == .string("The `pagination_token` query parameter value [\(token)] is not valid"))
            #expect(body["errors"]?[0]?["parameters"]?["pagination_token"] == [.string(token)])
        }
    }

    /// A token issued without a filter, used with one that leaves its anchor below every post: an empty page
    /// (this trapped too), whose previous_token leads back to the posts above the anchor.
    @Test func aTokenBelowTheFilteredPostsIsAnEmptyPage() throws {
        var token = try #require(try route.json(route.get(orbital + "?max_results=5"))["meta"]?["next_token"]?.string)
        for _ in 0..<10 {
            guard let next = try route.json(route.get(orbital + "?max_results=5&pagination_token=\(token)"))["meta"]?["next_token"]?.string
            else { break }
            token = next
        }
        let newest = "start_time=2025-11-27T22:08:39%2B01:00"
        let page = try route.json(route.get(orbital + "?max_results=5&\(newest)&pagination_token=\(token)"))
        #expect(page["data"] == nil)
        #expect(page["meta"]?["result_count"] == 0)
        let previous = try #require(page["meta"]?["previous_token"]?.string)
        #expect(try ids(orbital + "?max_results=5&\(newest)&pagination_token=\(previous)") == ["1994521682231368563", "1994151406409104487"])
    }

    @Test func idsMustMatchTheDocumentsPattern() throws {
        for bad in ["12ab", "12345678901234567890", "-5", ""] {
            #expect(try rejectedParameter(orbital + "?since_id=\(bad)") == "since_id", "\(bad)")
            #expect(try rejectedParameter(orbital + "?until_id=\(bad)") == "until_id", "\(bad)")
        }
        #expect(try rejectedParameter("/2/users/12ab/tweets") == "id")
        #expect(try rejectedParameter("/2/users/12345678901234567890/tweets") == "id")
    }

    @Test func datesMustBeRFC3339() throws {
        for bad in ["2021-02-01", "2021-02-01%2018:40:40%2B00:00", "yesterday", "2021-02-01T18:40:40", "2021-02-30T18:40:40Z"] {
            #expect(try rejectedParameter(orbital + "?start_time=\(bad)") == "start_time", "\(bad)")
            #expect(try rejectedParameter(orbital + "?end_time=\(bad)") == "end_time", "\(bad)")
        }
        #expect(try route.get(orbital + "?start_time=2021-02-01T18:40:40.123Z").status == 200)
    }

    @Test func listsMustBeNonEmptyDistinctAndFromTheEnum() throws {
        #expect(try rejectedParameter(orbital + "?exclude=") == "exclude")
        #expect(try rejectedParameter(orbital + "?exclude=replies,replies") == "exclude")
        #expect(try rejectedParameter(orbital + "?exclude=replies,") == "exclude")
        for name in ["media.fields", "poll.fields", "place.fields", "tweet.fields", "user.fields", "expansions"] {
            #expect(try rejectedParameter(orbital + "?\(name)=bogus") == name, "\(name)")
        }
        #expect(try route.get(orbital + "?media.fields=url,width&poll.fields=options&place.fields=geo,country").status == 200)
    }

    @Test func namesOnlyNewerDocumentsHaveAreRejected() throws {
        for field in ["affiliation", "connection_status", "most_recent_tweet_id", "profile_banner_url", "receives_your_dm", "subscription_type"] {
            #expect(try rejectedParameter(orbital + "?user.fields=\(field)") == "user.fields", "\(field)")
        }
        for field in ["article", "card_uri", "community_id", "display_text_range", "media_metadata", "note_tweet", "scopes"] {
            #expect(try rejectedParameter(orbital + "?tweet.fields=\(field)") == "tweet.fields", "\(field)")
        }
        for expansion in ["article.cover_media", "article.media_entities", "attachments.media_source_tweet", "entities.note.mentions.username"] {
            #expect(try rejectedParameter(orbital + "?expansions=\(expansion)") == "expansions", "\(expansion)")
        }
    }

    @Test func userLookupValidatesItsExpansionsAndTweetFields() throws {
        let lookup = "/2/users/by/username/orbitalnotes"
        #expect(try rejectedParameter(lookup + "?expansions=author_id") == "expansions", "only pinned_tweet_id expands a user")
        #expect(try rejectedParameter(lookup + "?tweet.fields=nope") == "tweet.fields")
        #expect(try rejectedParameter(lookup + "?user.fields=created_at,created_at") == "user.fields")
        #expect(try route.get(lookup + "?expansions=pinned_tweet_id&tweet.fields=created_at").status == 200)
    }

    @Test func userExpansionsFillIncludes() throws {
        let body = try route.json(route.get(orbital + "?max_results=100&expansions=referenced_tweets.id,referenced_tweets.id.author_id,in_reply_to_user_id"))
        let users = body["includes"]?["users"]?.array?.compactMap { $0["id"]?.string } ?? []
        let referencedAuthors = Set(body["includes"]?["tweets"]?.array?.compactMap { $0["id"]?.string }.compactMap { TwitterSandbox.tweet(id: $0)?["author_id"]?.string } ?? [])
        #expect(!referencedAuthors.isEmpty)
        #expect(referencedAuthors.isSubset(of: Set(users)))
        #expect(Set(users).count == users.count, "each account once")
    }

    @Test func problemsAreProblemJSONAndTheProtectedErrorHasASection() throws {
        let unauthorized = try route.get(orbital, headers: [:])
        #expect(unauthorized.status == 401)
        #expect(unauthorized.headers["Content-Type"] == "application/problem+json")
        let protected = try route.json(route.get("/2/users/880129472/tweets"))
        #expect(protected["errors"]?[0]?["section"] == "data")
        #expect(protected["errors"]?[0]?["resource_type"] == "user")
    }

    @Test func v11TrimUserLeavesOnlyTheAuthorsId() throws {
        let base = "/1.1/statuses/user_timeline.json?screen_name=orbitalnotes&count=3"
        let full = try route.json(route.get(base))
        #expect(full[0]?["user"]?["screen_name"] == "orbitalnotes")
        for value in ["true", "1", "t"] {
            let trimmed = try route.json(route.get(base + "&trim_user=\(value)"))
            #expect(trimmed[0]?["user"] == ["id": .number("1587369841290375168"), "id_str": "1587369841290375168"], "\(value)")
        }
        #expect(try route.json(route.get(base + "&trim_user=false"))[0]?["user"]?["screen_name"] == "orbitalnotes")
    }
}
