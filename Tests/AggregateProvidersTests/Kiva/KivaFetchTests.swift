import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import KivaProvider
import MeetupProvider
import Testing

/// Both APIs through the real fetch layer, against the sandbox in-process (paging, filters, errors, retries).
@Suite struct KivaFetchTests {
    func run(_ query: Query, transport: any HTTPTransport, limit: Int) async -> ProviderResult {
        let fetcher = Fetcher(transport: transport, options: testFetchOptions(), source: .offline)
        return await fetcher.run(KivaProvider(), query: query)
    }

    func run(_ operation: String = "newest", api: String, parameters: JSONObject = JSONObject(), limit: Int = 20) async throws -> ProviderResult {
        let query = try KivaFixtures.query(operation, api: api, parameters: parameters, limit: limit)
        return await run(query, transport: try FaultingSandboxTransport(), limit: limit)
    }

    @Test(arguments: ["graphql", "rest"])
    func allNewestLoansInThreeConcurrentPages(_ api: String) async throws {
        let transport = try FaultingSandboxTransport()
        let result = await run(try KivaFixtures.query(api: api, limit: 45), transport: transport, limit: 45)
        #expect(result.error == nil)
        #expect(result.items.count == 42)
        #expect(Set(result.items.map(\.id)).count == 42, "no duplicates")
        let dates = result.items.compactMap(\.createdAt)
        #expect(dates.count == 42)
        #expect(dates == dates.sorted(by: >), "newest first, across pages")
        #expect(result.items.allSatisfy { $0.extra["status"] == "fundraising" })
        #expect(result.meta.requests == 3)
        #expect(result.meta.pages == 3)
        #expect(result.meta.totalCount == 42)
        #expect(result.meta.nextCursor == nil)
    }

    @Test(arguments: ["graphql", "rest"])
    func onlyThePagesTheLimitNeedsAreFetched(_ api: String) async throws {
        let transport = try FaultingSandboxTransport()
        let result = await run(try KivaFixtures.query(api: api, limit: 30), transport: transport, limit: 30)
        #expect(result.items.count == 30)
        #expect(transport.requests.count == 2)
        #expect(result.meta.nextCursor == "3")
    }

    @Test func bothAPIsGiveTheSameLoans() async throws {
        let searches: [JSONObject] = [
            JSONObject(),
            JSONObject(pairs: ["sector": "Agriculture", "gender": "female"]),
            JSONObject(pairs: ["country": "KE"]),
            JSONObject(pairs: ["query": "water"]),
            JSONObject(pairs: ["status": "paid"]),
            JSONObject(pairs: ["status": "in_repayment", "gender": "male"]),
        ]
        for parameters in searches {
            let graphQL = try await run("search", api: "graphql", parameters: parameters, limit: 60)
            let rest = try await run("search", api: "rest", parameters: parameters, limit: 60)
            #expect(graphQL.error == nil && rest.error == nil, "\(parameters)")
            #expect(!rest.items.isEmpty, "\(parameters)")
            #expect(graphQL.items.map(\.id) == rest.items.map(\.id), "\(parameters)")
            for (left, right) in zip(graphQL.items, rest.items) {
                // 2009 listings have no lender_count: compare the figures both shapes carry.
                for name in ["loanAmount", "fundedAmount", "percentFunded", "borrowerCount"] {
                    #expect(left.metrics[name] == right.metrics[name], "\(left.id) \(name)")
                }
                #expect(left.title == right.title)
                #expect(left.location?.country == right.location?.country)
                #expect(left.extra["status"] == right.extra["status"])
            }
        }
    }

    @Test func aGraphQLSectorSearchLooksTheSectorUpFirst() async throws {
        let transport = try FaultingSandboxTransport()
        let query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["sector": "Personal Use"]))
        let result = await run(query, transport: transport, limit: 20)
        #expect(result.error == nil)
        #expect(!result.items.isEmpty)
        #expect(result.items.allSatisfy { $0.subtitle?.hasSuffix("Personal Use") == true })
        #expect(transport.requests.count == 2, "the sector list, then the loans")
        let variables = try JSONParser().parse(try #require(transport.requests.last?.body))["variables"]
        #expect(variables?["filters"]?["sector"] == [16])
    }

    @Test func theRESTLockoutIsReportedAndNotRetried() async throws {
        let transport = try FaultingSandboxTransport(faults: [(403, [:])])
        let result = await run(try KivaFixtures.query(api: "rest"), transport: transport, limit: 20)
        let error = try #require(result.error)
        #expect(error.kind == .rateLimited)
        #expect(error.provider == "kiva")
        #expect(error.message.contains("locked out"))
        #expect(error.message.contains("0 of 60 left"))
        #expect(transport.requests.count == 1, "403 is not retried")
        #expect(ExitCode(for: error) == .failure)
    }

    @Test(arguments: ["graphql", "rest"])
    func tooManyRequestsIsRetriedAfterRetryAfter(_ api: String) async throws {
        let transport = try FaultingSandboxTransport(faults: [(429, ["Retry-After": "1"])])
        let result = await run(try KivaFixtures.query(api: api, limit: 5), transport: transport, limit: 5)
        #expect(result.error == nil)
        #expect(result.items.count == 5)
        #expect(transport.requests.count == 2)
    }

    @Test func aBadGraphQLFilterIsOneClearError() async throws {
        // The command line only offers valid genders; a query built by other code can still send a bad one.
        let query = try KivaFixtures.query("search", parameters: JSONObject(pairs: ["gender": "other"]))
        let result = await run(query, transport: try FaultingSandboxTransport(), limit: 20)
        let error = try #require(result.error)
        #expect(error.kind == .http)
        #expect(error.message.hasPrefix("Kiva's GraphQL API rejected the query: Variable \"$filters\" got invalid value \"other\""))
        #expect(result.items.isEmpty)
    }

    @Test func theAppIDGoesOnlyToKivasHostAndIsHiddenInTraces() async throws {
        let events = EventLog()
        let transport = try FaultingSandboxTransport()
        let query = try KivaFixtures.query(api: "rest", environment: ["KIVA_APP_ID": "org.example.loans"])
        let fetcher = Fetcher(transport: transport, options: testFetchOptions(events: events), source: .live)
        let result = await fetcher.run(KivaProvider(), query: query)
        #expect(result.error == nil)
        #expect(transport.requests.first?.url.query?.contains("app_id=org.example.loans") == true)
        let traced = events.events.compactMap { event -> String? in
            if case .request(_, let url, _) = event.kind { return url }
            return nil
        }
        #expect(traced.count == 1)
        #expect(traced.allSatisfy { !$0.contains("org.example.loans") })
    }
}
