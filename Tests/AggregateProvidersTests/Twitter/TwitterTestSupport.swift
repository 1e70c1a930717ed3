import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import TwitterProvider
@testable import TwitterSandbox

/// The Twitter tests' fixtures (our own bodies in the real APIs' shapes) and helpers.
enum TwitterFixtures {
    static let folder = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter")

    static func data(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    static func json(_ name: String) throws -> JSONValue { try JSONParser().parse(data(name)) }

    static func response(_ name: String, status: Int = 200) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: try data(name))
    }
}

/// The fixed clock of `testFetchOptions()`: 2025-11-29 14:03:00 UTC.
let twitterTestNow = Date(timeIntervalSince1970: 1_764_424_980)

/// A query as the CLI builds it, already configured unless `configured` is false.
func twitterQuery(
    _ username: String = "orbitalnotes", api: String = "v2", exclude: [String]? = nil, limit: Int = 20,
    environment: [String: String] = TwitterSandbox.sandboxEnvironment,
    baseURL: URL = URL(string: "http://sandbox.localhost/twitter")!, configured: Bool = true
) throws -> Query {
    var parameters = JSONObject()
    parameters["api"] = .string(api)
    parameters["username"] = .string(username)
    if let exclude { parameters["exclude"] = .array(exclude.map(JSONValue.string)) }
    var query = Query(
        provider: "twitter", operation: "timeline", parameters: parameters, limit: limit, baseURL: baseURL,
        environment: environment, now: twitterTestNow)
    if configured { try TwitterProvider().configure(&query) }
    return query
}

/// A fetcher over the in-process sandbox that records every request it sends.
func sandboxFetcher(
    log: RequestLog, limit: Int = 20, settings: [String: String] = [:], cache: RunCache = RunCache(), events: EventLog? = nil
) throws -> Fetcher {
    let sandbox = SandboxTransport(catalog: try SandboxCatalog([TwitterProvider.self], sandboxes: [TwitterSandbox.self]), settings: settings)
    let transport = FakeTransport { request in
        log.append(request)
        return try await sandbox.send(request)
    }
    return Fetcher(transport: transport, options: testFetchOptions(events: events), source: .offline, cache: cache)
}

/// A plain response for error-mapping tests.
func twitterResponse(_ status: Int, _ body: String, headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]) -> HTTPResponse {
    HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
}
