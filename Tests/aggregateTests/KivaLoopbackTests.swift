import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateURLSession
import Foundation
import MeetupProvider
import Testing
import aggregate

/// Kiva over loopback: the real URLSession transport and fetch layer, through the CLI, against the sandbox server,
/// on both APIs: paging, filters, the REST lock-out, GraphQL errors, retries and broken responses.
@Suite(.serialized) struct KivaLoopbackTests {
    func harness(_ sandbox: LoopbackSandbox, environment: [String: String] = [:]) -> CLIHarness {
        // Mounted under /kiva, as the sandbox serves several providers.
        CLIHarness(environment: environment.merging(["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva"]) { left, _ in left })
    }

    func result(_ output: CLIHarness.Output) throws -> JSONValue {
        try #require(try JSONParser().parse(output.stdout)["results"]?[0])
    }

    @Test(arguments: ["graphql", "rest"])
    func newestPagesThroughEveryLoanConcurrently(_ api: String) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["kiva", "newest", "--api", api, "--limit", "45", "--format", "json"])
        #expect(output.code == .success, "\(output.stderr)")
        let result = try result(output)
        let items = try #require(result["items"]?.array)
        #expect(items.count == 42)
        #expect(Set(items.compactMap { $0["id"]?.string }).count == 42)
        let dates = items.compactMap { $0["createdAt"]?.string }
        #expect(dates == dates.sorted(by: >), "newest first across pages")
        #expect(result["meta"]?["pages"] == 3)
        #expect(result["meta"]?["requests"] == 3)
        #expect(result["meta"]?["totalCount"] == 42)
        #expect(sandbox.server.requestCount == 3)
    }

    @Test(arguments: ["graphql", "rest"])
    func onlyTheNeededPagesAreRequested(_ api: String) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["kiva", "--api", api, "--limit", "25", "--format", "json"])
        let result = try result(output)
        #expect(result["items"]?.array?.count == 25)
        #expect(result["meta"]?["nextCursor"] == "3")
        #expect(sandbox.server.requestCount == 2)
    }

    @Test func bothAPIsAnswerASearchAlike() async throws {
        let sandbox = try LoopbackSandbox()
        let search = ["kiva", "search", "--sector", "agriculture", "--gender", "female", "--country", "ke", "--format", "json"]
        let graphQL = try result(await harness(sandbox).run(search + ["--api", "graphql"]))
        #expect(sandbox.server.requestCount == 2, "the sector lookup, then one page")
        let rest = try result(await harness(sandbox).run(search + ["--api", "rest"]))
        let ids = graphQL["items"]?.array?.compactMap { $0["id"]?.string } ?? []
        #expect(ids == ["2950117", "2950131", "2950190"])
        #expect(rest["items"]?.array?.compactMap { $0["id"]?.string } == ids)
        #expect(graphQL["query"]?["country"] == "KE")
    }

    @Test func theRESTLockoutIsOneLineAndNotRetried() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=403; path=/kiva/v1/"])
        let output = await harness(sandbox).run(["kiva", "--api", "rest"])
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: kiva: Kiva's REST API refused the request (HTTP 403): more than 60 requests a minute, 0 of 60 left, so this address is locked out for a while. Wait a few minutes before retrying; setting KIVA_APP_ID raises the limit to 500 a minute.\n")
        #expect(sandbox.server.requestCount == 1, "a lock-out is not retried")
    }

    @Test func theAppIDIsSentButNeverPrinted() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=403; path=/kiva/v1/"])
        let output = await harness(sandbox, environment: ["KIVA_APP_ID": "org.example.loans"]).run(["kiva", "--api", "rest", "--verbose"])
        #expect(output.stderr.contains("app_id=***"))
        #expect(!output.stderr.contains("org.example.loans"))
        #expect(output.stderr.contains("more than 500 requests a minute, 0 of 500 left"), "the sandbox saw the app id")
    }

    @Test(arguments: ["graphql", "rest"])
    func rateLimitedOnceThenSucceeds(_ api: String) async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; retry-after=0; times=1"])
        let output = await harness(sandbox).run(["kiva", "--api", api, "--limit", "3", "--verbose"])
        #expect(output.code == .success)
        #expect(output.stdout.split(separator: "\n").count == 3)
        #expect(output.stderr.contains("kiva: retrying in 0.0 s after HTTP 429 (retry 1 of 3)"))
        #expect(sandbox.server.requestCount == 2)
    }

    @Test func graphQLServerErrorsKeepTheirMessage() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=503; retry-after=0"])
        let output = await harness(sandbox).run(["kiva"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: kiva: Kiva's GraphQL API failed (HTTP 503): HTTP 503 from the sandbox fault injector. Try again later.\n")
        #expect(sandbox.server.requestCount == 4, "the first try and 3 retries")
    }

    @Test func aBadGraphQLFilterComesBackAsOneClearError() async throws {
        // The CLI offers only valid filters; build the query directly to send one the schema refuses.
        let sandbox = try LoopbackSandbox()
        let provider = try #require(allProviders.first { $0.descriptor.name == "kiva" })
        let query = Query(
            provider: "kiva", operation: "search", parameters: ["api": "graphql", "status": "fundraising", "gender": "nonbinary-typo"],
            baseURL: URL(string: sandbox.url)!.appendingEndpoint("/kiva"))
        let fetcher = Fetcher(transport: URLSessionTransport(), options: FetchOptions())
        let result = await fetcher.run(provider.init(), query: query)
        let error = try #require(result.error)
        #expect(error.kind == .http)
        #expect(error.message.contains("Value \"nonbinary-typo\" does not exist in \"GenderEnum\" enum"))
        #expect(error.message.hasSuffix("Check the search options."))
        #expect(sandbox.server.requestCount == 1, "a GraphQL error at 200 is not retried")
    }

    @Test func aPagePastTheEndAndTheRateLimitHeadersTravel() async throws {
        let sandbox = try LoopbackSandbox()
        let url = URL(string: sandbox.url + "/kiva/v1/loans/newest.json?page=9&app_id=org.example.loans")!
        let response = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url))
        #expect(response.status == 200)
        #expect(try response.json() == ["paging": ["page": 9, "total": 42, "page_size": 20, "pages": 3], "loans": []])
        #expect(response.headers["X-RateLimit-Overall-Limit"] == "500")
        #expect(response.headers["X-RateLimit-Overall-Remaining"] == "499")
    }

    @Test(arguments: [
        ("truncate", "Error: kiva: the request to 127.0.0.1 failed: "),
        ("html", "Error: kiva: the server answered HTTP 500 with an HTML page\n"),
        ("status=200; html", "Error: kiva: the API sent an HTML page instead of JSON (HTTP 200)\n"),
        ("malformed", "Error: kiva: the API sent malformed JSON (HTTP 200): "),
        ("close", "Error: kiva: "),
    ])
    func brokenResponsesEndInOneClearLine(fault: String, expected: String) async throws {
        for api in ["graphql", "rest"] {
            let sandbox = try LoopbackSandbox(faults: [fault])
            let output = await harness(sandbox).run(["kiva", "--api", api])
            #expect(output.code == .failure)
            #expect(output.stdout.isEmpty)
            #expect(output.stderr.hasPrefix(expected), "\(api): \(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1)
        }
    }
}
