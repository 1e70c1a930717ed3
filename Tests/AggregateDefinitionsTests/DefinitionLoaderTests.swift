import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation
import Testing

/// Every kind of mistake in a definition is refused with the JSON pointer of the value at fault and what is wrong.
@Suite struct DefinitionLoaderTests {
    /// A small valid definition; each test breaks one thing in it.
    static func valid() -> JSONObject {
        let operation: JSONValue = [
            "name": "search", "summary": "Books.", "kind": "book",
            "parameters": [["name": "query", "positional": true, "required": true, "help": "Words."], ["name": "sort", "type": "enum", "values": ["a", "b"], "help": "Order."]],
            "request": ["path": "/v1/books", "query": ["q": "{query}", "sort": "{sort}"]],
            "pagination": ["kind": "pageNumber", "parameter": "page", "pageSize": 20, "totalPagesPath": "total_pages"],
            "records": "results",
            "item": ["id": "id", "title": "title"],
        ]
        return ["name": "bookshelf", "summary": "Books.", "docsURL": "https://bookshelf.example", "baseURL": "https://api.bookshelf.example", "operations": [operation]]
    }

    /// The problem `change` causes, as the loader words it.
    static func problem(_ change: (inout JSONValue) -> Void) -> DefinitionProblem? {
        var document = JSONValue.object(valid())
        change(&document)
        do {
            _ = try ProviderDefinition(json: JSONWriter().data(document))
            return nil
        } catch {
            return error
        }
    }

    /// `document` with the value at `path` (keys and indexes) set to `value` (`.none` removes it; `nil` is JSON null).
    static func set(_ document: inout JSONValue, _ path: [Any], _ value: JSONValue?) {
        guard let head = path.first else {
            document = value ?? .null
            return
        }
        if let key = head as? String, case .object(var object) = document {
            if path.count == 1 {
                object[key] = value
            } else {
                var inner = object[key] ?? .null
                set(&inner, Array(path.dropFirst()), value)
                object[key] = inner
            }
            document = .object(object)
        } else if let index = head as? Int, case .array(var elements) = document {
            set(&elements[index], Array(path.dropFirst()), value)
            document = .array(elements)
        }
    }

    @Test func theValidDefinitionLoadsAsADescriptor() throws {
        let definition = try ProviderDefinition(json: JSONWriter().data(.object(Self.valid())))
        #expect(definition.descriptor.name == "bookshelf")
        #expect(definition.descriptor.operations.map(\.name) == ["search"])
        #expect(definition.descriptor.operations[0].parameters.map(\.name) == ["query", "sort"])
        #expect(definition.descriptor.operations[0].parameters[0].style == .positional)
        #expect(definition.descriptor.operations[0].parameters[1].type == .choice(["a", "b"]))
        #expect(definition.descriptor.paginationStyle == "numbered pages from 1, 20 a page")
        #expect(definition.descriptor.authStyle == "none")
    }

    @Test func examplesBelongToTheProviderEvenInARenamedCopy() throws {
        var document = Self.valid()
        document["name"] = "gh2"
        document["examples"] = [["arguments": ["bookshelf", "search", "swift"], "summary": "Swift books."]]
        let definition = try ProviderDefinition(json: JSONWriter().data(.object(document)))
        #expect(definition.descriptor.examples.map(\.arguments) == [["gh2", "search", "swift"]])
    }

    @Test func invalidJSONNamesTheDocument() throws {
        do {
            _ = try ProviderDefinition(json: Data(#"{"name": "x",}"#.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.pointer == "/")
            #expect(error.message.hasPrefix("is not valid JSON"))
        }
    }

    @Test(arguments: [
        // (path, value, pointer, words in the message)
        ("operations/0/request/query/q", JSONValue.string("{qeury}"), "/operations/0/request/query/q", "names 'qeury', which is not a parameter of 'search' (declared: query, sort)"),
        ("operations/0/request/path", "/v1/{sort}", "/operations/0/request/path", "neither required nor has a default"),
        ("operations/0/request/path", "/v1/{query", "/operations/0/request/path", "not a template: a '{' is not closed"),
        ("operations/0/records", "results[", "/operations/0/records", "is not a JSON path"),
        ("operations/0/item/title", ["template": "x/{a[}"], "/operations/0/item/title/template", "is not a JSON path"),
        ("operations/0/item/url", ["path": "a", "constant": 1], "/operations/0/item/url", "has both path and constant"),
        ("operations/0/item/summary", ["path": "a", "transform": "shout"], "/operations/0/item/summary/transform", "must be one of date, number, join"),
        ("operations/0/item/id", .none, "/operations/0/item", "misses the required field 'id'"),
        ("operations/0/pagination/kind", "pages", "/operations/0/pagination/kind", "must be one of pageNumber, offset, cursor, link, none"),
        ("operations/0/pagination/totalPagesPath", .none, "/operations/0/pagination", "needs totalPagesPath or maxPages"),
        ("operations/0/pagination/cursorPath", "next", "/operations/0/pagination/cursorPath", "is not a field here"),
        ("operations/0/parameters/1/type", "list", "/operations/0/parameters/1/type", "must be one of string, integer"),
        ("operations/0/parameters/1/default", "c", "/operations/0/parameters/1/default", "is not a valid value"),
        ("operations/0/parameters/1/name", "query", "/operations/0/parameters/1/name", "two parameters are named 'query'"),
        ("name", "Book Shelf", "/name", "must be lower-case letters"),
        ("summary", 3, "/summary", "must be a string, not number"),
        ("colour", "red", "/colour", "is not a field here"),
        ("auth", [["variable": "TOKEN", "in": "query"]], "/auth/0", "misses 'parameter'"),
        ("textView", ["line": "{title} {stars}"], "/textView/line", "'{stars}' is not an item field"),
        ("samples", ["find": ["a.json"]], "/samples/find", "'find' is not an operation"),
        ("examples", [["arguments": [], "summary": "x"]], "/examples/0/arguments", "must hold at least 1 element"),
        ("errors", ["statusKinds": ["42": "usage"]], "/errors/statusKinds/42", "is not an HTTP status"),
        // RFC 6901: '~' and '/' in a key are escaped as ~0 and ~1.
        ("operations/0/request/query/a~b\u{2215}c", "{qeury}", "/operations/0/request/query/a~0b\u{2215}c", "names 'qeury'"),
        ("summary", "  \t", "/summary", "must not be empty"),
        // A no-break space is a space too (CharacterSet.whitespaces holds the space separators).
        ("summary", "\u{00A0}\u{2003}", "/summary", "must not be empty"),
    ] as [(String, JSONValue?, String, String)])
    func eachMistakeNamesItsPointer(_ path: String, _ value: JSONValue?, _ pointer: String, _ words: String) throws {
        let problem = try #require(Self.problem { Self.set(&$0, path.split(separator: "/").map { Int($0).map { $0 as Any } ?? String($0) }, value) }, "expected \(pointer) to be refused")
        #expect(problem.pointer == pointer)
        #expect(problem.message.contains(words), "\(problem.message)")
    }

    @Test func aKeyWithASlashIsEscapedInThePointer() throws {
        let problem = try #require(Self.problem { Self.set(&$0, ["operations", 0, "request", "query", "a/b~"] as [Any], "{qeury}") })
        #expect(problem.pointer == "/operations/0/request/query/a~1b~0")
    }

    @Test func aSummaryWithVisibleTextAmongSpacesIsNotEmpty() throws {
        #expect(Self.problem { Self.set(&$0, ["summary"] as [Any], " \u{00A0}x ") } == nil)
    }

    @Test func headersForEveryRequestMayNameNoParameter() throws {
        let problem = try #require(Self.problem { Self.set(&$0, ["headers"] as [Any], ["X-Q": "{query}"]) })
        #expect(problem.pointer == "/headers/X-Q")
        #expect(problem.message.contains("headers for every request can name none"))
    }
}
