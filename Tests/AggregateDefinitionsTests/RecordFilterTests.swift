@testable import AggregateCore
@testable import AggregateDefinitions
@testable import AggregateJSON
import Foundation
import Testing

/// An operation's `filter`: each test on a raw record, the combinators, the reader's pointer-named problems, and a
/// page the filter empties still pointing at the next page.
@Suite struct RecordFilterTests {
    typealias Loader = DefinitionLoaderTests

    static func filter(_ json: JSONValue) throws(DefinitionProblem) -> RecordFilter {
        try RecordFilter(reading: DefinitionReader(json, pointer: "/operations/0/filter"))
    }

    static let repository: JSONValue = [
        "name": "swift", "fork": false, "stargazers_count": 12, "score": "3.5", "topics": ["swift", "cli"],
        "description": "A Swift tool", "license": .null,
    ]

    static let tests: [(JSONValue, Bool)] = [
        (["path": "fork", "equals": false], true),
        (["path": "fork", "equals": true], false),
        (["path": "stargazers_count", "equals": 12.0], true),
        (["path": "stargazers_count", "atLeast": 10], true),
        (["path": "stargazers_count", "atLeast": 13], false),
        (["path": "stargazers_count", "atMost": 12], true),
        (["path": "score", "atLeast": 3], true),
        (["path": "topics", "contains": "cli"], true),
        (["path": "topics", "contains": "rust"], false),
        (["path": "description", "contains": "Swift"], true),
        (["path": "license", "exists": false], true),
        (["path": "missing", "exists": false], true),
        (["path": "name", "exists": true], true),
        (["path": "missing", "equals": "x"], false),
        (["path": "missing", "atLeast": 0], false),
        (["all": [["path": "fork", "equals": false], ["path": "stargazers_count", "atLeast": 10]]], true),
        (["all": [["path": "fork", "equals": false], ["path": "stargazers_count", "atLeast": 100]]], false),
        (["any": [["path": "fork", "equals": true], ["path": "topics", "contains": "swift"]]], true),
        (["not": ["path": "topics", "contains": "swift"]], false),
    ]

    @Test(arguments: Self.tests)
    func eachTestReadsTheRawRecord(_ json: JSONValue, _ accepted: Bool) throws {
        #expect(try Self.filter(json).accepts(Self.repository) == accepted)
    }

    static let mistakes: [(JSONValue, String, String)] = [
        (["path": "fork"], "/operations/0/filter", "needs exactly one test of equals, atLeast, atMost, contains, exists (found none)"),
        (["path": "fork", "equals": false, "exists": true], "/operations/0/filter", "(found equals, exists)"),
        (["equals": false], "/operations/0/filter", "misses the required field 'path'"),
        (["path": "fork", "same": false], "/operations/0/filter/same", "is not a field here"),
        (["path": "points", "atLeast": "ten"], "/operations/0/filter/atLeast", "must be a number, not string"),
        (["path": "fork", "exists": "yes"], "/operations/0/filter/exists", "must be true or false"),
        (["path": "fork", "equals": ["a"]], "/operations/0/filter/equals", "must be a string, number, boolean or null, not array"),
        (["path": "a..b", "equals": 1], "/operations/0/filter/path", "is not a JSON path"),
        (["all": []], "/operations/0/filter/all", "must hold at least 1 element"),
        (["any": [["path": "x", "equals": 1], ["path": "y"]]], "/operations/0/filter/any/1", "needs exactly one test"),
        (["not": ["path": "x", "equals": 1], "path": "y"], "/operations/0/filter/path", "is not a field here (fields: not)"),
        ("fork", "/operations/0/filter", "must be an object, not string"),
    ]

    @Test(arguments: Self.mistakes)
    func aMalformedFilterNamesItsPointer(_ json: JSONValue, _ pointer: String, _ words: String) {
        do {
            _ = try Self.filter(json)
            Issue.record("\(json) was read as a filter")
        } catch {
            #expect(error.pointer == pointer)
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    @Test func theLoaderReadsAFilterAndNamesItsPointerInTheDocument() throws {
        let problem = Loader.problem { Loader.set(&$0, ["operations", 0, "filter"], ["path": "fork", "atMost": true]) }
        #expect(problem == DefinitionProblem("/operations/0/filter/atMost", "must be a number, not bool"))
        var document = JSONValue.object(Loader.valid())
        Loader.set(&document, ["operations", 0, "filter"], ["path": "fork", "equals": false])
        let definition = try ProviderDefinition(json: JSONWriter().data(document))
        #expect(definition.operations[0].filter == .equals(try JSONPath(parsing: "fork"), .bool(false)))
    }

    /// Filtered-out records are not items, but the paging still counts the records the API sent: a full page that the
    /// filter empties points at the next page, so the fetch layer keeps going.
    @Test func aPageTheFilterEmptiesStillHasANextPage() throws {
        var document = JSONValue.object(Loader.valid())
        Loader.set(&document, ["operations", 0, "pagination"], ["kind": "pageNumber", "parameter": "page", "pageSize": 2, "maxPages": 5])
        Loader.set(&document, ["operations", 0, "filter"], ["path": "fork", "equals": false])
        let provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(document)))
        let query = Query(provider: "bookshelf", operation: "search", parameters: ["query": "x"], baseURL: URL(string: "https://api.bookshelf.example")!)
        let body = #"{"results": [{"id": 1, "title": "a", "fork": true}, {"id": 2, "title": "b", "fork": true}]}"#
        let empty = try provider.normalize(HTTPResponse(status: 200, body: Data(body.utf8), url: URL(string: "https://api.bookshelf.example/v1/books?page=1")), for: query)
        #expect(empty.items.isEmpty)
        #expect(empty.next == .cursor("2"))
        let mixed = #"{"results": [{"id": 3, "title": "c", "fork": false}, {"id": 4, "title": "d", "fork": true}]}"#
        let page = try provider.normalize(HTTPResponse(status: 200, body: Data(mixed.utf8), url: URL(string: "https://api.bookshelf.example/v1/books?page=2")), for: query)
        #expect(page.items.map(\.id) == ["3"])
        #expect(page.next == .cursor("3"))
    }
}
