// Providers/Bookshelf/Sandbox/BookshelfSandbox.swift
import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
import Foundation

/// The Bookshelf API's emulator: `GET /v1/books` over a few sample books, with its auth and errors.
public enum BookshelfSandbox: RoutedSandbox {
    public static let providerName = "bookshelf"
    public static let sandboxEnvironment = ["BOOKSHELF_TOKEN": "sandbox-bookshelf-token"]
    public static let routes = SandboxRoutes([SandboxRoute("GET", "/v1/books", books)])

    /// The sample books (in a real provider: `SampleData/books.json`, compiled in by the sample-data test).
    static let samples: [JSONValue] = (1...45).map { number in
        ["id": .int(number), "title": .string("Swift Notes, volume \(number)"), "author": "Ada Byron", "url": .string("https://bookshelf.example/books/\(number)")]
    } + [["id": 46, "title": "Learning Go", "author": "Jon Bodner"]]

    static func books(_ request: SandboxRequest, _ context: SandboxContext, _ segments: [String]) throws -> SandboxResponse {
        try request.requireBearer(sandboxEnvironment["BOOKSHELF_TOKEN"] ?? "") { _ in error(401, "unauthorized", "A valid bearer token is required") }
        let page = try request.integer("page", default: 1, in: 1...1000) { error(400, "invalid_page", "page must be 1-1000, not '\($0)'") }
        let words = (request.queryValue("q") ?? "").lowercased()
        let matches = samples.filter { ($0["title"]?.string ?? "").lowercased().contains(words) }
        return .json([
            "page": .int(page), "total_pages": .int(SandboxPaging.pageCount(matches.count, size: 20)),
            "total_results": .int(matches.count), "results": .array(Array(SandboxPaging.page(matches, number: page, size: 20))),
        ])
    }

    /// Injected faults answer in the API's error shape.
    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        error(status, "fault", HTTPStatus.reason(status))
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> SandboxResponse {
        .json(["error": ["code": .string(code), "message": .string(message)]], status: status)
    }
}
