import AggregateCore
import AggregateHTTP
import AggregateImport
import AggregateJSON
import AggregateScaffold
import Foundation
import Testing

/// The recording importer on cassettes made here: each paginator read from how the requests followed each other,
/// the auth from what the recorder redacted, and the verification replaying the cassette through the result.
@Suite struct RecordingImporterTests {
    static let origin = "https://api.shelf.example"

    /// A recorded 200 answer to `url` with `body`.
    func exchange(_ url: String, _ body: JSONValue, headers: HTTPHeaders = ["Content-Type": "application/json"], request: HTTPHeaders = [:]) -> Cassette.Exchange {
        Cassette.Exchange(
            provider: "get", startedAt: Date(), durationMs: 1, request: Cassette.Request(method: "GET", url: url, headers: request),
            outcome: .response(status: 200, headers: headers, body: JSONWriter().data(body)))
    }

    func books(_ range: ClosedRange<Int>) -> JSONValue {
        .array(range.map { ["book_id": .int($0), "title": .string("Book \($0)"), "published": .string("2024-01-0\($0 % 9 + 1)T00:00:00Z")] })
    }

    func imported(_ exchanges: [Cassette.Exchange], credentials: [String] = []) throws -> RecordingImport {
        try RecordingImporter.infer(
            Cassette(recordedAt: Date(), credentialVariables: credentials, exchanges: exchanges), name: try ScaffoldName(validating: "shelf"),
            source: "/tmp/shelf/cassette.json")
    }

    func firstOperation(_ result: RecordingImport) -> JSONValue? { result.imported.definition["operations"]?[0] }

    func verified(_ result: RecordingImport, _ exchanges: [Cassette.Exchange]) async -> RecordingVerification.Outcome {
        await RecordingVerification.verify(
            result, cassette: Cassette(recordedAt: Date(), exchanges: exchanges), file: URL(fileURLWithPath: "/tmp/shelf/cassette.json"))
    }

    @Test func anOffsetSteppingByThePageIsAnOffsetPaginator() async throws {
        let exchanges = [
            exchange("\(Self.origin)/v2/books?q=swift&offset=0&limit=3", ["count": 7, "data": ["books": books(1...3)]]),
            exchange("\(Self.origin)/v2/books?q=swift&offset=3&limit=3", ["count": 7, "data": ["books": books(4...6)]]),
            exchange("\(Self.origin)/v2/books?q=swift&offset=6&limit=3", ["count": 7, "data": ["books": books(7...7)]]),
        ]
        let result = try imported(exchanges)
        #expect(result.imported.definition["baseURL"] == "https://api.shelf.example/v2")
        let operation = try #require(firstOperation(result))
        #expect(operation["name"] == "books")
        #expect(operation["kind"] == "book")
        #expect(operation["records"] == "data.books")
        #expect(operation["request"] == ["path": "/books", "query": ["q": "{q}"]])
        #expect(operation["pagination"] == ["kind": "offset", "parameter": "offset", "pageSize": 3, "pageSizeParameter": "limit", "totalCountPath": "count", "maxPages": 10])
        #expect(operation["item"]?["id"] == "book_id")
        #expect(operation["item"]?["createdAt"] == "published")
        #expect(result.imported.samples.map(\.pages.count) == [3])
        #expect(result.runs[0].expected.map(\.id) == (1...7).map(String.init))
        let outcome = await verified(result, exchanges)
        #expect(outcome.differences == [])
        #expect(outcome.summary == "verified: 7 items from 3 exchanges match")
    }

    @Test func aCursorFromThePreviousBodyIsACursorPaginator() async throws {
        let exchanges = [
            exchange("\(Self.origin)/books?page_size=3", ["results": books(1...3), "meta": ["next_token": "abc"]]),
            exchange("\(Self.origin)/books?after=abc&page_size=3", ["results": books(4...6), "meta": ["next_token": "def"]]),
            exchange("\(Self.origin)/books?after=def&page_size=3", ["results": books(7...8), "meta": ["next_token": ""]]),
        ]
        let result = try imported(exchanges)
        let operation = try #require(firstOperation(result))
        #expect(operation["pagination"] == ["kind": "cursor", "parameter": "after", "cursorPath": "meta.next_token", "pageSize": 3, "pageSizeParameter": "page_size"])
        #expect(operation["parameters"] == nil, "the page size and the cursor are the paginator's")
        let outcome = await verified(result, exchanges)
        #expect(outcome.differences == [])
        #expect(outcome.exchanges == 3)
    }

    @Test func aPageNumberCountingUpIsAPageNumberPaginatorAndIdsInThePathArePositional() async throws {
        let exchanges = [
            exchange("\(Self.origin)/users/8812/books?sort=new&page=1", ["total_pages": 2, "books": books(1...2)]),
            exchange("\(Self.origin)/users/8812/books?sort=new&page=2", ["total_pages": 2, "books": books(3...3)]),
        ]
        let result = try imported(exchanges)
        let operation = try #require(firstOperation(result))
        #expect(operation["request"] == ["path": "/users/{user-id}/books", "query": ["sort": "{sort}"]])
        #expect(operation["pagination"] == ["kind": "pageNumber", "parameter": "page", "firstPage": 1, "pageSize": 2, "totalPagesPath": "total_pages"])
        #expect(operation["parameters"]?[0]?["positional"] == true)
        #expect(result.imported.definition["examples"]?[0]?["arguments"] == ["shelf", "books", "8812", "--sort", "new", "--limit", "3"])
        let outcome = await verified(result, exchanges)
        #expect(outcome.differences == [])
    }

    @Test func pagingParametersBeforeTheOperationsOwnAreReported() async throws {
        let exchanges = [
            exchange("\(Self.origin)/books?page=1&sort=new", ["total_pages": 2, "books": books(1...2)]),
            exchange("\(Self.origin)/books?page=2&sort=new", ["total_pages": 2, "books": books(3...3)]),
        ]
        let result = try imported(exchanges)
        #expect(result.imported.report.notes.contains { $0.message.hasPrefix("the recorded URL sends page before sort, the engine after it") })
        let outcome = await verified(result, exchanges)
        #expect(outcome.differences.count == 1)
        #expect(outcome.differences.first?.contains("has no recorded answer for GET https://api.shelf.example/books?sort=new&page=1") == true)
    }

    @Test func theDefaultNameIsTheHostsOrTheRecordedProvidersAndNeverABuiltInOne() throws {
        func name(_ url: String, provider: String = "get", taken: Set<String> = []) throws -> String {
            let recorded = Cassette.Exchange(
                provider: provider, startedAt: Date(), durationMs: 1, request: Cassette.Request(method: "GET", url: url),
                outcome: .response(status: 200, headers: [:], body: JSONWriter().data(["books": books(1...2)])))
            return try RecordingImporter.infer(Cassette(recordedAt: Date(), exchanges: [recorded]), name: nil, taken: taken, source: "c").imported.name.name
        }
        #expect(try name("https://api.shelf.example/books") == "shelf")
        #expect(try name("https://api.shelf.example/books", taken: ["shelf"]) == "shelf-imported")
        #expect(try name("http://127.0.0.1:8787/github/books", provider: "github", taken: ["github"]) == "github-imported")
        #expect(try name("http://127.0.0.1:8787/books") == "imported")
    }

    @Test func aRedactedQueryParameterOrHeaderIsTheAuth() throws {
        let query = try imported([exchange("\(Self.origin)/books?api_key=***&q=a", ["books": books(1...2)])], credentials: ["SHELF_KEY"])
        #expect(query.imported.definition["auth"] == [["variable": "SHELF_KEY", "in": "query", "parameter": "api_key", "required": false]])
        #expect(firstOperation(query)?["request"]?["query"] == ["q": "{q}"], "the credential is no parameter")
        let bearer = try imported([exchange("\(Self.origin)/books", ["books": books(1...2)], request: ["Authorization": "Bearer ***", "Accept": "application/json"])])
        #expect(bearer.imported.definition["auth"] == [["variable": "SHELF_TOKEN", "in": "bearer", "required": false]])
        #expect(bearer.imported.definition["headers"] == ["Accept": "application/json"])
        let header = try imported([exchange("\(Self.origin)/books", ["books": books(1...2)], request: ["X-Api-Key": "***"])])
        #expect(header.imported.definition["auth"]?[0]?["parameter"] == "X-Api-Key")
    }

    @Test func aMismatchIsReportedWithThePosition() async throws {
        let exchanges = [exchange("\(Self.origin)/books", ["books": books(1...2)])]
        var result = try imported(exchanges)
        result.runs[0].expected[1].title = "Another"
        let outcome = await verified(result, exchanges)
        #expect(outcome.differences == ["books: item 2 is 2 \"Book 2\" in the replay but 2 \"Another\" in the recorded body"])
        #expect(outcome.summary.hasPrefix("not verified: 1 difference"))
    }

    @Test func cassettesWithNothingToImportAreDataErrors() throws {
        func failure(_ exchanges: [Cassette.Exchange]) -> AggregateError? {
            do {
                _ = try imported(exchanges)
                return nil
            } catch {
                return error as? AggregateError
            }
        }
        #expect(failure([])?.kind == .invalidInput)
        #expect(failure([])?.message.contains("holds no exchanges") == true)
        let html = Cassette.Exchange(
            provider: "get", startedAt: Date(), durationMs: 1, request: Cassette.Request(method: "GET", url: "\(Self.origin)/"),
            outcome: .response(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html></html>".utf8)))
        #expect(failure([html])?.message.contains("the body is not JSON (text/html)") == true)
        let refused = Cassette.Exchange(
            provider: "get", startedAt: Date(), durationMs: 1, request: Cassette.Request(method: "GET", url: "\(Self.origin)/books"),
            outcome: .response(status: 503, headers: [:], body: Data("{}".utf8)))
        let dropped = Cassette.Exchange(
            provider: "get", startedAt: Date(), durationMs: 1, request: Cassette.Request(method: "GET", url: "\(Self.origin)/books"),
            outcome: .failure(.network, message: "connection reset"))
        #expect(failure([refused, dropped])?.message.contains("none is a successful GET with a JSON body") == true)
        #expect(failure([exchange("\(Self.origin)/books", ["count": 3])])?.message.contains("no JSON body with an array of records") == true)
    }
}
