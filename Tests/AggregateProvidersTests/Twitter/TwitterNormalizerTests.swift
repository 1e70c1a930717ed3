import AggregateCore
import AggregateJSON
import Foundation
import MeetupProvider
import Testing
@testable import TwitterProvider

@Suite struct TwitterNormalizerTests {
    let owner = TwitterAccount(id: "1587369841290375168", username: "fixture_acct", name: "Fixture Account ✨")

    // MARK: v2

    @Test func v2PageKeepsIdsAboveTwoToThe53Exact() throws {
        let page = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-page.json"), owner: nil)
        #expect(page.items.map(\.id) == ["1858405719530369025", "1858400000000000001", "1858390000000000000"])
        #expect(page.items[0].url == "https://x.com/fixture_acct/status/1858405719530369025")
        // A metric beyond 2^53 stays exact as well.
        #expect(page.items[0].metrics["likes"] == Decimal(string: "9007199254740993"))
        #expect(page.next == .cursor("fixture-next-token-2"))
    }

    @Test func v2TitleExpandsLinksAndDecodesEntities() throws {
        let page = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-page.json"), owner: nil)
        #expect(page.items[0].title == "Q&A tonight: ask us about the #Perseids & #AstroPhoto 🌠 https://fixtures.example/ask?night=1&topic=meteors")
        #expect(page.items[1].title == "@someone_else Yes, 18:00 UTC <- the start time")
        #expect(page.items[0].tags == ["Perseids", "AstroPhoto"])
    }

    @Test func v2ItemFields() throws {
        let item = try #require(try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-page.json"), owner: nil).items.first)
        #expect(item.kind == "tweet")
        #expect(item.provider == "twitter")
        #expect(item.author == "@fixture_acct (Fixture Account ✨)")
        #expect(item.createdAt.map(ISO8601.string(from:)) == "2024-11-18T08:09:10Z")
        #expect(item.metrics == ["likes": Decimal(string: "9007199254740993")!, "retweets": 12, "replies": 3, "quotes": 1, "impressions": 4821])
        #expect(item.extra == JSONObject(pairs: ["lang": "en", "isRetweet": false, "isReply": false]))
    }

    @Test func v2MissingPublicMetricsLeavesMetricsEmpty() throws {
        let reply = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-page.json"), owner: nil).items[1]
        #expect(reply.metrics.isEmpty, "no zeros for metrics the API did not send")
        #expect(reply.extra["isReply"] == true)
        #expect(reply.extra["inReplyToUserId"] == "9007199254740993")
        let json = try #require(reply.jsonValue["metrics"]?.object)
        #expect(json.isEmpty)
    }

    @Test func v2RetweetIsMarkedAndHasNoImpressionsWhenAbsent() throws {
        let retweet = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-page.json"), owner: nil).items[2]
        #expect(retweet.extra["isRetweet"] == true)
        #expect(retweet.extra["isReply"] == false)
        #expect(retweet.extra["inReplyToUserId"] == nil)
        #expect(retweet.metrics["impressions"] == nil)
        #expect(retweet.metrics["retweets"] == 5)
    }

    @Test func v2EmptyTimelineHasNoDataAndNoNextPage() throws {
        let page = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-empty.json"), owner: owner)
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test func v2DefaultFieldsFallBackToTheLookedUpOwner() throws {
        let page = try TwitterV2.timelinePage(TwitterFixtures.json("v2-timeline-default-fields.json"), owner: owner)
        #expect(page.items.count == 2)
        #expect(page.items[0].author == "@fixture_acct (Fixture Account ✨)")
        #expect(page.items[0].url == "https://x.com/fixture_acct/status/1700000000000000001")
        #expect(page.items[0].createdAt == nil)
        #expect(page.items[0].metrics.isEmpty)
        #expect(page.items[1].extra["isRetweet"] == true, "an 'RT @' text without referenced_tweets is still a retweet")
        #expect(page.next == nil, "previous_token alone is not a next page")
    }

    @Test func v2ShortPageWithNextTokenKeepsPaging() throws {
        let body: JSONValue = ["data": [["id": "1800000000000000000", "text": "only one"]], "meta": ["result_count": 1, "next_token": "more"]]
        #expect(try TwitterV2.timelinePage(body, owner: owner).next == .cursor("more"))
    }

    @Test func v2UserLookup() throws {
        let account = try TwitterV2.user(from: ["data": ["id": "1587369841290375168", "name": "N", "username": "Fixture_Acct"]], requested: "fixture_acct")
        #expect(account == TwitterAccount(id: "1587369841290375168", username: "Fixture_Acct", name: "N"))
    }

    @Test func v2NotFoundArrivesWithStatus200() throws {
        let error = #expect(throws: AggregateError.self) {
            try TwitterV2.user(from: TwitterFixtures.json("v2-user-not-found.json"), requested: "nobody_here")
        }
        #expect(error?.kind == .notFound)
        #expect(error?.message == "no user named @nobody_here")
    }

    @Test func v2ErrorsInsteadOfATimelineThrow() throws {
        let protected: JSONValue = ["errors": [[
            "detail": "Sorry, you are not authorized to see the user with id: [1].", "title": "Authorization Error",
            "resource_type": "user", "type": "https://api.twitter.com/2/problems/not-authorized-for-resource",
        ]]]
        let error = #expect(throws: AggregateError.self) { try TwitterV2.timelinePage(protected, owner: owner) }
        #expect(error?.kind == .auth)
        #expect(error?.message == "@fixture_acct's posts are protected: only approved followers can see them")

        let suspended: JSONValue = ["errors": [["detail": "User has been suspended: [x].", "title": "Forbidden", "type": "https://api.twitter.com/2/problems/resource-not-found"]]]
        #expect(throws: AggregateError(.notFound, "@x is suspended")) { try TwitterV2.user(from: suspended, requested: "x") }
    }

    @Test func v2PartialSuccessKeepsTheData() throws {
        let body: JSONValue = [
            "data": [["id": "1800000000000000000", "text": "kept"]],
            "errors": [["detail": "Could not find tweet with id: [1].", "title": "Not Found Error", "type": "https://api.twitter.com/2/problems/resource-not-found"]],
            "meta": ["result_count": 1],
        ]
        #expect(try TwitterV2.timelinePage(body, owner: owner).items.map(\.title) == ["kept"])
    }

    @Test func v2BodiesOfTheWrongShapeAreDecodingErrors() {
        #expect(throws: AggregateError.self) { try TwitterV2.timelinePage(["hello": "world"], owner: nil) }
        #expect(throws: AggregateError.self) { try TwitterV2.timelinePage([1, 2], owner: nil) }
        #expect(throws: AggregateError.self) { try TwitterV2.user(from: ["data": ["name": "no id"]], requested: "x") }
        #expect(throws: AggregateError.self) { try TwitterV2.timelinePage(["data": ["id": "1", "text": "one post, not a list"]], owner: nil) }
        let pathInjection: JSONValue = ["data": ["id": "1/../../admin", "name": "N", "username": "x"]]
        #expect(throws: AggregateError.self) { try TwitterV2.user(from: pathInjection, requested: "x") }
    }

    // MARK: v1.1

    @Test func v11ReadsIdStrAndComputesMaxIdExactly() throws {
        let page = try TwitterV11.timelinePage(TwitterFixtures.json("v1.1-timeline-page.json"), username: "fixture_acct")
        #expect(page.items.map(\.id) == ["1858405719530369025", "1858281234567890049", "1858243000000000100"])
        // Through a Double the smallest id minus one would come out as 1858243000000000000.
        #expect(page.next == .cursor("1858243000000000099"))
    }

    @Test func v11TitleExpandsUrlsAndMediaAndDecodesEntities() throws {
        let first = try TwitterV11.timelinePage(TwitterFixtures.json("v1.1-timeline-page.json"), username: "x").items[0]
        #expect(first.title == "Clear skies & a new lens 📷 #AstroPhoto https://fixtures.example/lens https://x.com/fixture_acct/status/1858405719530369025/photo/1")
        #expect(first.tags == ["AstroPhoto"])
        #expect(first.author == "@fixture_acct (Fixture Account ✨)")
        #expect(first.createdAt.map(ISO8601.string(from:)) == "2024-11-18T08:09:10Z")
        #expect(first.metrics == ["likes": 41, "retweets": 7])
        #expect(first.extra == JSONObject(pairs: ["lang": "en", "isRetweet": false, "isReply": false]))
    }

    @Test func v11RetweetTakesTheOriginalsFullText() throws {
        let retweet = try TwitterV11.timelinePage(TwitterFixtures.json("v1.1-timeline-page.json"), username: "x").items[1]
        #expect(retweet.title == "RT @fixture_friend: The retweet's own text is cut by the API at 140 characters, which is why the full one is read from retweeted_status instead. #Quirks <3")
        #expect(retweet.tags == ["Quirks"])
        #expect(retweet.extra["isRetweet"] == true)
        #expect(retweet.url == "https://x.com/fixture_acct/status/1858281234567890049")
        #expect(retweet.createdAt.map(ISO8601.string(from:)) == "2024-11-17T23:59:59Z")
    }

    @Test func v11CompatibilityTextAndReplyCounts() throws {
        let reply = try TwitterV11.timelinePage(TwitterFixtures.json("v1.1-timeline-page.json"), username: "x").items[2]
        #expect(reply.title == "@fixture_friend compatibility-mode reply: no full_text, only text")
        #expect(reply.extra["isReply"] == true)
        #expect(reply.extra["inReplyToUserId"] == "42")
        #expect(reply.metrics == ["likes": 2, "retweets": 0, "replies": 1, "quotes": 0])
    }

    @Test func v11EmptyPageEndsTheTimeline() throws {
        let page = try TwitterV11.timelinePage([], username: "x")
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test func v11IdWithoutIdStrUsesTheExactNumberText() throws {
        let status = try JSONParser().parse(#"[{"id": 1858405719530369025, "full_text": "no id_str", "entities": {}}]"#)
        let page = try TwitterV11.timelinePage(status, username: "x")
        #expect(page.items.map(\.id) == ["1858405719530369025"])
        #expect(page.next == .cursor("1858405719530369024"))
    }

    @Test func olderPageCursorNeverUnderflows() {
        #expect(TwitterV11.olderPageCursor(after: 0) == nil)
        #expect(TwitterV11.olderPageCursor(after: 1) == .cursor("0"))
        #expect(TwitterV11.olderPageCursor(after: UInt64.max) == .cursor("18446744073709551614"))
    }

    @Test func v11DatesNeedThePOSIXFormat() {
        #expect(TwitterV11.date("Wed Oct 10 20:19:24 +0000 2018").map(ISO8601.string(from:)) == "2018-10-10T20:19:24Z")
        #expect(TwitterV11.date("Wed Oct 10 22:19:24 +0200 2018").map(ISO8601.string(from:)) == "2018-10-10T20:19:24Z")
        #expect(TwitterV11.date("2018-10-10T20:19:24Z") == nil)
    }

    @Test func v11ErrorObjectWithStatus200IsAnError() {
        #expect(throws: AggregateError.self) { try TwitterV11.timelinePage(["errors": [["code": 34, "message": "x"]]], username: "x") }
        #expect(throws: AggregateError.self) { try TwitterV11.timelinePage(["data": []], username: "x") }
    }

    // MARK: Text

    @Test func linksAreReplacedLongestFirst() {
        let text = TweetText.readable(
            "a https://t.co/abc and https://t.co/abcd",
            links: [("https://t.co/abc", "https://one.example"), ("https://t.co/abcd", "https://two.example")])
        #expect(text == "a https://one.example and https://two.example")
    }
}
