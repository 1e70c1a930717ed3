import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import TMDbProvider
@testable import TMDbSandbox

/// Shared helpers for the TMDb tests.
enum TMDbFixtures {
    static let folder = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/tmdb")

    /// The fixture `name` (without `.json`) parsed.
    static func json(_ name: String) throws -> JSONValue {
        try JSONParser().parse(Data(contentsOf: folder.appendingPathComponent(name + ".json")))
    }

    /// A response carrying the fixture `name`.
    static func response(_ name: String, status: Int = 200, url: String = "https://api.themoviedb.org/3/search/movie?query=x&page=1") throws -> HTTPResponse {
        HTTPResponse(status: status, body: try Data(contentsOf: folder.appendingPathComponent(name + ".json")), url: URL(string: url))
    }

    /// A response with `body` as its text.
    static func response(text body: String, status: Int, headers: HTTPHeaders = ["Content-Type": "application/json;charset=utf-8"]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    /// A query for `operation`, configured with `environment` the way the fetch layer does it.
    static func query(
        _ operation: String, parameters: JSONObject = JSONObject(), limit: Int = 20,
        environment: [String: String] = ["TMDB_API_KEY": TMDbSandbox.apiKey], source: DataSource = .live
    ) throws -> Query {
        var query = Query(
            provider: "tmdb", operation: operation, parameters: parameters, limit: limit,
            baseURL: URL(string: "https://api.themoviedb.org/3")!, environment: environment, source: source)
        try TMDbProvider().configure(&query)
        return query
    }
}

/// A transport that answers from the TMDb sandbox in-process and records every request it sees.
struct RecordingSandboxTransport: HTTPTransport {
    let log = RequestLog()
    let inner: SandboxTransport

    init(settings: [String: String] = [:]) throws {
        inner = SandboxTransport(catalog: try SandboxCatalog([TMDbProvider.self], sandboxes: [TMDbSandbox.self]), settings: settings)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.append(request)
        return try await inner.send(request)
    }

    /// The paths requested, e.g. `/tmdb/movie/popular`, with their `page` parameter when there is one.
    var requestedPages: [String] {
        log.requests.map { request in
            request.url.path + (request.url.queryValue("page").map { "#\($0)" } ?? "")
        }
    }
}

extension Item {
    /// The `extra` member `key`.
    func extraValue(_ key: String) -> JSONValue? { extra[key] }
}
