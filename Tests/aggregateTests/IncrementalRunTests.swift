import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import Foundation
import Testing

/// `--since TIME|last` on the `stream` fixture: the cursor parameter in the request, the emulator's filter by it,
/// the client-side filter by `createdAt`, and `last`'s state through the binary.
@Suite(.serialized) struct IncrementalRunTests {
    static let fixture = DefinitionFixtures.folder.appendingPathComponent("stream")

    static let older: [JSONValue] = [
        ["objectID": "p3", "title": "Post three", "created_at_i": 1766966400],
        ["objectID": "p2", "title": "Post two", "created_at_i": 1766880000],
        ["objectID": "p1", "title": "Post one", "created_at_i": 1766793600],
    ]
    static let newer: [JSONValue] = [
        ["objectID": "p5", "title": "Post five", "created_at_i": 1767139200],
        ["objectID": "p4", "title": "Post four", "created_at_i": 1767052800],
    ]

    /// A copy of the fixture in a fresh folder, with `posts` served from one sample holding `hits`.
    static func copy(into folder: URL, hits: [JSONValue]) throws -> URL {
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("SampleData"), withIntermediateDirectories: true)
        for name in ["provider.json", "SampleData/notes.json"] where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(at: fixture.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try setPosts(hits, in: folder)
        return folder.appendingPathComponent("provider.json")
    }

    static func setPosts(_ hits: [JSONValue], in folder: URL) throws {
        try JSONWriter().data(["hits": .array(hits)]).write(to: folder.appendingPathComponent("SampleData/posts-1.json"))
        try JSONWriter().data(["hits": []]).write(to: folder.appendingPathComponent("SampleData/posts-2.json"))
    }

    static func stateFiles(_ data: URL) -> [URL] {
        (try? FileManager.default.contentsOfDirectory(at: data.appendingPathComponent("aggregate/state"), includingPropertiesForKeys: nil)) ?? []
    }

    @Test func aFirstLastRunFetchesEverythingAndASecondOnlyWhatIsNewer() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-since-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let folder = home.appendingPathComponent("stream")
        let file = try Self.copy(into: folder, hits: Self.older)
        let environment = ["XDG_DATA_HOME": home.appendingPathComponent("data").path, "HOME": home.path, "STREAM_SECRET_MARKER": "never-kept-5e1d"]
        let run = ["--provider-file", file.path, "stream", "posts", "--since", "last", "--offline", "--format", "json"]
        let first = try Binary.run(run, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        let firstIDs = try JSONParser().parse(Data(first.stdout.utf8))["results"]?[0]?["items"]?.array?.compactMap { $0["id"]?.string }
        #expect(firstIDs == ["p3", "p2", "p1"], "no state yet: everything")
        let states = Self.stateFiles(home.appendingPathComponent("data"))
        try #require(states.count == 1)
        #expect((try FileManager.default.attributesOfItem(atPath: states[0].path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let state = try JSONParser().parse(Data(contentsOf: states[0]))
        #expect(state["newestRecord"] == "2025-12-29T00:00:00Z", "the newest record's time")
        let stateText = try String(contentsOf: states[0], encoding: .utf8)
        #expect(!stateText.contains("never-kept-5e1d") && !stateText.contains(home.path))

        // Two newer posts appear; the run asks the API for what is newer than the state and gets only those.
        try Self.setPosts(Self.newer + Self.older, in: folder)
        let second = try Binary.run(run + ["--verbose"], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("numericFilters=created_at_i%3E1766966400"), "the cursor parameter carries the state: \(second.stderr)")
        let secondIDs = try JSONParser().parse(Data(second.stdout.utf8))["results"]?[0]?["items"]?.array?.compactMap { $0["id"]?.string }
        #expect(secondIDs == ["p5", "p4"])
        #expect(try JSONParser().parse(Data(contentsOf: states[0]))["newestRecord"] == "2025-12-31T00:00:00Z")

        // A failed run (a sample the emulator cannot read) leaves the state as it was.
        try Data("{not json".utf8).write(to: folder.appendingPathComponent("SampleData/posts-1.json"))
        let failed = try Binary.run(run, environment: environment)
        #expect(failed.status != 0)
        #expect(try JSONParser().parse(Data(contentsOf: states[0]))["newestRecord"] == "2025-12-31T00:00:00Z")

        // Nothing newer: the run succeeds with no records and keeps the state.
        try Self.setPosts(Self.newer + Self.older, in: folder)
        let idle = try Binary.run(run, environment: environment)
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(try JSONParser().parse(Data(idle.stdout.utf8))["results"]?[0]?["items"] == .array([]))
        #expect(try JSONParser().parse(Data(contentsOf: states[0]))["newestRecord"] == "2025-12-31T00:00:00Z")

        // Other parameters (here: another operation) and another source keep states of their own.
        let notes = try Binary.run(["--provider-file", file.path, "stream", "notes", "--since", "last", "--offline"], environment: environment)
        #expect(notes.status == 0, "\(notes.stderr)")
        #expect(Self.stateFiles(home.appendingPathComponent("data")).count == 2)
    }

    @Test func anExplicitTimeFiltersByTheCursorAndByTheDateField() throws {
        let file = Self.fixture.appendingPathComponent("provider.json")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-since-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let environment = ["XDG_DATA_HOME": data.path]
        let posts = try Binary.run(["--provider-file", file.path, "stream", "posts", "--since", "2025-12-30", "--offline", "--verbose"], environment: environment)
        #expect(posts.status == 0, "\(posts.stderr)")
        #expect(posts.stderr.contains("numericFilters=created_at_i%3E1767052800"))
        #expect(posts.stdout == "Post six\nPost five\n", "Post four is at the time, not after it")
        // `notes` declares no cursor parameter: the engine drops the old records itself.
        let notes = try Binary.run(["--provider-file", file.path, "stream", "notes", "--since", "2026-01-01T00:00:00Z", "--offline"], environment: environment)
        #expect(notes.stdout == "New note\n")
        #expect(Self.stateFiles(data).isEmpty, "an explicit time keeps no state")
    }

    @Test func sinceIsAUsageErrorWhereItIsNotDeclaredOrNotATime() throws {
        let file = Self.fixture.appendingPathComponent("provider.json")
        let bad = try Binary.run(["--provider-file", file.path, "stream", "posts", "--since", "yesterday", "--offline"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: stream: --since takes an ISO 8601 date or time (2026-01-31, 2026-01-31T12:00:00Z) or 'last', not 'yesterday'\n"))
        let undeclared = try Binary.run(["--provider-file", DefinitionFixtures.pager.path, "pager", "pages", "swift", "--since", "last", "--offline"])
        #expect(undeclared.status == 64)
        #expect(undeclared.stderr.hasPrefix("Error: pager: unknown option '--since'\n"))
    }

    @Test func hackerNewsSearchSendsTheTimeAsANumericFilter() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-since-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let run = try Binary.run(
            ["hackernews", "search", "swift", "--by-date", "--since", "2026-01-01", "--offline", "--verbose", "--format", "json"], environment: ["XDG_DATA_HOME": data.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("numericFilters=created_at_i%3E1767225600"))
        let dates = try JSONParser().parse(Data(run.stdout.utf8))["results"]?[0]?["items"]?.array?.compactMap { $0["createdAt"]?.string } ?? []
        #expect(dates.allSatisfy { $0 > "2026-01-01T00:00:00Z" }, "\(dates)")
    }

    @Test func helpDescribeAndCompletionsOfferSince() throws {
        let file = Self.fixture.appendingPathComponent("provider.json")
        let help = try Binary.run(["--provider-file", file.path, "stream", "posts", "--help"])
        #expect(help.stdout.contains("aggregate stream [posts] [--since <TIME|last>] [<options>]"))
        let describe = try Binary.run(["--provider-file", file.path, "describe", "stream", "--format", "json"])
        #expect(describe.stdout.contains("\"since\""), "\(describe.stdout.prefix(400))")
        let completions = try Binary.run(["--provider-file", file.path, "completions", "bash"])
        #expect(completions.status == 0)
        #expect(completions.stdout.contains("--since"))
    }

    @Test func theEmulatorHonoursTheCursorParameterOverLoopback() async throws {
        let catalog = try SandboxCatalog.withDefinitions(
            swift: [], sandboxes: [], builtIn: [], samples: [:], files: [Self.fixture.appendingPathComponent("provider.json")])
        let server = SandboxServer(catalog: catalog, configuration: SandboxServerConfiguration(host: "127.0.0.1", port: 0, log: { _ in }))
        try server.start()
        defer { server.stop() }
        let base = server.baseURL.absoluteString
        let filtered = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: URL(string: base + "/stream/posts?numericFilters=created_at_i%3E1767100000&page=0")!))
        #expect(try JSONParser().parse(filtered.body)["hits"]?.array?.compactMap { $0["objectID"]?.string } == ["p6", "p5"])
        let runner = ProviderRunner(catalog: catalog, environment: [:], makeTransport: { URLSessionTransport() }, retrySleep: { _ in })
        let provider = try #require(catalog.registry.provider(named: "stream"))
        let result = await runner.run(
            provider, operation: "posts", parameters: ["since": "2025-12-29T12:00:00Z"], settings: ProviderRunner.Settings(baseURL: base + "/stream"))
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == ["p6", "p5", "p4"])
        let wrong = await runner.run(provider, operation: "posts", parameters: ["since": "soon"], settings: ProviderRunner.Settings(baseURL: base + "/stream"))
        #expect(wrong.error?.kind == .usage)
    }
}
