import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import MeetupProvider
import Testing

/// Reads a fixture from `Tests/AggregateProvidersTests/Fixtures/<provider>/<name>`.
func fixture(_ provider: String, _ name: String) throws -> JSONValue {
    try JSONParser().parse(Data(contentsOf: fixtureURL(provider, name)))
}

func fixtureURL(_ provider: String, _ name: String) -> URL {
    TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/\(provider)/\(name)")
}

@Suite struct MeetupNormalizerTests {
    @Test func v2GroupBecomesAFullItem() throws {
        let page = try MeetupNormalizer.v2Groups(fixture("meetup", "v2_groups_page1_next.json"))
        let item = try #require(page.items.first)
        #expect(item.id == "8800001")
        #expect(item.kind == "group")
        #expect(item.title == "Soho Swift Society")
        #expect(item.subtitle == "Swifties")
        #expect(item.summary == "Swift & SwiftUI talks in Soho. Beginners welcome! We're friendly. Slides online.")
        #expect(item.url == "https://www.meetup.com/soho-swift/")
        #expect(item.imageUrl == "https://secure.meetupstatic.com/photos/event/1/2/600_900001.jpeg")
        #expect(item.author == "Ada Byron")
        #expect(item.createdAt.map(ISO8601.string) == "2010-01-01T00:00:00Z")
        #expect(item.location == Location(city: "London", country: "GB", latitude: 51.5099983215332, longitude: -0.1340000033378601))
        #expect(item.metrics == ["members": 2431, "rating": Decimal(string: "4.8")!])
        #expect(item.tags == ["Swift", "iOS Development"])
        #expect(item.extra == JSONObject(pairs: ["urlname": "soho-swift", "category": "tech", "joinMode": "open", "timezone": "Europe/London"]))
        #expect(page.next == .cursor("1"), "the offset of meta.next")
        #expect(page.totalCount == 5)
    }

    @Test func missingAndEmptyFieldsAreOmittedNotFilled() throws {
        let page = try MeetupNormalizer.v2Groups(fixture("meetup", "v2_groups_page1_next.json"))
        let item = page.items[1]
        #expect(item.title == "Café Société ☕ 東京")
        #expect(item.subtitle == nil, "who is an empty string")
        #expect(item.summary == nil, "description is an empty string")
        #expect(item.imageUrl == nil, "no group_photo")
        #expect(item.metrics == ["members": 12], "a rating of 0 means unrated")
        #expect(item.tags.isEmpty)
        #expect(item.author == "Zoë Ångström")
        let json = JSONWriter().string(item.jsonValue)
        #expect(!json.contains(#""subtitle""#) && !json.contains(#""summary""#) && !json.contains(#""imageUrl""#))
    }

    @Test func metaLatitudeNoneAndEmptyNextEndPaging() throws {
        let page = try MeetupNormalizer.v2Groups(fixture("meetup", "v2_groups_by_urlname_none.json"))
        #expect(page.next == nil)
        #expect(page.items.count == 1)
        let item = page.items[0]
        #expect(item.summary == "Plain text description with extra whitespace.")
        #expect(item.location?.latitude == -41.29)
        #expect(item.extra["category"] == nil, "category is null")
        #expect(item.imageUrl == nil, "group_photo is null")
    }

    @Test func emptyResultsAreAnEmptyPage() throws {
        let page = try MeetupNormalizer.v2Groups(fixture("meetup", "v2_groups_empty.json"))
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
        #expect(page.totalCount == 0)
    }

    @Test func nextLinkWithoutOffsetCountsFromTheCurrentPage() {
        let meta: JSONValue = ["next": "https://api.meetup.com/2/groups?page=20", "url": "https://api.meetup.com/2/groups?page=20&offset=3"]
        #expect(MeetupNormalizer.v2Next(meta) == .cursor("4"))
    }

    @Test func otherV2MethodsAreRefused() {
        let events: JSONValue = ["results": [["id": "e1", "name": "Talk night"]], "meta": ["method": "Events", "next": ""]]
        #expect(throws: AggregateError(.decoding, "expected an API v2 Groups response, got Events")) {
            try MeetupNormalizer.v2Groups(events)
        }
    }

    @Test func graphQLNodeBecomesAnItem() throws {
        let page = try MeetupNormalizer.graphQLGroups(fixture("meetup", "gql_groupSearch_page.json"))
        #expect(page.next == .cursor("Mg=="))
        #expect(page.totalCount == nil, "groupSearch.totalCount is the page size, not a total")
        let first = page.items[0]
        #expect(first.title == "Lisboa Café ☕ Coders")
        #expect(first.summary == "Code & coffee. Every **Thursday**.")
        #expect(first.url == "https://www.meetup.com/lisboa-coders")
        #expect(first.imageUrl == "https://secure-content.meetupstatic.com/images/classic-events/512616036/676x380.jpg")
        #expect(first.author == "Inês")
        #expect(first.createdAt.map(ISO8601.string) == "2016-09-01T10:31:57Z")
        #expect(first.location?.country == "PT")
        #expect(first.extra["joinMode"] == "open")
        #expect(first.extra["category"] == "Technology")
        let second = page.items[1]
        #expect(second.url == "https://www.meetup.com/porto-data/", "built from urlname when link is absent")
        #expect(second.createdAt == nil)
        #expect(second.imageUrl == nil)
        #expect(second.metrics == ["members": 0])
        #expect(second.extra["isPrivate"] == true)
    }

    @Test func graphQLLastPageHasNoNext() throws {
        let page = try MeetupNormalizer.graphQLGroups(fixture("meetup", "gql_groupSearch_last.json"))
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test func graphQLErrorsAtStatus200AreErrors() throws {
        #expect(throws: AggregateError(.http, "the GraphQL API returned an error: Variable 'status' has an invalid value: Invalid input for enum 'EventStatus'. No value found for name 'UPCOMING'")) {
            try MeetupNormalizer.graphQLGroups(fixture("meetup", "gql_error_validation.json"))
        }
        do {
            _ = try MeetupNormalizer.graphQLGroups(fixture("meetup", "gql_error_rate_limited.json"))
            Issue.record("a rate-limit error must throw")
        } catch let error as AggregateError {
            #expect(error.kind == .rateLimited)
        }
    }

    @Test func errorResponsesBecomeOneClearLine() throws {
        func response(_ status: Int, _ name: String) throws -> HTTPResponse {
            HTTPResponse(status: status, body: try Data(contentsOf: fixtureURL("meetup", name)))
        }
        #expect(MeetupNormalizer.error(for: try response(401, "v2_error_401.json"), api: .v2)
            == AggregateError(.auth, "the API key was rejected (HTTP 401). Check MEETUP_API_KEY.", httpStatus: 401))
        #expect(MeetupNormalizer.error(for: try response(400, "v2_error_400_limit.json"), api: .v2).kind == .rateLimited)
        let deprecated = MeetupNormalizer.error(for: try response(503, "gql_deprecated_503.json"), api: .graphql)
        #expect(deprecated.message.hasPrefix("the GraphQL API returned an error (HTTP 503): This API endpoint is deprecated"))
        let unauthorized = MeetupNormalizer.error(for: HTTPResponse(status: 401, body: Data("{}".utf8)), api: .graphql)
        #expect(unauthorized.message == "the token was rejected (HTTP 401). Check MEETUP_TOKEN.")
        let html = MeetupNormalizer.error(for: HTTPResponse(status: 500, headers: ["Content-Type": "text/html"], body: Data("<html>oops</html>".utf8)), api: .v2)
        #expect(html.message == "the server answered HTTP 500 with an HTML page")
    }

    @Test func normalizedFixtureMatchesItsGoldenFile() throws {
        let page = try MeetupNormalizer.v2Groups(fixture("meetup", "v2_groups_page1_next.json"))
        let text = JSONWriter(pretty: true).string(.array(page.items.map(\.jsonValue))) + "\n"
        let golden = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Golden/meetup/v2_groups_page1_next.items.json")
        if let message = Golden.check(text, against: golden) { Issue.record(Comment(rawValue: message)) }
    }
}
