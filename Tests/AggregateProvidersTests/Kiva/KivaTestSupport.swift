import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import KivaProvider
@testable import KivaSandbox

/// Fixtures and helpers shared by the Kiva tests.
enum KivaFixtures {
    static let folder = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/kiva")

    /// The fixture `name` parsed as JSON.
    static func json(_ name: String) throws -> JSONValue {
        try JSONParser().parse(Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// The fixture `name` as a response body.
    static func response(_ name: String, status: Int = 200, headers: HTTPHeaders = [:]) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// A configured Kiva query against the in-process sandbox's address.
    static func query(
        _ operation: String = "newest", api: String = "graphql", parameters: JSONObject = JSONObject(), limit: Int = 20,
        environment: [String: String] = [:], baseURL: URL = URL(string: "http://sandbox.localhost/kiva")!
    ) throws -> Query {
        var values = parameters
        values["api"] = .string(api)
        if operation == "search", values["status"] == nil { values["status"] = "fundraising" }
        var query = Query(
            provider: "kiva", operation: operation, parameters: values, limit: limit, baseURL: baseURL, environment: environment)
        try KivaProvider().configure(&query)
        return query
    }

    /// A sandbox request for `path?query`.
    static func request(_ path: String, method: String = "GET", query: [(String, String)] = [], body: JSONValue? = nil) -> SandboxRequest {
        SandboxRequest(
            method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: body == nil ? [:] : ["Content-Type": "application/json"],
            body: body.map { JSONWriter().data($0) } ?? Data())
    }

    /// The sandbox's answer to `request`.
    static func sandbox(_ request: SandboxRequest) -> SandboxResponse? {
        KivaSandbox.sandboxResponse(for: request, context: SandboxContext(baseURL: URL(string: "http://sandbox.localhost/kiva")!))
    }

    /// A GraphQL request body for the provider's loans document.
    static func graphQLBody(variables: JSONObject, document: String = KivaGraphQL.loans(withQueryString: false)) -> JSONValue {
        ["query": .string(document), "variables": .object(variables)]
    }
}

extension SandboxResponse {
    /// The body as JSON (a test failure when it is not).
    var parsedBody: JSONValue { (try? JSONParser().parse(body)) ?? .null }
}

/// A transport that answers from Kiva's sandbox in-process, except for the first few requests, which get the
/// sandbox's fault response for the given statuses (as the socket server's fault injector would send them).
final class FaultingSandboxTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var faults: [(status: Int, headers: HTTPHeaders)]
    private var seen: [HTTPRequest] = []
    private let sandbox: SandboxTransport

    init(faults: [(status: Int, headers: HTTPHeaders)] = []) throws {
        self.faults = faults
        self.sandbox = SandboxTransport(catalog: try SandboxCatalog([KivaProvider.self], sandboxes: [KivaSandbox.self]))
    }

    /// The requests sent so far.
    var requests: [HTTPRequest] { lock.withLock { seen } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fault = lock.withLock { () -> (status: Int, headers: HTTPHeaders)? in
            seen.append(request)
            return faults.isEmpty ? nil : faults.removeFirst()
        }
        guard let fault else { return try await sandbox.send(request) }
        var sandboxRequest = SandboxRequest(method: request.method, url: request.url, headers: request.headers, body: request.body ?? Data())
        sandboxRequest.path = String(sandboxRequest.path.dropFirst("/kiva".count))
        let context = SandboxContext(baseURL: URL(string: "http://sandbox.localhost/kiva")!)
        var response = KivaSandbox.sandboxFaultResponse(status: fault.status, request: sandboxRequest, context: context)
            ?? SandboxResponse(status: fault.status)
        for field in fault.headers { response.headers[field.name] = field.value }
        return HTTPResponse(status: response.status, headers: response.headers, body: response.body, url: request.url)
    }
}
