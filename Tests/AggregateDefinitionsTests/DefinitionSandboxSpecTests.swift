import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation
import Testing

/// An operation's `sandbox` section and a parameter's `onlyWith` are read into ``DefinitionSandboxSpec`` and
/// ``ParameterDependency``, and every mistake in them names its JSON pointer.
@Suite struct DefinitionSandboxSpecTests {
    static func loading(_ change: (inout JSONValue) -> Void) throws -> ProviderDefinition {
        var document = JSONValue.object(DefinitionLoaderTests.valid())
        change(&document)
        return try ProviderDefinition(json: JSONWriter().data(document))
    }

    static func problem(_ sandbox: JSONValue) -> DefinitionProblem? {
        DefinitionLoaderTests.problem { DefinitionLoaderTests.set(&$0, ["operations", 0, "sandbox"], sandbox) }
    }

    @Test func aSandboxSectionIsReadWhole() throws {
        let sandbox: JSONValue = [
            "parameters": ["q": ["required": true], "sort": ["values": ["a", "b"]], "size": ["minimum": 1, "maximum": 9]],
            "invalid": ["status": 422, "body": ["message": "Validation Failed", "field": "{parameter}"]],
            "pageSize": ["parameter": "per_page", "default": 30, "maximum": 100],
            "window": ["results": 1000, "lastPage": "cut", "past": ["status": 200, "set": ["message": "no more"]]],
            "filters": [
                ["parameter": "q", "words": ["title", "summary"], "prefixLast": true, "qualifiers": ["Lang": ["field": "language"], "stars": ["field": "stars", "numeric": true]]],
                ["parameter": "tags", "tags": "_tags"],
                ["parameter": "n", "numeric": ["points": "points"]],
                ["parameter": "author", "equals": "author.name"],
            ],
            "sort": [["path": "/v1/books", "by": "created", "descending": true], ["parameter": "sort", "fields": ["a": "a_count"]]],
            "echo": ["total": "total", "meta.page": "page", "query": ["parameter": "q", "default": ""], "params": ["queryString": ["suffix": "&x=1"]]],
            "caching": ["validators": "etag", "cacheControl": "private, max-age=60"],
        ]
        let definition = try Self.loading { DefinitionLoaderTests.set(&$0, ["operations", 0, "sandbox"], sandbox) }
        let spec = try #require(definition.operations[0].sandbox)
        #expect(spec.checks.map(\.parameter) == ["q", "sort", "size"])
        #expect(spec.checks[0].required && spec.checks[1].values == ["a", "b"] && spec.checks[2].integer == 1...9)
        #expect(spec.invalid?.status == 422)
        #expect(spec.pageSize?.parameter == "per_page" && spec.pageSize?.defaultSize == 30)
        #expect(spec.pageSize?.minimum == 1 && spec.pageSize?.maximum == 100)
        #expect(spec.window?.results == 1000 && spec.window?.cutsLastPage == true)
        #expect(spec.window?.past == .emptyPage(JSONObject([JSONObject.Member("message", "no more")])))
        #expect(spec.filters.map(\.parameter) == ["q", "tags", "n", "author"])
        guard case .words(_, let fields, true, let qualifiers) = spec.filters[0] else { Issue.record("words"); return }
        #expect(fields.map(\.description) == ["title", "summary"])
        #expect(qualifiers.map(\.name) == ["lang", "stars"], "qualifier names are matched case-insensitively")
        #expect(spec.sorts.count == 2 && spec.sorts[0].descending && spec.sorts[1].ascendingValue == "asc")
        #expect(spec.echoes.map(\.echo) == [.total, .page, .parameter("q", fallback: ""), .queryString(suffix: "&x=1")])
        #expect(spec.caching == APICaching(validators: .etag, cacheControl: "private, max-age=60"))
    }

    @Test func withoutASandboxSectionTheSamplesStayFixedPages() throws {
        let definition = try Self.loading { _ in }
        #expect(definition.operations[0].sandbox == nil)
        #expect(definition.operations[0].dependencies.isEmpty)
    }

    @Test(arguments: [
        (["filters": [["parameter": "q", "words": ["title"], "tags": "_tags"]]] as JSONValue, "/operations/0/sandbox/filters/0", "one of words, equals, tags or numeric"),
        (["filters": [["parameter": "q"]]] as JSONValue, "/operations/0/sandbox/filters/0", "found none"),
        (["sort": [["fields": ["a": "a"]]]] as JSONValue, "/operations/0/sandbox/sort/0", "either 'by'"),
        (["sort": [["parameter": "sort"]]] as JSONValue, "/operations/0/sandbox/sort/0", "needs 'fields'"),
        (["echo": ["total": "everything"]] as JSONValue, "/operations/0/sandbox/echo/total", "everything"),
        (["window": ["results": 1000, "past": ["status": 422, "body": "no"]]] as JSONValue, "/operations/0/sandbox/window/past/body", "must be an object"),
        (["pageSize": ["parameter": "n", "default": 500, "maximum": 100]] as JSONValue, "/operations/0/sandbox/pageSize/default", "between 1 and 100"),
        (["parameters": ["q": ["minimum": 5, "maximum": 1]]] as JSONValue, "/operations/0/sandbox/parameters/q", "minimum is above maximum"),
        (["filter": []] as JSONValue, "/operations/0/sandbox/filter", "not a field here"),
    ])
    func mistakesNameTheirPointer(_ sandbox: JSONValue, _ pointer: String, _ words: String) throws {
        let problem = try #require(Self.problem(sandbox))
        #expect(problem.pointer == pointer, "\(problem)")
        #expect(problem.message.contains(words), "\(problem)")
    }

    @Test func onlyWithNamesAnotherDeclaredParameter() throws {
        let definition = try Self.loading { DefinitionLoaderTests.set(&$0, ["operations", 0, "parameters", 1, "onlyWith"], "query") }
        #expect(definition.operations[0].dependencies.map(\.parameter) == ["sort"])
        #expect(definition.operations[0].dependencies.map(\.needs) == ["query"])
        let unknown = try #require(DefinitionLoaderTests.problem { DefinitionLoaderTests.set(&$0, ["operations", 0, "parameters", 1, "onlyWith"], "order") })
        #expect(unknown.pointer == "/operations/0/parameters/1/onlyWith")
        #expect(unknown.message.contains("'order' is not another parameter"))
        let itself = try #require(DefinitionLoaderTests.problem { DefinitionLoaderTests.set(&$0, ["operations", 0, "parameters", 1, "onlyWith"], "sort") })
        #expect(itself.pointer == "/operations/0/parameters/1/onlyWith")
    }

    @Test func rateLimitDeclaresTheOtherHeaders() throws {
        let definition = try Self.loading {
            DefinitionLoaderTests.set(&$0, ["rateLimit"], ["limitHeader": "x-ratelimit-limit", "usedHeader": "x-ratelimit-used", "resourceHeader": "x-ratelimit-resource"])
        }
        #expect(definition.rateLimit?.limitHeader == "x-ratelimit-limit")
        #expect(definition.rateLimit?.usedHeader == "x-ratelimit-used")
        #expect(definition.rateLimit?.resourceHeader == "x-ratelimit-resource")
    }
}
