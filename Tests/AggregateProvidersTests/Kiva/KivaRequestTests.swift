import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import KivaProvider
@testable import KivaSandbox
import MessageBoardProvider
import TMDbProvider
import Testing
import TwitterProvider

@Suite struct KivaConfigureTests {
    @Test func graphQLIsTheDefault() throws {
        var query = Query(provider: "kiva", operation: "newest", baseURL: URL(string: "https://api.kivaws.org")!)
        try KivaProvider().configure(&query)
        #expect((query.plan as? KivaProvider.Plan)?.api == .graphql)
        #expect((try KivaFixtures.query(api: "rest").plan as? KivaProvider.Plan)?.api == .rest)
    }

    @Test func countryCodesAreCheckedAndUpperCased() throws {
        let query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["country": " ke "]))
        #expect((query.plan as? KivaProvider.Plan)?.country == "KE")
        #expect(query.parameters["country"] == "KE", "the JSON output echoes the code as sent")
        for bad in ["Kenya", "K", "K3", "ÉT"] {
            let error = #expect(throws: AggregateError.self) { try KivaFixtures.query("search", parameters: JSONObject(pairs: ["country": .string(bad)])) }
            #expect(error?.kind == .usage)
            #expect(error?.message.contains("two-letter") == true)
        }
    }

    @Test func noCredentialsAreNeeded() throws {
        let query = try KivaFixtures.query(api: "rest")
        #expect(query.environment.isEmpty)
        #expect(KivaSandbox.sandboxEnvironment.isEmpty)
        #expect(KivaProvider.descriptor.auth.map(\.name) == ["KIVA_APP_ID"])
        #expect(KivaProvider.descriptor.auth[0].usage.hasPrefix("Optional"))
    }
}

@Suite struct KivaGraphQLRequestTests {
    func variables(_ spec: HTTPRequestSpec) throws -> JSONValue {
        let body = try #require(spec.body)
        return try #require(try JSONParser().parse(body)["variables"])
    }

    @Test func newestIsAnIdempotentPOSTOfTheFundraisingFilter() throws {
        let query = try KivaFixtures.query(baseURL: URL(string: "https://api.kivaws.org/")!)
        let spec = try KivaProvider().request(for: query, cursor: nil, remaining: 20)
        #expect(spec.method == "POST")
        #expect(spec.url.absoluteString == "https://api.kivaws.org/graphql")
        #expect(spec.headers["Content-Type"] == "application/json")
        #expect(spec.isIdempotent, "GraphQL queries are reads and may be retried")
        #expect(spec.credential == nil)
        let body = try JSONParser().parse(try #require(spec.body))
        let document = try #require(body["query"]?.string)
        #expect(document.contains("lend {"))
        #expect(document.contains("loanFundraisingInfo { fundedAmount reservedAmount }"))
        #expect(!document.contains("queryString"))
        #expect(try variables(spec) == ["offset": 0, "limit": 20, "filters": ["status": "fundraising"], "sortBy": "newest"])
    }

    @Test func pagesAreOffsetsOfTheRunsPageSize() throws {
        let provider = KivaProvider()
        let large = try KivaFixtures.query(limit: 45)
        #expect(try variables(provider.request(for: large, cursor: "3", remaining: 20))["offset"] == 40)
        #expect(try variables(provider.request(for: large, cursor: "3", remaining: 20))["limit"] == 20)
        let small = try KivaFixtures.query(limit: 5)
        #expect(try variables(provider.request(for: small, cursor: nil, remaining: 5))["limit"] == 5)
        #expect(try variables(provider.request(for: small, cursor: "2", remaining: 5))["offset"] == 5)
    }

    @Test func searchFiltersAreMappedToTheSchema() throws {
        var query = try KivaFixtures.query(
            "search",
            parameters: JSONObject(pairs: ["query": "solar  lamps", "gender": "female", "country": "ug", "status": "in_repayment", "sector": "Retail"]))
        var plan = try #require(query.plan as? KivaProvider.Plan)
        plan.sectorID = 7
        query.plan = plan
        let spec = try KivaProvider().request(for: query, cursor: nil, remaining: 20)
        let values = try variables(spec)
        #expect(values["filters"] == ["status": "payingBack", "gender": "female", "country": ["UG"], "sector": [7]])
        #expect(values["queryString"] == "solar  lamps")
        let body = try #require(spec.body)
        let document = try #require(try JSONParser().parse(body)["query"]?.string)
        #expect(document.contains("$queryString: String"))
        #expect(document.contains("queryString: $queryString"))
    }

    @Test func blankWordsAreNotSent() throws {
        let query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["query": "   "]))
        let spec = try KivaProvider().request(for: query, cursor: nil, remaining: 20)
        #expect(try variables(spec)["queryString"] == nil)
    }

    @Test(arguments: [("fundraising", "fundraising"), ("funded", "funded"), ("in_repayment", "payingBack"), ("paid", "ended"), ("defaulted", "defaulted")])
    func statusesUseGraphQLNames(_ status: String, _ filter: String) throws {
        let query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["status": .string(status)]))
        #expect(try variables(KivaProvider().request(for: query, cursor: nil, remaining: 20))["filters"]?["status"] == .string(filter))
    }
}

@Suite struct KivaRESTRequestTests {
    @Test func newestIsAPagedGET() throws {
        let query = try KivaFixtures.query(api: "rest", baseURL: URL(string: "https://api.kivaws.org")!)
        let spec = try KivaProvider().request(for: query, cursor: "2", remaining: 20)
        #expect(spec.method == "GET")
        #expect(spec.isIdempotent)
        #expect(spec.url.absoluteString == "https://api.kivaws.org/v1/loans/newest.json?page=2")
        #expect(spec.credential == nil, "no app_id unless KIVA_APP_ID is set")
    }

    @Test func appIDTravelsAsACredentialQueryParameter() throws {
        let query = try KivaFixtures.query(api: "rest", environment: ["KIVA_APP_ID": " org.example.loans "])
        let spec = try KivaProvider().request(for: query, cursor: nil, remaining: 20)
        #expect(spec.credential == .queryParameter(name: "app_id", value: "org.example.loans"))
        #expect(!spec.url.absoluteString.contains("app_id"), "the fetch layer attaches it, for Kiva's host only")
        #expect(try KivaProvider().request(for: KivaFixtures.query(environment: ["KIVA_APP_ID": "org.example.loans"]), cursor: nil, remaining: 20).credential == nil,
                "GraphQL does not use app_id")
    }

    @Test func searchSendsV1Parameters() throws {
        let query = try KivaFixtures.query(
            "search", api: "rest",
            parameters: JSONObject(pairs: ["query": "water filter", "sector": "Personal Use", "country": "kh", "gender": "female", "status": "paid"]),
            baseURL: URL(string: "https://api.kivaws.org")!)
        let spec = try KivaProvider().request(for: query, cursor: nil, remaining: 20)
        #expect(spec.url.path == "/v1/loans/search.json")
        let items = URLComponents(url: spec.url, resolvingAgainstBaseURL: false)?.queryItems?.map { "\($0.name)=\($0.value ?? "")" }
        #expect(items == ["q=water filter", "sector=Personal Use", "country_code=KH", "gender=female", "status=paid", "sort_by=newest", "page=1"])
    }
}

@Suite struct KivaResolveTests {
    /// A client that answers from the sandbox and counts its requests.
    func client(cache: RunCache = RunCache(), log: RequestLog) throws -> FetchClient {
        let transport = SandboxTransport(catalog: try SandboxCatalog([KivaProvider.self], sandboxes: [KivaSandbox.self]))
        return FetchClient(cache: cache) { spec in
            let request = HTTPRequest(method: spec.method, url: spec.url, headers: spec.headers, body: spec.body)
            log.append(request)
            return try await transport.send(request)
        }
    }

    @Test func graphQLSectorNamesBecomeIDsOncePerRun() async throws {
        let log = RequestLog()
        let cache = RunCache()
        var query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["sector": "Personal Use"]))
        try await KivaProvider().resolve(&query, using: client(cache: cache, log: log))
        #expect((query.plan as? KivaProvider.Plan)?.sectorID == 16)
        var again = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["sector": "Food"]))
        try await KivaProvider().resolve(&again, using: client(cache: cache, log: log))
        #expect((again.plan as? KivaProvider.Plan)?.sectorID == 12)
        #expect(log.requests.count == 1, "the sector list is fetched once per run")
        let body = try JSONParser().parse(try #require(log.requests.first?.body))
        #expect(body["query"]?.string?.contains("sector { id name }") == true)
    }

    @Test func noLookupWithoutASectorOrOverREST() async throws {
        let log = RequestLog()
        var rest = try KivaFixtures.query("search", api: "rest", parameters: JSONObject(pairs: ["sector": "Food"]))
        try await KivaProvider().resolve(&rest, using: client(log: log))
        var plain = try KivaFixtures.query("search")
        try await KivaProvider().resolve(&plain, using: client(log: log))
        #expect(log.requests.isEmpty)
        #expect((rest.plan as? KivaProvider.Plan)?.sectorID == nil)
    }

    @Test func aSectorKivaDoesNotKnowIsNotFound() async throws {
        var query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["sector": "Fintech"]))
        do {
            try await KivaProvider().resolve(&query, using: client(log: RequestLog()))
            Issue.record("an unknown sector must fail")
        } catch let error as AggregateError {
            #expect(error.kind == .notFound)
            #expect(error.message.contains("Agriculture"), "the message lists Kiva's sectors")
        }
    }
}
