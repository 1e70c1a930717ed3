import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate import openapi` through the binary: the six real documents become definitions that `aggregate check`
/// passes and whose examples give titled items offline; and the command's mistakes, one line each.
@Suite(.serialized) struct ImportOpenAPICommandTests {
    /// The real documents, `nil` when `../shared` is not beside the package.
    static var specs: URL? {
        guard let samples = TestPaths.sharedSamples else { return nil }
        let folder = samples.deletingLastPathComponent().appendingPathComponent("specs/openapi")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }

    /// Each document, with the operations its README lists among those imported (an oracle for the records paths).
    static let documents: [(file: String, name: String, expected: [String: String])] = [
        ("nytimes.com-article_search_v2.yaml", "nyt", ["articlesearch": "response.docs"]),
        ("spotify.com-official-spotify-open-api.yml", "spotify", ["albums-tracks": "items", "new-releases": "albums.items", "multiple-artists": "artists", "recently-played": "items"]),
        ("discourse.org-openapi.yml", "discourse", ["list-latest-topics": "topic_list.topics", "list-categories": "category_list.categories", "list-posts": "latest_posts"]),
        ("karakeep.app-karakeep-openapi-spec.json", "karakeep", ["list-bookmarks": "bookmarks", "list-tags": "tags", "list-feeds": "feeds"]),
        ("jikan.moe-api-docs.json", "anime", ["anime-search": "data", "top-anime": "data", "anime-characters": "data", "top-reviews": "data.data"]),
        ("forem.com-api_v1.json", "forem", ["articles": ".", "podcast-episodes": ".", "followed-tags": "."]),
    ]

    @Test(arguments: documents.map(\.file)) func eachRealDocumentImportsIntoADefinitionThatChecksAndRunsOffline(_ file: String) throws {
        guard let specs = Self.specs else { return }  // ../shared is absent: nothing to import
        let entry = try #require(Self.documents.first { $0.file == file })
        let folder = RunTimeDefinitionTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let imported = try Binary.run(["import", "openapi", specs.appendingPathComponent(file).path, "--name", entry.name, "--out", folder.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported \(entry.name) from "))
        let provider = folder.appendingPathComponent("provider.json")
        let definition = try JSONParser().parse(try Data(contentsOf: provider))
        let operations = definition["operations"]?.array ?? []
        for (name, records) in entry.expected {
            #expect(operations.first { $0["name"]?.string == name }?["records"]?.string == records, "\(file): \(name)")
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("import-report.txt").path))

        let check = try Binary.run(["check", provider.path], timeout: 300)
        #expect(check.status == 0, "\(file): \(check.stderr.split(separator: "\n").filter { $0.hasPrefix("problem") }.prefix(5))")

        // The first example, run as a user would: titled items from the emulator.
        let arguments = (definition["examples"]?[0]?["arguments"]?.array ?? []).compactMap { $0.string }
        #expect(arguments.count >= 2)
        let run = try Binary.run(["--provider-file", provider.path] + arguments + ["--offline", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let items = try JSONParser().parse(Data(run.stdout.utf8))["results"]?[0]?["items"]?.array ?? []
        #expect(!items.isEmpty)
        #expect(items.allSatisfy { $0["title"]?.nonEmptyString != nil })
    }

    static func document(_ folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("books.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("""
            {"openapi": "3.0.0", "info": {"title": "Books API", "version": "1"}, "servers": [{"url": "https://books.example.com"}],
             "paths": {"/books": {"get": {"operationId": "listBooks", "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer"}}],
               "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
                 "books": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}},
                 "total_pages": {"type": "integer"}}}}}}}}}}}
            """.utf8).write(to: url)
        return url
    }

    @Test func standardInputAndTheJSONReport() throws {
        let folder = RunTimeDefinitionTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOf: try Self.document(folder), encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let run = try Binary.run(["import", "openapi", "-", "--out", out.path, "--format", "json"], stdin: text)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONParser().parse(Data(run.stdout.utf8))
        #expect(report["provider"] == "books")
        #expect(report["operations"] == [["name": "list-books", "paging": "pageNumber page"]])
        #expect((report["guessed"]?.int ?? 0) > 0)
        let check = try Binary.run(["check", out.appendingPathComponent("provider.json").path])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test func mistakesAreOneLineWithTheirExitCodesAndWriteNothing() throws {
        let folder = RunTimeDefinitionTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let document = try Self.document(folder)

        let taken = folder.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: taken.appendingPathComponent("keep.txt"))
        let notEmpty = try Binary.run(["import", "openapi", document.path, "--out", taken.path])
        #expect(notEmpty.status == 64)
        #expect(notEmpty.stderr.contains("is not empty"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: taken.path) == ["keep.txt"])

        let unknown = try Binary.run(["import", "openapi", document.path, "--operations", "listBook", "--out", folder.appendingPathComponent("u").path])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no GET operation 'listBook'"))
        #expect(unknown.stderr.contains("listBooks"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("u").path))

        let broken = folder.appendingPathComponent("broken.yaml")
        try Data("openapi: 3.0.0\npaths:\n  /a: {get: [1\n".utf8).write(to: broken)
        let malformed = try Binary.run(["import", "openapi", broken.path, "--out", folder.appendingPathComponent("m").path])
        #expect(malformed.status == 65)
        #expect(malformed.stderr.contains("broken.yaml: invalid YAML"))
        #expect(malformed.stderr.contains("line "))
        #expect(malformed.stderr.split(separator: "\n").count <= 2)

        let missing = try Binary.run(["import", "openapi", folder.appendingPathComponent("nothing.json").path])
        #expect(missing.status == 66)

        let builtIn = try Binary.run(["import", "openapi", document.path, "--name", "github", "--out", folder.appendingPathComponent("g").path])
        // A built-in name imports (that is how Providers/<Name> is re-imported), with a warning that
        // --provider-file will refuse the folder under that name.
        #expect(builtIn.status == 0, "\(builtIn.stderr)")
        #expect(builtIn.stderr.hasPrefix("warning: 'github' is a built-in provider's name"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("g/provider.json").path))
    }
}
