import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate check` through the binary, on the four authoring mistakes of a new user's Open Library definition,
/// and what a normal run says about each of them instead of `(no results)` or "unknown provider".
@Suite(.serialized) struct CheckCommandTests {
    /// A folder with `openlibrary.json` (or `file`), broken by `edit`, and its sample.
    static func openLibrary(file: String = "openlibrary.json", _ edit: (inout JSONObject) -> Void = { _ in }) throws -> URL {
        let folder = RunTimeDefinitionTests.temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("SampleData"), withIntermediateDirectories: true)
        try Data("""
            {"numFound": 2, "start": 0, "docs": [
              {"key": "/works/OL27448W", "title": "The Lord of the Rings", "author_name": ["J.R.R. Tolkien"], "first_publish_year": 1954},
              {"key": "/works/OL262758W", "title": "The Hobbit", "author_name": ["J.R.R. Tolkien"], "first_publish_year": 1937}
            ]}
            """.utf8).write(to: folder.appendingPathComponent("SampleData/search-1.json"))
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
        let url = folder.appendingPathComponent(file)
        try JSONWriter(pretty: true).data(.object(definition)).write(to: url)
        return url
    }

    static func operation(_ definition: inout JSONObject, _ edit: (inout JSONObject) -> Void) {
        guard case .array(var operations) = definition["operations"], case .object(var operation) = operations[0] else { return }
        edit(&operation)
        operations[0] = .object(operation)
        definition["operations"] = .array(operations)
    }

    static func item(_ definition: inout JSONObject, _ edit: @escaping (inout JSONObject) -> Void) {
        operation(&definition) { operation in
            guard case .object(var item) = operation["item"] else { return }
            edit(&item)
            operation["item"] = .object(item)
        }
    }

    /// The `problem:` lines of a check's stderr.
    static func problems(_ output: Binary.Output) -> [String] {
        output.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("problem: ") }
    }

    @Test func aCorrectDefinitionPassesWithItsCountsAndExamples() throws {
        let file = try Self.openLibrary()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let output = try Binary.run(["check", file.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.isEmpty)
        #expect(output.stdout.contains("openlibrary: \(file.path)\n  definition: fits the schema; reads\n  search, SampleData/search-1.json: 2 records → 2 items\n"))
        #expect(output.stdout.contains("    title:      2 of 2\n"))
        #expect(output.stdout.hasSuffix("  0 problems, 0 warnings\n"))
        let json = try Binary.run(["check", file.path, "--format", "json"])
        let report = try JSONParser().parse(Data(json.stdout.utf8))
        #expect(report["ok"] == true && report["fitsSchema"] == true && report["provider"] == "openlibrary")
        #expect(report["responses"]?[0]?["fields"]?.array?.count == 4)
    }

    @Test func aWrongTitlePathIsOneLineAndANormalRunSaysWhereInsteadOfNoResults() throws {
        let file = try Self.openLibrary { Self.item(&$0) { $0["title"] = "name" } }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let check = try Binary.run(["check", file.path])
        #expect(check.status == 1)
        #expect(Self.problems(check).contains(#"problem: \#(file.path): /operations/0/item/title: 0 of 2 records gave a title: no key "name" in the top level; keys there: key, title, author_name, first_publish_year"#))
        #expect(check.stdout.contains(#"    title:      0 of 2, first missing: no key "name" in the top level"#))
        #expect(check.stderr.hasSuffix("Error: check: \(file.path): 2 problems (listed above)\n"), "the title, and the example that gives nothing")

        let run = try Binary.run(["--provider-file", file.path, "openlibrary", "search", "tolkien", "--offline"])
        #expect(run.status == 1)
        #expect(!run.stdout.contains("no results"))
        #expect(run.stderr.contains(#"Error: openlibrary: \#(file.path): /operations/0/item/title: none of the 2 records at 'docs' gave a title"#))
        #expect(run.stderr.contains("keys there: key, title, author_name, first_publish_year"))
    }

    @Test func aYearReadAsEpochSecondsIsOneLineAndANormalRunWarns() throws {
        let file = try Self.openLibrary { Self.item(&$0) { $0["createdAt"] = "first_publish_year" } }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let check = try Binary.run(["check", file.path])
        #expect(check.status == 1)
        #expect(Self.problems(check) == [
            #"problem: \#(file.path): /operations/0/item/createdAt: 2 of 2 records would be read wrongly: the first holds 1954, which looks like a year, not epoch seconds (it would be 1970-01-01T00:32:34Z); use "dateFormat": "year""#,
        ])

        let run = try Binary.run(["--provider-file", file.path, "openlibrary", "search", "tolkien", "--offline"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("The Lord of the Rings"))
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings == [#"warning: openlibrary: \#(file.path): /operations/0/item/createdAt holds 1954, which looks like a year, not epoch seconds (it would be 1970-01-01T00:32:34Z); use "dateFormat": "year""#])
        #expect(!(try Binary.run(["--provider-file", file.path, "openlibrary", "search", "tolkien", "--offline", "--quiet"]).stderr.contains("warning")))
    }

    @Test func aWrongRecordsPathNamesTheFileThePointerAndTheKeysThere() throws {
        let file = try Self.openLibrary { Self.operation(&$0) { $0["records"] = "documents" } }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let check = try Binary.run(["check", file.path])
        #expect(check.status == 1)
        #expect(Self.problems(check).first == #"problem: \#(file.path): /operations/0/records: 'documents' is not in SampleData/search-1.json: no key "documents" in the top level; keys there: numFound, start, docs"#)

        let run = try Binary.run(["--provider-file", file.path, "openlibrary", "search", "tolkien", "--offline"])
        #expect(run.status == 1)
        #expect(run.stderr.contains(#"Error: openlibrary: \#(file.path): /operations/0/records: 'documents' is not in the response: no key "documents" in the top level; keys there: numFound, start, docs"#))
    }

    @Test func aBrokenProviderFileNamedUnlikeItsProviderIsExit78NamingTheFile() throws {
        let good = try Self.openLibrary(file: "books-draft.json")
        defer { try? FileManager.default.removeItem(at: good.deletingLastPathComponent()) }
        var text = try String(contentsOf: good, encoding: .utf8)
        text = text.replacingOccurrences(of: #""records" : "docs","#, with: #""records" : "docs" "x","#)
        text = text.replacingOccurrences(of: #""records": "docs","#, with: #""records": "docs" "x","#)
        try Data(text.utf8).write(to: good)

        let run = try Binary.run(["--provider-file", good.path, "openlibrary", "search", "tolkien", "--offline"])
        #expect(run.status == 78)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("Error: \(good.path): /: is not valid JSON: ") == true)
        #expect(run.stderr.contains("('openlibrary' is no provider; it may be this definition, which cannot be read)"))
        #expect(!run.stderr.contains("unknown provider"))

        let check = try Binary.run(["check", good.path])
        #expect(check.status == 1)
        #expect(Self.problems(check).count == 1)
        #expect(Self.problems(check).first?.hasPrefix("problem: \(good.path): /: is not valid JSON: ") == true)
    }

    @Test func aMissingFileIsExit66AndUsageMistakesAre64() throws {
        let missing = try Binary.run(["check", "/nonexistent/definition.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr.hasPrefix("Error: /nonexistent/definition.json"))
        #expect(try Binary.run(["check"]).status == 64)
        #expect(try Binary.run(["check", "a.json", "--base-url", "http://127.0.0.1:1"]).stderr.contains("--base-url needs --live"))
        #expect(try Binary.run(["check", "a.json", "--format", "csv"]).status == 64)
    }

    @Test func theBuiltInDefinitionsPass() throws {
        for folder in ["GitHub", "HackerNews"] {
            let output = try Binary.run(["check", TestPaths.packageRoot.appendingPathComponent("Providers/\(folder)/provider.json").path])
            #expect(output.status == 0, "\(folder): \(output.stderr)")
            #expect(!output.stderr.contains("problem:"))
        }
    }

    /// `--live --base-url` sends the examples to a real server (here the definition's own emulator, run by
    /// `aggregate sandbox` on loopback) and counts the live responses' fields with the samples'.
    @Test func liveChecksRunTheExamplesAgainstAServer() async throws {
        let file = try Self.openLibrary()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let server = try DefinitionServer(files: [file])
        let live = try Binary.run(["check", file.path, "--live", "--base-url", server.server.baseURL.appendingEndpoint("/openlibrary").absoluteString])
        #expect(live.status == 0, "\(live.stderr)")
        #expect(live.stdout.contains("  search, live response 1 of example 1: 2 records → 2 items\n"))
        let down = try Binary.run(["check", file.path, "--live", "--base-url", "http://127.0.0.1:9"])
        #expect(down.status == 1)
        #expect(Self.problems(down).first?.hasPrefix("problem: \(file.path): /examples/0: 'openlibrary search tolkien' fails: ") == true)
    }
}
