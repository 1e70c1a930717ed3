@testable import AggregateCore
@testable import AggregateDefinitions
@testable import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// `DefinitionCheck` (what `aggregate check` reports), the schema validator it runs, the date formats `year`,
/// `epoch-s` and `epoch-ms`, and the warning for a number read as epoch seconds that is not.
@Suite struct DefinitionCheckTests {
    /// An Open Library definition as a new user writes it from docs/provider-definitions.md; `edit` breaks it.
    static func openLibrary(_ edit: (inout JSONObject) -> Void = { _ in }) -> Data {
        var definition: JSONObject = [
            "name": "openlibrary", "summary": "Books from Open Library's search.", "docsURL": "https://openlibrary.org/dev/docs/api/search",
            "baseURL": "https://openlibrary.org",
            "operations": [[
                "name": "search", "summary": "Books matching words.", "kind": "book",
                "parameters": [["name": "query", "positional": true, "required": true, "help": "Words."]],
                "request": ["path": "/search.json", "query": ["q": "{query}"]],
                "records": "docs",
                "item": ["id": "key", "title": "title", "author": "author_name[0]", "createdAt": ["path": "first_publish_year", "dateFormat": "year"]],
            ]],
            "examples": [["arguments": ["openlibrary", "search", "tolkien"], "summary": "Books by Tolkien."]],
            "samples": ["search": ["SampleData/search-1.json"]],
        ]
        edit(&definition)
        return JSONWriter().data(.object(definition))
    }

    static let sample = Data("""
        {"numFound": 2, "start": 0, "docs": [
          {"key": "/works/OL27448W", "title": "The Lord of the Rings", "author_name": ["J.R.R. Tolkien"], "first_publish_year": 1954},
          {"key": "/works/OL262758W", "title": "The Hobbit", "author_name": ["J.R.R. Tolkien"], "first_publish_year": 1937}
        ]}
        """.utf8)

    static func check(_ data: Data) -> DefinitionCheck {
        DefinitionCheck(data: data, file: "openlibrary.json") { $0 == "SampleData/search-1.json" ? sample : nil }
    }

    static func editItem(_ definition: inout JSONObject, _ edit: (inout JSONObject) -> Void) {
        guard case .array(var operations) = definition["operations"], case .object(var operation) = operations[0],
              case .object(var item) = operation["item"] else { return }
        edit(&item)
        operation["item"] = .object(item)
        operations[0] = .object(operation)
        definition["operations"] = .array(operations)
    }

    @Test func aCorrectDefinitionHasNoFindingAndCountsEveryField() throws {
        let check = Self.check(Self.openLibrary())
        #expect(check.findings.isEmpty, "\(check.findings)")
        #expect(check.fitsSchema)
        let response = try #require(check.responses.first)
        #expect(response.records == 2 && response.items == 2)
        #expect(response.fields.map(\.field) == ["id", "title", "author", "createdAt"])
        #expect(response.fields.allSatisfy { $0.filled == 2 && $0.records == 2 })
    }

    @Test func aWrongTitlePathIsOneProblemNamingThePathAndTheKeysThere() throws {
        let check = Self.check(Self.openLibrary { Self.editItem(&$0) { $0["title"] = "name" } })
        let problem = try #require(check.problems.first { $0.pointer == "/operations/0/item/title" })
        #expect(problem.message == #"0 of 2 records gave a title: no key "name" in the top level; keys there: key, title, author_name, first_publish_year"#)
        #expect(check.problems.count == 1)
        #expect(check.responses.first?.items == 0)
    }

    @Test func aYearReadAsEpochSecondsIsAProblemThatNamesTheFormatToUse() throws {
        for format: JSONValue in ["epoch-seconds", "epoch-s", .null] {
            let check = Self.check(Self.openLibrary {
                Self.editItem(&$0) { $0["createdAt"] = format == .null ? "first_publish_year" : ["path": "first_publish_year", "dateFormat": format] }
            })
            let problem = try #require(check.problems.first { $0.pointer == "/operations/0/item/createdAt" }, "\(format)")
            #expect(problem.message.contains("2 of 2 records would be read wrongly: the first holds 1954, which looks like a year"))
            #expect(problem.message.contains("1970-01-01T00:32:34Z"))
            #expect(problem.message.hasSuffix(#"use "dateFormat": "year""#))
        }
    }

    @Test func aWrongRecordsPathNamesTheSampleAndTheKeysThatExist() throws {
        let check = Self.check(Self.openLibrary { definition in
            guard case .array(var operations) = definition["operations"], case .object(var operation) = operations[0] else { return }
            operation["records"] = "documents"
            operations[0] = .object(operation)
            definition["operations"] = .array(operations)
        })
        let problem = try #require(check.problems.first)
        #expect(problem.pointer == "/operations/0/records")
        #expect(problem.message == #"'documents' is not in SampleData/search-1.json: no key "documents" in the top level; keys there: numFound, start, docs"#)
        #expect(check.responses.first?.records == nil)
    }

    @Test func aFileThatIsNotJSONIsOneProblemWithItsPosition() throws {
        let check = DefinitionCheck(data: Data(#"{"name": "x" "summary": 1}"#.utf8), file: "broken.json") { _ in nil }
        #expect(check.definition == nil)
        let problem = try #require(check.problems.first)
        #expect(problem.pointer == "/")
        #expect(problem.message.hasPrefix("is not valid JSON: "))
        #expect(problem.message.contains("line 1, column 14"))
    }

    @Test func theSchemaReportsEveryViolationAtOnceEachWithItsPointer() throws {
        let check = Self.check(Self.openLibrary { definition in
            definition["colour"] = "red"
            guard case .array(var operations) = definition["operations"], case .object(var operation) = operations[0] else { return }
            operation["parameters"] = [["name": "query", "positional": true]]
            operation["pagination"] = ["kind": "pageNumber", "parameter": "page"]
            operations[0] = .object(operation)
            definition["operations"] = .array(operations)
        })
        let found = check.problems.map(\.description)
        #expect(found.contains("/operations/0/parameters/0: misses the required field 'help'"))
        #expect(found.contains("/operations/0/pagination: misses the required field 'pageSize'"))
        #expect(found.contains("/operations/0/pagination: needs one of the fields 'totalPagesPath', 'maxPages'"))
        #expect(found.contains { $0.hasPrefix("/colour: is not a field here (fields: $schema, formatVersion, name,") })
        #expect(!check.fitsSchema && check.definition == nil)
    }

    @Test func anOptionalFieldNoRecordFillsIsAWarningAndAnOperationWithoutSamplesToo() throws {
        let check = Self.check(Self.openLibrary { definition in
            Self.editItem(&definition) { $0["summary"] = "subtitle" }
            definition["samples"] = nil
        })
        #expect(check.problems.isEmpty)
        #expect(check.findings.map(\.severity) == [.warning])
        #expect(check.findings.first?.message.contains("has no samples") == true)
        let withSample = Self.check(Self.openLibrary { Self.editItem(&$0) { $0["summary"] = "subtitle" } })
        #expect(withSample.findings.map(\.description) == [#"/operations/0/item/summary: 0 of 2 records gave a summary: no key "subtitle" in the top level; keys there: key, title, author_name, first_publish_year"#])
        #expect(withSample.problems.isEmpty)
    }

    @Test func examplesThatFailOrGiveNothingAreProblems() {
        var check = Self.check(Self.openLibrary())
        check.addExample(["openlibrary", "search", "tolkien"], index: 0, outcome: .success(2))
        #expect(check.problems.isEmpty)
        check.addExample(["openlibrary", "search", "zzz"], index: 1, outcome: .success(0))
        check.addExample(["openlibrary", "search"], index: 2, outcome: .failure(AggregateError(.usage, "missing <query>")))
        #expect(check.problems.map(\.description) == [
            "/examples/1: 'openlibrary search zzz' gives no items", "/examples/2: 'openlibrary search' fails: missing <query>",
        ])
    }

    @Test func liveResponsesAreCountedWithTheSamples() throws {
        var check = Self.check(Self.openLibrary())
        check.addLive(Data(#"{"docs": [{"key": "k", "name": "no title here"}]}"#.utf8), operation: "search", label: "live response 1")
        #expect(check.responses.map(\.label) == ["SampleData/search-1.json", "live response 1"])
        // Over every response, two of three records gave a title: not a problem; the live one is counted.
        #expect(check.problems.isEmpty)
        #expect(check.responses.last?.fields.first { $0.field == "title" }?.filled == 0)
    }

    @Test func theBuiltInDefinitionsPassTheCheck() throws {
        for folder in ["GitHub", "HackerNews"] {
            let root = TestPaths.packageRoot.appendingPathComponent("Providers/\(folder)")
            let check = DefinitionCheck(data: try Data(contentsOf: root.appendingPathComponent("provider.json")), file: "Providers/\(folder)/provider.json") {
                try? Data(contentsOf: root.appendingPathComponent($0))
            }
            #expect(check.problems.isEmpty, "\(folder): \(check.problems)")
            #expect(check.fitsSchema)
            #expect(!check.responses.isEmpty)
        }
    }

    // MARK: The schema validator

    @Test func theEmbeddedSchemaUsesOnlyKeywordsTheValidatorChecks() throws {
        _ = try SchemaValidator(schema: try JSONParser().parse(Data(definitionSchemaText.utf8)))
    }

    @Test func theValidatorRefusesKeywordsItDoesNotCheck() {
        #expect(throws: DefinitionProblem("/properties/a/format", "the schema uses 'format', which the definition checker does not check")) {
            try SchemaValidator(schema: ["properties": ["a": ["type": "string", "format": "uri"]]])
        }
        #expect(throws: DefinitionProblem("/$ref", "only local #/$defs/ references are followed")) {
            try SchemaValidator(schema: ["$ref": "https://example.com/other.json"])
        }
    }

    @Test func theValidatorAgreesWithTheSchemaOnSmallCases() throws {
        let schema: JSONValue = [
            "type": "object", "required": ["a"],
            "properties": ["a": ["type": "integer", "minimum": 1], "b": ["enum": ["x", "y"]], "c": ["type": "array", "minItems": 1, "items": ["type": "string", "minLength": 1]]],
            "additionalProperties": false,
            "if": ["properties": ["b": ["const": "x"]], "required": ["b"]], "then": ["required": ["c"]],
        ]
        let validator = try SchemaValidator(schema: schema)
        #expect(validator.problems(in: ["a": 2]).isEmpty)
        #expect(validator.problems(in: ["a": 2, "b": "y"]).isEmpty)
        #expect(validator.problems(in: ["a": 2, "b": "x"]).map(\.description) == ["/: misses the required field 'c'"])
        #expect(Set(validator.problems(in: ["b": "y", "a": 1.5]).map(\.description)) == ["/a: must be a whole number, not a number"])
        #expect(validator.problems(in: ["b": "y"]).map(\.description) == ["/: misses the required field 'a'"])
        #expect(Set(validator.problems(in: ["a": 0, "b": "z", "c": [""], "d": true]).map(\.description)) == [
            "/a: must be at least 1", #"/b: must be one of "x", "y", not "z""#, "/c/0: must not be empty", "/d: is not a field here (fields: a, b, c)",
        ])
        #expect(validator.problems(in: "text").map(\.description) == ["/: must be an object, not a string"])
    }

    // MARK: Dates

    @Test func yearAndTheShortEpochSpellingsRead() throws {
        func date(_ value: JSONValue, _ format: String) throws -> String? {
            let reader = DefinitionReader(["path": "v", "dateFormat": .string(format)])
            let source = try ValueRule.Source(reading: reader)
            return source.dateFormat.flatMap { DefinitionDates.date(value, format: $0) }.map(ISO8601.string(from:))
        }
        #expect(try date(1954, "year") == "1954-01-01T00:00:00Z")
        #expect(try date("1954", "year") == "1954-01-01T00:00:00Z")
        #expect(try date("1954.5", "year") == nil)
        #expect(try date(0, "year") == nil)
        #expect(try date(1_700_000_000, "epoch-s") == "2023-11-14T22:13:20Z")
        #expect(try date(1_700_000_000_000, "epoch-ms") == "2023-11-14T22:13:20Z")
        #expect(throws: DefinitionProblem("/dateFormat", "must be one of iso8601, epoch-seconds, epoch-milliseconds, year, rfc2822, twitter, epoch-ms, epoch-s, not 'years'")) {
            try ValueRule.Source(reading: DefinitionReader(["path": "v", "dateFormat": "years"]))
        }
    }

    @Test func epochSecondsThatLookLikeAYearOrMillisecondsAreSuspicious() {
        #expect(DefinitionDates.suspiciousEpochSeconds(1954, format: .epochSeconds)?.contains("looks like a year") == true)
        #expect(DefinitionDates.suspiciousEpochSeconds(1954, format: nil)?.contains("looks like a year") == true)
        #expect(DefinitionDates.suspiciousEpochSeconds(1_700_000_000_000, format: .epochSeconds)?.contains("epoch milliseconds") == true)
        #expect(DefinitionDates.suspiciousEpochSeconds(1_700_000_000, format: .epochSeconds) == nil)
        #expect(DefinitionDates.suspiciousEpochSeconds(1954, format: .year) == nil)
        #expect(DefinitionDates.suspiciousEpochSeconds("1954", format: .epochSeconds) == nil, "text is not a number read as seconds")
    }

    @Test func aRunWarnsOnceAFieldAboutAYearReadAsSeconds() async throws {
        var definition = try ProviderDefinition(json: Self.openLibrary { Self.editItem(&$0) { $0["createdAt"] = "first_publish_year" } })
        definition.source = "/tmp/openlibrary.json"
        let provider = DeclarativeProvider(definition)
        let query = Query(provider: "openlibrary", operation: "search", parameters: ["query": "tolkien"], baseURL: URL(fileURLWithPath: "/"))
        let (page, warnings) = try await DefinitionWarnings.collecting {
            try provider.normalize(HTTPResponse(status: 200, body: Self.sample), for: query)
        }
        #expect(page.items.count == 2)
        #expect(warnings.map(\.description) == [
            #"openlibrary: /tmp/openlibrary.json: /operations/0/item/createdAt holds 1954, which looks like a year, not epoch seconds (it would be 1970-01-01T00:32:34Z); use "dateFormat": "year""#,
        ])
    }

    @Test func aPageWhoseRecordsAllLackATitleIsAnErrorNamingTheFileThePointerAndTheKeys() throws {
        var definition = try ProviderDefinition(json: Self.openLibrary { Self.editItem(&$0) { $0["title"] = "name" } })
        definition.source = "/tmp/openlibrary.json"
        let query = Query(provider: "openlibrary", operation: "search", parameters: ["query": "tolkien"], baseURL: URL(fileURLWithPath: "/"))
        #expect(throws: AggregateError(.decoding, #"/tmp/openlibrary.json: /operations/0/item/title: none of the 2 records at 'docs' gave a title, so no item could be made (no key "name" in the top level; keys there: key, title, author_name, first_publish_year); fix the path (aggregate check /tmp/openlibrary.json shows every field)"#)) {
            try DeclarativeProvider(definition).normalize(HTTPResponse(status: 200, body: Self.sample), for: query)
        }
        // A page with no records at all is an empty answer, not a broken mapping.
        let empty = try DeclarativeProvider(definition).normalize(HTTPResponse(status: 200, body: Data(#"{"docs": []}"#.utf8)), for: query)
        #expect(empty.items.isEmpty)
    }
}
