import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
@testable import MessageBoardProvider
@testable import MessageBoardSandbox

/// Shared pieces of the message board tests.
enum MessageBoardTesting {
    /// 2026-11-29T14:03:00Z, the moment every test post is made.
    static let now = Date(timeIntervalSince1970: 1_795_960_980)
    static let baseURL = URL(string: "http://127.0.0.1:3000")!

    /// Fetch options with a fixed clock and no real waiting.
    static func options(events: EventLog? = nil) -> FetchOptions {
        var options = testFetchOptions(events: events)
        options.now = { now }
        return options
    }

    static func query(_ operation: String, name: String? = nil, message: String? = nil, limit: Int = 20, baseURL: URL = baseURL) -> Query {
        var parameters = JSONObject()
        parameters.set("name", name.map(JSONValue.string))
        parameters.set("message", message.map(JSONValue.string))
        return Query(provider: "messageboard", operation: operation, parameters: parameters, limit: limit, baseURL: baseURL)
    }

    /// The request the provider builds for a post made at `date` (its plan included).
    static func postRequest(baseURL: URL, name: String, message: String, date: Date) throws -> HTTPRequestSpec {
        var query = query("post", name: name, message: message, baseURL: baseURL)
        query.now = date
        try MessageBoardProvider().configure(&query)
        return try MessageBoardProvider().request(for: query, cursor: nil, remaining: 1)
    }

    /// Runs the provider through the shared fetch layer.
    static func run(
        _ operation: String, name: String? = nil, message: String? = nil, limit: Int = 20, transport: any HTTPTransport,
        baseURL: URL = baseURL, events: EventLog? = nil
    ) async -> ProviderResult {
        await Fetcher(transport: transport, options: options(events: events))
            .run(MessageBoardProvider(), query: query(operation, name: name, message: message, limit: limit, baseURL: baseURL))
    }

    /// A transport that records every request and answers with `status`, `body` and `headers`.
    static func answering(_ status: Int, _ body: String, headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"], log: RequestLog) -> FakeTransport {
        FakeTransport { request in
            log.append(request)
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8), url: request.url)
        }
    }

    /// A fresh, empty directory for a sandbox store.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("messageboard-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The sandbox board's answer to one request, in-process.
    static func sandbox(
        _ method: String, _ path: String, body: String? = nil, contentType: String? = "application/json",
        accept: String? = "application/json", store: SandboxStore?, settings: [String: String] = [:]
    ) -> SandboxResponse? {
        var headers: HTTPHeaders = [:]
        if let accept { headers["Accept"] = accept }
        if body != nil, let contentType { headers["Content-Type"] = contentType }
        let request = SandboxRequest(
            method: method, url: URL(string: "http://127.0.0.1:3000" + path)!, headers: headers, body: Data((body ?? "").utf8))
        let context = SandboxContext(baseURL: baseURL, now: now, store: store, settings: settings)
        return MessageBoardSandbox.sandboxResponse(for: request, context: context)
    }
}

extension SandboxResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONParser().parse(body) }
}
