import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// `docs/adding-a-provider.md` cannot rot: its Swift blocks are this target's sources, character for character,
/// and the provider they make works offline like the built-in ones.
@Suite struct DocExampleTests {
    static let folder = TestPaths.testTarget("DocExampleTests")
    static let sources = ["BookshelfProvider.swift", "BookshelfSandbox.swift"]

    /// The doc's Swift blocks that start with a `// Providers/...` path, by file name.
    static func documentedFiles() throws -> [String: String] {
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/adding-a-provider.md"), encoding: .utf8)
        var files: [String: String] = [:]
        for block in doc.components(separatedBy: "```swift\n").dropFirst() {
            guard let end = block.range(of: "\n```") else { continue }
            let code = String(block[..<end.lowerBound]) + "\n"
            guard code.hasPrefix("// Providers/"), let path = code.split(separator: "\n").first else { continue }
            files[String(path.split(separator: "/").last ?? "")] = code
        }
        return files
    }

    @Test func theDocsCodeIsThisTargetsCode() throws {
        let documented = try Self.documentedFiles()
        #expect(Set(documented.keys) == Set(Self.sources))
        var lines = 0
        for name in Self.sources {
            let source = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            #expect(documented[name] == source, "the block for \(name) in docs/adding-a-provider.md differs from Tests/DocExampleTests/\(name)")
            lines += source.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        #expect(lines <= 150, "the example provider must stay within 150 lines of Swift, not \(lines)")
    }

    static func run(limit: Int, environment: [String: String] = BookshelfSandbox.sandboxEnvironment, log: RequestLog = RequestLog()) async throws -> ProviderResult {
        let catalog = try SandboxCatalog([BookshelfProvider.self], sandboxes: [BookshelfSandbox.self])
        let sandbox = SandboxTransport(catalog: catalog)
        let transport = FakeTransport { request in
            log.append(request)
            return try await sandbox.send(request)
        }
        let query = Query(
            provider: "bookshelf", operation: "search", parameters: ["query": "swift"], limit: limit,
            baseURL: URL(string: "http://sandbox.localhost/bookshelf")!, environment: environment)
        return await Fetcher(transport: transport, options: testFetchOptions(), source: .offline).run(BookshelfProvider(), query: query)
    }

    @Test func thirtyBooksComeFromTwoNumberedPagesWithTheToken() async throws {
        let log = RequestLog()
        let result = try await Self.run(limit: 30, log: log)
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == (1...30).map(String.init))
        #expect(result.items.first?.author == "Ada Byron")
        #expect(result.meta.totalCount == 45)
        #expect(log.requests.map { $0.url.queryValue("page") } == ["1", "2"])
        #expect(log.requests.allSatisfy { $0.headers["Authorization"] == "Bearer sandbox-bookshelf-token" })
    }

    @Test func withoutTheTokenTheRunStopsWithTheStandardError() async throws {
        let result = try await Self.run(limit: 5, environment: [:])
        #expect(result.error?.kind == .config)
        #expect(result.error?.message == "no credentials: set BOOKSHELF_TOKEN, or use --offline to see sample data")
    }

    @Test func aWrongTokenGetsTheAPIsOwnMessage() async throws {
        let result = try await Self.run(limit: 5, environment: ["BOOKSHELF_TOKEN": "wrong"])
        #expect(result.error?.kind == .auth)
        #expect(result.error?.message == "A valid bearer token is required (HTTP 401). Check BOOKSHELF_TOKEN.")
    }

    @Test func theEmulatorRefusesABadPageInTheAPIsShape() throws {
        let request = SandboxRequest(
            method: "GET", path: "/v1/books", query: [("page", "9223372036854775807")],
            headers: ["Authorization": "Bearer sandbox-bookshelf-token"])
        let answer = try #require(BookshelfSandbox.sandboxResponse(for: request, context: SandboxContext(baseURL: URL(string: "http://127.0.0.1")!)))
        #expect(answer.status == 400)
        #expect(try JSONParser().parse(answer.body)["error"]?["code"] == "invalid_page")
        let wrongMethod = SandboxRequest(method: "POST", path: "/v1/books")
        #expect(BookshelfSandbox.sandboxResponse(for: wrongMethod, context: SandboxContext(baseURL: URL(string: "http://127.0.0.1")!))?.status == 405)
        #expect(BookshelfSandbox.sandboxPaths == ["/v1/books"])
    }
}
