import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import MeetupProvider
@testable import MeetupSandbox
import Testing

private func query(_ environment: [String: String], api: String? = nil, limit: Int = 20, text: String? = nil) -> Query {
    var parameters = JSONObject(pairs: ["lat": .number("51.509980"), "lon": .number("-0.133700"), "radius": 25])
    if let api { parameters["api"] = .string(api) }
    if let text { parameters["query"] = .string(text) }
    return Query(provider: "meetup", operation: "groups", parameters: parameters, limit: limit, baseURL: URL(string: "https://api.meetup.com")!, environment: environment)
}

@Suite struct MeetupConfigureTests {
    @Test func picksTheAPIFromTheCredentials() throws {
        var withToken = query(["MEETUP_TOKEN": "t", "MEETUP_API_KEY": "k"])
        try MeetupProvider().configure(&withToken)
        #expect(withToken.plan as? MeetupProvider.API == .graphql)
        var withKey = query(["MEETUP_API_KEY": "k"])
        try MeetupProvider().configure(&withKey)
        #expect(withKey.plan as? MeetupProvider.API == .v2)
        var forced = query(["MEETUP_TOKEN": "t", "MEETUP_API_KEY": "k"], api: "v2")
        try MeetupProvider().configure(&forced)
        #expect(forced.plan as? MeetupProvider.API == .v2)
    }

    @Test func missingCredentialsNameBothVariablesAndSuggestOffline() {
        var empty = query(["MEETUP_TOKEN": "  "])
        #expect(throws: AggregateError(.config, "no credentials: set MEETUP_TOKEN (GraphQL API) or MEETUP_API_KEY (API v2), or use --offline to see sample data")) {
            try MeetupProvider().configure(&empty)
        }
        var graphqlWithoutToken = query(["MEETUP_API_KEY": "k"], api: "graphql")
        #expect(throws: AggregateError(.config, "--api graphql needs MEETUP_TOKEN to be set (or use --offline to see sample data)")) {
            try MeetupProvider().configure(&graphqlWithoutToken)
        }
    }
}

@Suite struct MeetupRequestTests {
    @Test func v2RequestCarriesTheQueryAndTheKeyAsACredential() throws {
        var q = query(["MEETUP_API_KEY": "secret-key"], limit: 500, text: "python")
        try MeetupProvider().configure(&q)
        let first = try MeetupProvider().request(for: q, cursor: nil, remaining: 500)
        #expect(first.url.absoluteString == "https://api.meetup.com/2/groups?lat=51.509980&lon=-0.133700&radius=25&page=200&topic=python")
        #expect(first.credential == .queryParameter(name: "key", value: "secret-key"))
        #expect(first.method == "GET" && first.isIdempotent)
        let second = try MeetupProvider().request(for: q, cursor: "1", remaining: 300)
        #expect(second.url.queryValue("offset") == "1")
        #expect(second.url.queryValue("page") == "200", "the page size stays fixed across a run")
    }

    @Test func graphQLRequestIsAnIdempotentPostWithVariables() throws {
        var q = query(["MEETUP_TOKEN": "secret-token"], limit: 5)
        try MeetupProvider().configure(&q)
        let request = try MeetupProvider().request(for: q, cursor: "MTA=", remaining: 5)
        #expect(request.method == "POST")
        #expect(request.isIdempotent, "a GraphQL query is a read and may be retried")
        #expect(request.url.absoluteString == "https://api.meetup.com/gql-ext")
        #expect(request.credential == .bearer("secret-token"))
        #expect(request.headers["Content-Type"] == "application/json")
        let body = try JSONParser().parse(try #require(request.body))
        #expect(body["query"]?.string?.contains("groupSearch(after: $cursor") == true)
        #expect(body["variables"] == ["query": "", "lat": .number("51.509980"), "lon": .number("-0.133700"), "radius": 25, "first": 5, "cursor": "MTA="])
    }
}

@Suite struct MeetupSandboxTests {
    let context = SandboxContext(baseURL: URL(string: "http://127.0.0.1:8787")!, now: Date(timeIntervalSince1970: 1_764_424_980))
    let key = MeetupSandbox.sandboxEnvironment["MEETUP_API_KEY"]!

    func v2(_ query: String) -> SandboxResponse? {
        MeetupSandbox.sandboxResponse(for: SandboxRequest(method: "GET", url: URL(string: "http://127.0.0.1:8787/2/groups?\(query)")!), context: context)
    }

    @Test func v2ChecksTheKeyLikeTheRealAPI() throws {
        let missing = try #require(v2("lat=51.5&lon=-0.13"))
        #expect(missing.status == 401)
        #expect(try JSONParser().parse(missing.body)["code"] == "not_authorized")
        #expect(try #require(v2("lat=51.5&lon=-0.13&key=wrong")).status == 401)
        #expect(try #require(v2("key=\(key)")).status == 400, "lat and lon are required")
    }

    @Test func v2PagesWithMetaNextAndRateLimitHeaders() throws {
        let first = try #require(v2("lat=51.509980&lon=-0.133700&radius=25&page=5&key=\(key)"))
        #expect(first.status == 200)
        #expect(first.headers["X-RateLimit-Remaining"] != nil)
        let body = try JSONParser().parse(first.body)
        #expect(body["results"]?.array?.count == 5)
        let next = try #require(body["meta"]?["next"]?.string)
        #expect(URL(string: next)?.queryValue("offset") == "1")
        #expect(next.hasPrefix("http://127.0.0.1:8787/2/groups?"))
        let total = try #require(body["meta"]?["total_count"]?.int)
        #expect(total > 5)
        let last = try #require(v2("lat=51.509980&lon=-0.133700&radius=25&page=5&offset=\((total - 1) / 5)&key=\(key)"))
        #expect(try JSONParser().parse(last.body)["meta"]?["next"] == "")
        let past = try #require(v2("lat=51.509980&lon=-0.133700&radius=25&page=5&offset=99&key=\(key)"))
        #expect(try JSONParser().parse(past.body)["results"] == [])
    }

    @Test func v2RadiusLimitsResultsToNearbyGroups() throws {
        let paris = try JSONParser().parse(try #require(v2("lat=48.8566&lon=2.3522&radius=10&key=\(key)")).body)
        let cities = Set(paris["results"]?.array?.compactMap { $0["country"]?.string } ?? [])
        #expect(cities == ["FR"])
    }

    @Test func graphQLNeedsTheTokenAndPagesWithCursors() throws {
        func post(_ body: JSONValue, token: String?) -> SandboxResponse? {
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Bearer \(token)" }
            return MeetupSandbox.sandboxResponse(
                for: SandboxRequest(method: "POST", url: URL(string: "http://127.0.0.1:8787/gql-ext")!, headers: headers, body: JSONWriter().data(body)),
                context: context)
        }
        let document: JSONValue = ["query": .string(MeetupGraphQL.groupSearch), "variables": ["query": "", "lat": 51.5, "lon": -0.13, "radius": 25, "first": 3]]
        #expect(try #require(post(document, token: nil)).status == 401)
        let page = try JSONParser().parse(try #require(post(document, token: MeetupSandbox.sandboxEnvironment["MEETUP_TOKEN"])).body)
        #expect(page["data"]?["groupSearch"]?["edges"]?.array?.count == 3)
        #expect(page["data"]?["groupSearch"]?["pageInfo"]?["endCursor"] == "Mw==")
        let bad: JSONValue = ["query": .string(MeetupGraphQL.groupSearch), "variables": ["query": "", "lat": "north", "lon": 0]]
        let error = try JSONParser().parse(try #require(post(bad, token: MeetupSandbox.sandboxEnvironment["MEETUP_TOKEN"])).body)
        #expect(error["errors"]?[0]?["extensions"]?["classification"] == "ValidationError")
    }

    @Test func theRetiredGraphQLEndpointAnswers503() throws {
        let response = try #require(MeetupSandbox.sandboxResponse(for: SandboxRequest(method: "POST", path: "/gql"), context: context))
        #expect(response.status == 503)
        #expect(MeetupNormalizer.error(for: HTTPResponse(status: 503, body: response.body), api: .graphql).message.contains("deprecated"))
    }

    @Test func theRouteTableOwnsMeetupsPathsAndRefusesOtherMethodsInV2Shape() throws {
        #expect(MeetupSandbox.sandboxPaths == ["/2/groups", "/2/groups.json", "/gql-ext", "/gql"])
        for (method, path) in [("DELETE", "/2/groups"), ("GET", "/gql-ext"), ("GET", "/gql")] {
            let response = try #require(MeetupSandbox.sandboxResponse(for: SandboxRequest(method: method, path: path), context: context))
            #expect(response.status == 405)
            #expect(try JSONParser().parse(response.body) == ["code": "method_not_allowed", "problem": .string("\(method) is not supported here")])
        }
    }

    @Test func faultsOnMeetupsPathsCarryItsShapes() throws {
        func fault(_ status: Int, _ path: String) throws -> JSONValue? {
            let response = MeetupSandbox.sandboxFaultResponse(status: status, request: SandboxRequest(method: "GET", path: path), context: context)
            return try response.map { try JSONParser().parse($0.body) }
        }
        #expect(try fault(503, "/2/groups")?["problem"] == "Service Unavailable")
        #expect(try fault(400, "/2/groups.json")?["code"] == "limit", "a 400 is v2's rate-limit answer")
        #expect(try fault(502, "/gql-ext")?["errors"]?[0]?["message"] == "HTTP 502 from the sandbox fault injector")
        #expect(try fault(503, "/3/movie/popular") == nil, "not Meetup's path")
    }

    @Test func unknownPathsAreNotMeetups() {
        #expect(MeetupSandbox.sandboxResponse(for: SandboxRequest(method: "GET", path: "/3/search/movie"), context: context) == nil)
    }

    @Test func bundledDataIsValidAndVaried() {
        #expect(MeetupSandbox.groups.count >= 30)
        let countries = Set(MeetupSandbox.groups.compactMap { $0["country"]?.string })
        #expect(countries.count >= 5)
        #expect(MeetupSandbox.groups.contains { $0["group_photo"] == nil })
    }
}

/// Runs the Meetup normalizer over every real captured response in `../shared/api/samples/meetup` (when present):
/// success bodies give items, error bodies give a clear error, other shapes are refused with a clear error.
@Suite struct MeetupConformanceTests {
    @Test(arguments: TestPaths.sharedResponseSamples("meetup"))
    func capturedResponse(_ url: URL) throws {
        let name = url.lastPathComponent
        let json = try JSONParser().parse(Data(contentsOf: url))
        let normalize = name.hasPrefix("gql_") ? MeetupNormalizer.graphQLGroups : MeetupNormalizer.v2Groups
        if name.contains("groupSearch") || name.hasPrefix("v2_groups") {
            let page = try normalize(json)
            #expect(page.items.count == (json["results"]?.array?.count ?? json["data"]?["groupSearch"]?["edges"]?.array?.count))
            for item in page.items {
                #expect(!item.id.isEmpty && !item.title.isEmpty)
                #expect(item.summary.map { !$0.contains("<p>") } ?? true, "summaries are plain text")
            }
        } else {
            do {
                _ = try normalize(json)
                Issue.record("\(name) is not a groups response and must be refused")
            } catch let error as AggregateError {
                #expect(!error.message.isEmpty)
                #expect(!error.message.contains("\n"))
            }
        }
    }
}
