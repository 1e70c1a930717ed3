import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing

/// The fixture definitions under `Tests/AggregateProvidersTests/Fixtures/Definitions/`.
enum DefinitionFixtures {
    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/AggregateProvidersTests/Fixtures/Definitions")
    /// `pager`: one operation per paging kind, a bearer token, errors, rate limits and a text view.
    static let pager = folder.appendingPathComponent("pager/provider.json")
}

/// A definition's emulator on a real loopback server, and the engine against it with the real URLSession transport.
final class DefinitionServer: Sendable {
    let catalog: SandboxCatalog
    var registry: ProviderRegistry { catalog.registry }
    let server: SandboxServer

    init(files: [URL] = [DefinitionFixtures.pager], faults: [String] = []) throws {
        catalog = try SandboxCatalog.withDefinitions(swift: [], sandboxes: [], builtIn: [], samples: [:], files: files)
        var configuration = SandboxServerConfiguration(host: "127.0.0.1", port: 0, log: { _ in })
        configuration.faults = try faults.map(SandboxFault.parse)
        server = SandboxServer(catalog: catalog, configuration: configuration)
        try server.start()
    }

    deinit { server.stop() }

    /// A GET of `path` with the sandbox's token, as it comes back.
    func get(_ path: String) async throws -> HTTPResponse {
        let url = URL(string: server.baseURL.absoluteString + path)!
        return try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url, headers: ["Authorization": "Bearer sandbox-pager-token"]))
    }

    /// Runs `operation` of `name` against the server's `/<name>` mount.
    func run(_ operation: String, provider name: String = "pager", _ parameters: JSONObject = ["query": "swift"], limit: Int = 20, token: String? = "sandbox-pager-token") async throws -> ProviderResult {
        let runner = ProviderRunner(catalog: catalog, environment: token.map { ["PAGER_TOKEN": $0] } ?? [:], makeTransport: { URLSessionTransport() }, retrySleep: { _ in })
        let provider = try #require(registry.provider(named: name))
        let settings = ProviderRunner.Settings(limit: limit, baseURL: server.baseURL.appendingEndpoint("/\(name)").absoluteString)
        return await runner.run(provider, operation: operation, parameters: parameters, settings: settings)
    }
}

@Suite(.serialized) struct DefinitionLoopbackTests {
    @Test(arguments: [("pages", 3, 7), ("offsets", 3, 7), ("cursors", 3, 7), ("links", 3, 7), ("single", 1, 2)])
    func everyPagingKindReadsEveryPage(_ operation: String, _ pages: Int, _ items: Int) async throws {
        let server = try DefinitionServer()
        let result = try await server.run(operation)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.items.map(\.id) == (1...items).map(String.init))
        #expect(result.meta.pages == pages)
        #expect(result.meta.requests == pages)
    }

    @Test func pageNumbersStopAtTheLimitAndTellTheNextPage() async throws {
        let server = try DefinitionServer()
        let result = try await server.run("pages", limit: 4)
        #expect(result.items.count == 4)
        #expect(result.meta.pages == 2)
        #expect(result.meta.totalCount == 7)
        #expect(result.meta.nextCursor == "3", "the third page (1-based) is next, sent as page=2 to a 0-based API")
    }

    @Test func aWrongTokenIsRejectedInTheDefinitionsWordsWithItsHint() async throws {
        let server = try DefinitionServer()
        let error = try #require(try await server.run("pages", token: "wrong").error)
        #expect(error.kind == .auth)
        #expect(error.httpStatus == 401)
        #expect(error.message == "the credential in PAGER_TOKEN was rejected (HTTP 401). Check PAGER_TOKEN; tokens are at https://pager.example/account.")
        #expect(!error.message.contains("wrong"))
    }

    @Test func anOptionalTokenMayBeLeftOut() async throws {
        let result = try await DefinitionServer().run("single", token: nil)
        #expect(result.error == nil)
        #expect(result.items.count == 2)
    }

    @Test func aFaultAnswersInTheDefinitionsShapeAndStatusKinds() async throws {
        let server = try DefinitionServer(faults: ["status=422"])
        let error = try #require(try await server.run("single").error)
        #expect(error.kind == .usage, "errors.statusKinds maps 422 to usage")
        #expect(error.message == "Unprocessable Content (HTTP 422)")
    }

    @Test func anExhaustedRateLimitSaysWhenItResets() async throws {
        let server = try DefinitionServer(faults: ["status=403"])
        let error = try #require(try await server.run("single").error)
        #expect(error.kind == .rateLimited)
        #expect(error.message.hasPrefix("rate limited (HTTP 403): Forbidden; the limit resets at "))
        #expect(error.message.contains("local time"))
    }

    @Test func unknownCursorsAndBadPagesAreTheAPIsOwn400s() async throws {
        let server = try DefinitionServer()
        for path in ["/pager/cursors?after=nope", "/pager/pages?page=-1", "/pager/pages?page=9223372036854775807"] {
            let response = try await server.get(path)
            let status = response.status
            #expect(status == (path.contains("922") ? 200 : 400), "\(path)")
            let json = try response.json()
            if status == 400 { #expect(json["status"] == "400") } else { #expect(json["hits"] == .array([]), "past the samples: an empty page") }
        }
    }

    @Test func theLinkHeaderPointsBackAtTheSandbox() async throws {
        let server = try DefinitionServer()
        let response = try await server.get("/pager/links?q=x&page=2")
        let link = try #require(response.headers["Link"])
        let base = server.server.baseURL.absoluteString + "/pager/links?q=x&page="
        #expect(link == "<\(base)3>; rel=\"next\", <\(base)3>; rel=\"last\", <\(base)1>; rel=\"prev\", <\(base)1>; rel=\"first\"")
        #expect(response.headers["x-ratelimit-remaining"] == "59")
    }
}
