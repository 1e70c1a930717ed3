import AggregateCore
import AggregateJSON
import AggregateSandbox
import Foundation
import Testing

/// Run-time definitions through the built binary: the config folder, `AGGREGATE_PROVIDER_PATH` and
/// `--provider-file`, origins in `aggregate providers`, shadowing and broken definitions.
@Suite(.serialized) struct RunTimeDefinitionTests {
    /// A fresh folder with a copy of the `pager` fixture (and its samples), renamed `name` and changed by `edit`.
    static func copyOfPager(named name: String, into folder: URL, file: String? = nil, edit: (inout JSONObject) -> Void = { _ in }) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = DefinitionFixtures.pager.deletingLastPathComponent()
        let samples = folder.appendingPathComponent("SampleData")
        if !FileManager.default.fileExists(atPath: samples.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent("SampleData"), to: samples)
        }
        guard case .object(var definition) = try JSONParser().parse(Data(contentsOf: DefinitionFixtures.pager)) else { throw AggregateError(.decoding, "not an object") }
        definition["name"] = .string(name)
        definition["examples"] = nil
        edit(&definition)
        let target = folder.appendingPathComponent(file ?? "\(name).json")
        try JSONWriter(pretty: true).data(.object(definition)).write(to: target)
        return target
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-definitions-\(UUID().uuidString)")
    }

    @Test func aRenamedCopyInTheConfigFolderIsListedAndRunsOfflineAndAgainstAServer() async throws {
        let config = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: config) }
        let file = try Self.copyOfPager(named: "pg2", into: config.appendingPathComponent("aggregate/providers"))
        let environment = ["XDG_CONFIG_HOME": config.path]

        let list = try Binary.run(["providers"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.contains("pg2"))
        #expect(list.stdout.contains("[built-in Swift] Meetup"))
        let json = try JSONParser().parse(Data(try Binary.run(["providers", "--format", "json"], environment: environment).stdout.utf8))
        let entry = try #require(json.array?.first { $0["name"] == "pg2" })
        #expect(entry["origin"] == .string(file.path))

        let offline = try Binary.run(["pg2", "pages", "swift", "--offline", "--format", "json"], environment: environment)
        #expect(offline.status == 0, "\(offline.stderr)")
        let items = try JSONParser().parse(Data(offline.stdout.utf8))["results"]?[0]?["items"]?.array
        #expect(items?.count == 7)

        let server = try DefinitionServer()
        let live = try Binary.run(["pg2", "links", "swift", "--base-url", server.server.baseURL.appendingEndpoint("/pager").absoluteString], environment: environment)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(live.stdout.split(separator: "\n").count == 7, "three pages by the Link header, shown by the text view")
        #expect(live.stdout.hasPrefix("Record 1 by user1 (10 points)\n"))
    }

    @Test func theProviderPathAndProviderFileAddDefinitions() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.copyOfPager(named: "frompath", into: folder.appendingPathComponent("a"))
        let explicit = try Self.copyOfPager(named: "fromfile", into: folder.appendingPathComponent("b"))
        let environment = ["AGGREGATE_PROVIDER_PATH": "/nonexistent:" + folder.appendingPathComponent("a").path]
        let list = try Binary.run(["--provider-file", explicit.path, "providers"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.contains("frompath"))
        #expect(list.stdout.contains("fromfile"))
        let run = try Binary.run(["fromfile", "single", "x", "--offline", "--provider-file=\(explicit.path)"], environment: [:])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Record 1 by user1 (10 points)\nRecord 2 by user2 (20 points)\n")
        let missing = try Binary.run(["providers", "--provider-file"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: --provider-file needs a FILE"))
    }

    @Test func shadowingABuiltInNameIsAConfigErrorOnlyForThatName() throws {
        let config = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: config) }
        let file = try Self.copyOfPager(named: "tmdb", into: config.appendingPathComponent("aggregate/providers"))
        let environment = ["XDG_CONFIG_HOME": config.path]
        let run = try Binary.run(["tmdb", "popular", "--offline"], environment: environment)
        #expect(run.status == 78)
        #expect(run.stderr == "Error: tmdb: \(file.path): /name: 'tmdb' is already a built-in provider; rename the definition (run-time definitions may not shadow another provider)\n")
        let list = try Binary.run(["providers"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.contains("BROKEN"))
        let other = try Binary.run(["kiva", "--offline", "--limit", "1"], environment: environment)
        #expect(other.status == 0, "\(other.stderr)")
    }

    @Test func aBrokenDefinitionFailsOnlyWhenUsedWithItsFileAndPointer() throws {
        let config = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: config) }
        let folder = config.appendingPathComponent("aggregate/providers")
        let broken = try Self.copyOfPager(named: "bad", into: folder) { definition in
            guard case .array(var operations) = definition["operations"], case .object(var first) = operations[0],
                  case .object(var request) = first["request"]
            else { return }
            request["query"] = ["q": "{qeury}"]
            first["request"] = .object(request)
            operations[0] = .object(first)
            definition["operations"] = .array(operations)
        }
        let notJSON = folder.appendingPathComponent("notjson.json")
        try Data("{\"name\": ".utf8).write(to: notJSON)
        _ = try Self.copyOfPager(named: "good", into: folder)
        let environment = ["XDG_CONFIG_HOME": config.path]

        let list = try Binary.run(["providers"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.components(separatedBy: "BROKEN").count == 3, "\(list.stdout)")

        let run = try Binary.run(["bad", "pages", "swift", "--offline"], environment: environment)
        #expect(run.status == 78)
        #expect(run.stderr == "Error: bad: \(broken.path): /operations/0/request/query/q: the template names 'qeury', which is not a parameter of 'pages' (declared: query, sort, by-date)\n")
        let unreadable = try Binary.run(["notjson"], environment: environment)
        #expect(unreadable.status == 78)
        #expect(unreadable.stderr.hasPrefix("Error: notjson: \(notJSON.path): /: is not valid JSON"))
        #expect(unreadable.stderr.split(separator: "\n").count == 1)

        let good = try Binary.run(["good", "single", "x", "--offline"], environment: environment)
        #expect(good.status == 0, "\(good.stderr)")
    }

    @Test func offlineWithoutSamplesSaysThereAreNone() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Self.copyOfPager(named: "bare", into: folder) { $0["samples"] = nil }
        let run = try Binary.run(["--provider-file", file.path, "bare", "pages", "swift", "--offline"])
        #expect(run.status == 78)
        #expect(run.stderr.hasSuffix("Error: bare: bare has no sample data: its definition lists no samples for 'pages'. Run it without --offline (--base-url URL for a server of your own)\n"))
    }
}
