@testable import AggregateCore
@testable import AggregateDefinitions
@testable import AggregateJSON
import Foundation
import Testing

/// An operation's `parent`: what the loader reads and refuses (with pointers), the cost it adds for
/// `aggregate sql --plan`, the keyed samples, and the fan-out's steps (parent page, each child's pages, the next
/// parent page) as the engine reads responses.
@Suite struct ParentRequestTests {
    typealias Loader = DefinitionLoaderTests

    /// The loader's valid definition (`search`, 20 a page) plus `shelf`: each search result's shelf, by its `slug`.
    static func document(_ parent: JSONValue = ["operation": "search", "parameters": ["slug": "slug"], "fields": ["book": "title"], "limit": 3]) -> JSONValue {
        var document = JSONValue.object(Loader.valid())
        let child: JSONValue = [
            "name": "shelf", "summary": "The shelf of each book found.", "kind": "shelf",
            "parameters": [["name": "query", "positional": true, "required": true, "help": "Words."]],
            "parent": parent,
            "request": ["path": "/v1/books/{slug}/shelf", "query": ["of": "{slug}"]],
            "pagination": ["kind": "link", "pageSize": 10],
            "records": "items", "item": ["id": "id", "title": "name"],
        ]
        Loader.set(&document, ["operations"], .array((document["operations"]?.array ?? []) + [child]))
        return document
    }

    static func problem(_ document: JSONValue) -> DefinitionProblem? {
        do {
            _ = try ProviderDefinition(json: JSONWriter().data(document))
            return nil
        } catch {
            return error
        }
    }

    @Test func theLoaderReadsTheParentAndCountsItsRequests() throws {
        let definition = try ProviderDefinition(json: JSONWriter().data(Self.document()))
        let shelf = try #require(definition.operation(named: "shelf"))
        #expect(shelf.parent?.operation == "search")
        #expect(shelf.parent?.parameters.map(\.name) == ["slug"])
        #expect(shelf.parent?.fields.map(\.name) == ["book"])
        #expect(shelf.parent?.limit == 3)
        // One parent page (20 a page covers the cap of 3) and one request per parent beyond full child pages.
        #expect(shelf.descriptor.cost == RequestCost(pageSize: 10, lookups: 1 + 3))
        #expect(shelf.descriptor.parameters.map(\.name) == ["query"], "what the parent fills is not a command-line parameter")
        #expect(definition.operation(named: "search")?.descriptor.cost == RequestCost(pageSize: 20))
    }

    static let mistakes: [(JSONValue, String, String)] = [
        (["operation": "nothing", "parameters": ["slug": "slug"], "limit": 3], "/operations/1/parent/operation",
         "'nothing' is not another operation of this definition (operations: search)"),
        (["operation": "shelf", "parameters": ["slug": "slug"], "limit": 3], "/operations/1/parent/operation", "'shelf' is not another operation"),
        (["operation": "search", "parameters": ["slug": "slug"], "limit": 0], "/operations/1/parent/limit", "must be between 1 and 1000"),
        (["operation": "search", "parameters": ["slug": "slug"]], "/operations/1/parent", "misses the required field 'limit'"),
        (["operation": "search", "parameters": [:], "limit": 3], "/operations/1/parent/parameters", "must name at least one parameter"),
        (["operation": "search", "parameters": ["query": "title"], "limit": 3], "/operations/1/parent/parameters/query",
         "'query' is a parameter of this operation"),
        (["operation": "search", "parameters": ["slug": "a..b"], "limit": 3], "/operations/1/parent/parameters/slug", "is not a JSON path"),
        (["operation": "search", "parameters": ["slug": "slug"], "limit": 3, "each": true], "/operations/1/parent/each", "is not a field here"),
    ]

    @Test(arguments: Self.mistakes)
    func aMalformedParentNamesItsPointer(_ parent: JSONValue, _ pointer: String, _ words: String) throws {
        let problem = try #require(Self.problem(Self.document(parent)))
        #expect(problem.pointer == pointer)
        #expect(problem.message.contains(words), "\(problem.message)")
    }

    @Test func theChildsTemplatesMayNameOnlyItsParametersAndWhatTheParentFills() throws {
        var document = Self.document(["operation": "search", "parameters": ["slug": "slug"], "limit": 3])
        Loader.set(&document, ["operations", 1, "request", "path"], "/v1/books/{slugg}/shelf")
        let problem = try #require(Self.problem(document))
        #expect(problem.pointer == "/operations/1/request/path")
        #expect(problem.message.contains("the template names 'slugg', which is not a parameter of 'shelf' (declared: query, slug)"), "\(problem.message)")
    }

    @Test func theParentsRequiredParametersMustBeTheChilds() throws {
        var document = Self.document()
        Loader.set(&document, ["operations", 1, "parameters"], [])
        #expect(Self.problem(document) == DefinitionProblem("/operations/1/parent/operation", "'search' needs the parameter 'query', which 'shelf' does not declare"))
    }

    @Test func aParentWithAParentOfItsOwnIsRefused() throws {
        var document = Self.document()
        var operations = document["operations"]?.array ?? []
        var grandchild = operations[1]
        Loader.set(&grandchild, ["name"], "tiers")
        Loader.set(&grandchild, ["parent", "operation"], "shelf")
        operations.append(grandchild)
        Loader.set(&document, ["operations"], .array(operations))
        #expect(Self.problem(document) == DefinitionProblem("/operations/2/parent/operation", "'shelf' has a parent itself; a parent must be a plain operation"))
    }

    @Test func keyedSamplesNameAPathPlaceholder() throws {
        var document = Self.document()
        Loader.set(&document, ["samples"], ["shelf?slug=dune": ["SampleData/dune.json"], "search": ["SampleData/search.json"]])
        let definition = try ProviderDefinition(json: JSONWriter().data(document))
        #expect(definition.hasSamples(for: "shelf"))
        #expect(SampleKey.parse("shelf?slug=dune")! == ("shelf", "slug", "dune"))
        Loader.set(&document, ["samples"], ["shelf?title=dune": ["SampleData/dune.json"]])
        #expect(Self.problem(document) == DefinitionProblem(
            "/samples/shelf?title=dune", "'title' is not a placeholder of the path of 'shelf' (placeholders: slug)"))
    }

    /// The engine's steps, read off the responses: the parent page gives no items but queues its records (up to the
    /// cap), each child page carries the parent's fields, and after the last child comes the end.
    @Test func theFanOutPagesThroughTheParentThenEachChild() async throws {
        let provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(Self.document())))
        var query = Query(provider: "bookshelf", operation: "shelf", parameters: ["query": "dune"], baseURL: URL(string: "https://api.bookshelf.example")!)
        try await provider.resolve(&query, using: FetchClient { _ in HTTPResponse(status: 500) })

        let first = try provider.request(for: query, cursor: nil, remaining: 20)
        #expect(first.url.absoluteString == "https://api.bookshelf.example/v1/books?q=dune&page=1")
        let parents = #"{"total_pages": 1, "results": [{"id": 1, "slug": "dune", "title": "Dune"}, {"id": 2, "title": "No slug"}, {"id": 3, "slug": "emma", "title": "Emma"}, {"id": 4, "slug": "dune", "title": "Dune again"}]}"#
        let parentPage = try provider.normalize(HTTPResponse(status: 200, body: Data(parents.utf8), url: first.url), for: query)
        #expect(parentPage.items.isEmpty)
        guard case .cursor(let toDune)? = parentPage.next else { throw AggregateError(.decoding, "no next page after the parent") }

        let dune = try provider.request(for: query, cursor: toDune, remaining: 20)
        #expect(dune.url.absoluteString == "https://api.bookshelf.example/v1/books/dune/shelf?of=dune")
        let duneBody = #"{"items": [{"id": "s1", "name": "Top shelf"}]}"#
        let dunePage = try provider.normalize(HTTPResponse(status: 200, body: Data(duneBody.utf8), url: dune.url), for: query)
        #expect(dunePage.items.map(\.id) == ["s1"])
        #expect(dunePage.items.first?.extra["book"] == .string("Dune"))
        guard case .cursor(let toEmma)? = dunePage.next else { throw AggregateError(.decoding, "no next page after dune") }

        let emma = try provider.request(for: query, cursor: toEmma, remaining: 19)
        #expect(emma.url.absoluteString == "https://api.bookshelf.example/v1/books/emma/shelf?of=emma", "the record without a slug and the repeated one are skipped")
        let emmaPage = try provider.normalize(HTTPResponse(status: 200, body: Data(#"{"items": []}"#.utf8), url: emma.url), for: query)
        #expect(emmaPage.items.isEmpty)
        #expect(emmaPage.next == nil, "one parent page only, so the run ends after the last child")

        let failure = provider.error(for: HTTPResponse(status: 404, body: Data(#"{"message": "gone"}"#.utf8), url: emma.url), query: query)
        #expect(failure.message.hasSuffix("(the request for slug 'emma', from a record of 'search')"), "\(failure.message)")
    }

    @Test func aParentWithoutRecordsEndsTheRunAtOnce() async throws {
        let provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(Self.document())))
        var query = Query(provider: "bookshelf", operation: "shelf", parameters: ["query": "nothing"], baseURL: URL(string: "https://api.bookshelf.example")!)
        try await provider.resolve(&query, using: FetchClient { _ in HTTPResponse(status: 500) })
        let first = try provider.request(for: query, cursor: nil, remaining: 20)
        let page = try provider.normalize(HTTPResponse(status: 200, body: Data(#"{"total_pages": 0, "results": []}"#.utf8), url: first.url), for: query)
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test func aCursorThatIsNotTheFanOutsIsAUsageError() throws {
        let provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(Self.document())))
        let query = Query(provider: "bookshelf", operation: "shelf", parameters: ["query": "x"], baseURL: URL(string: "https://api.bookshelf.example")!)
        #expect(throws: AggregateError.self) { try provider.request(for: query, cursor: "7", remaining: 20) }
    }
}
