import AggregateCore
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import Testing
import aggregate

/// `--record DIR` against the sandbox over loopback, then `--replay DIR` with the sandbox stopped (or
/// `aggregate sandbox --replay DIR` serving the cassette): the same output, and no credential in the cassette.
@Suite(.serialized) struct RecordReplayTests {
    static let registry = try! SandboxCatalog(allProviders, sandboxes: allSandboxes)
    static let tmdbKey = registry.sandbox(named: "tmdb")?.sandboxEnvironment["TMDB_API_KEY"] ?? ""
    static let xToken = registry.sandbox(named: "twitter")?.sandboxEnvironment["X_BEARER_TOKEN"] ?? ""

    let cassettes = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cassettes-\(UUID().uuidString)")

    func environment(_ sandbox: LoopbackSandbox) -> [String: String] {
        [
            "TMDB_API_KEY": Self.tmdbKey, "AGGREGATE_TMDB_BASE_URL": sandbox.url + "/tmdb", "X_BEARER_TOKEN": Self.xToken,
            "AGGREGATE_TWITTER_BASE_URL": sandbox.url + "/twitter", "AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva", "TZ": "UTC",
        ]
    }

    /// The base URLs alone: a replay needs no credential.
    func baseURLs(_ environment: [String: String]) -> [String: String] { environment.filter { $0.key.hasSuffix("_BASE_URL") || $0.key == "TZ" } }

    func cassetteText(_ directory: URL) throws -> String { try String(contentsOf: Cassette.file(in: directory), encoding: .utf8) }

    /// Runs `arguments` with `--record` against `sandbox`, stops it, and runs them again with `--replay` and no
    /// credentials; returns both outputs and the requests the sandbox served.
    func roundTrip(
        _ arguments: [String], sandbox: LoopbackSandbox, directory: URL
    ) async -> (live: CLIHarness.Output, replayed: CLIHarness.Output, served: Int) {
        let environment = environment(sandbox)
        let live = await CLIHarness(environment: environment).run(arguments + ["--record", directory.path])
        #expect(live.code == .success, "\(live.stderr)")
        let served = sandbox.server.requestCount
        sandbox.server.stop()
        let replayed = await CLIHarness(environment: baseURLs(environment)).run(arguments + ["--replay", directory.path])
        return (live, replayed, served)
    }

    @Test func aRecordedRunReplaysToTheSameJSONWithTheSandboxStopped() async throws {
        let directory = cassettes.appendingPathComponent("tmdb")
        let (live, replayed, served) = await roundTrip(
            ["tmdb", "popular", "--limit", "45", "--format", "json"], sandbox: try LoopbackSandbox(), directory: directory)
        #expect(replayed.code == .success, "\(replayed.stderr)")
        #expect(live.stdout.contains(#""source": "live""#) && replayed.stdout.contains(#""source": "replay""#))
        #expect(try stabilized(asRecorded(replayed.stdout)) == stabilized(live.stdout))
        #expect(replayed.stderr == live.stderr)
        let text = try cassetteText(directory)
        #expect(!text.contains(Self.tmdbKey) && text.contains("api_key=***"))
        #expect(try Cassette.load(from: directory).exchanges.count == served)
    }

    @Test func compareRecordsEveryInvocationInOneCassetteAndReplaysIt() async throws {
        let directory = cassettes.appendingPathComponent("compare")
        let arguments = ["compare", "tmdb search batman", "twitter orbitalnotes --limit 5", "kiva newest --api rest --limit 3", "--format", "json"]
        let (live, replayed, _) = await roundTrip(arguments, sandbox: try LoopbackSandbox(), directory: directory)
        #expect(replayed.code == .success, "\(replayed.stderr)")
        #expect(try stabilizedComparison(asRecorded(replayed.stdout)) == stabilizedComparison(live.stdout))
        let text = try cassetteText(directory)
        #expect(!text.contains(Self.tmdbKey) && !text.contains(Self.xToken) && text.contains("Bearer ***"))
        #expect(Set(try Cassette.load(from: directory).exchanges.map(\.provider)) == ["tmdb", "twitter", "kiva"])
    }

    @Test(arguments: [
        ("status=503; times=1; path=/kiva/v1/", "HTTP 503"),
        ("close; times=1; path=/kiva/v1/", "127.0.0.1 sent an invalid HTTP response"),
    ])
    func aRecordedFaultReplaysAsTheSameFault(fault: String, reason: String) async throws {
        let directory = cassettes.appendingPathComponent("fault")
        let (live, replayed, _) = await roundTrip(
            ["kiva", "newest", "--api", "rest", "--limit", "3", "--format", "json", "--verbose"], sandbox: try LoopbackSandbox(faults: [fault]),
            directory: directory)
        #expect(try stabilized(asRecorded(replayed.stdout)) == stabilized(live.stdout))
        let retries = { (text: String) in text.split(separator: "\n").filter { $0.contains("retrying in") && $0.contains(reason) }.count }
        #expect(retries(live.stderr) == 1 && retries(replayed.stderr) == 1, "\(replayed.stderr)")
        #expect(try Cassette.load(from: directory).exchanges.count == 2)
    }

    @Test func theSandboxServesACassette() async throws {
        let directory = cassettes.appendingPathComponent("served")
        let sandbox = try LoopbackSandbox()
        let arguments = ["twitter", "orbitalnotes", "--limit", "5", "--format", "json"]
        let live = await CLIHarness(environment: environment(sandbox)).run(arguments + ["--record", directory.path])
        #expect(live.code == .success, "\(live.stderr)")
        sandbox.server.stop()

        var configuration = SandboxServerConfiguration(port: 0, log: { _ in })
        configuration.replayer = try CassetteReplayer(directory: directory)
        let replaying = SandboxServer(catalog: Self.registry, configuration: configuration)
        try replaying.start()
        defer { replaying.stop() }
        let base = replaying.baseURL.absoluteString + "/twitter"
        // Any credential matches the recorded ***.
        let served = await CLIHarness(environment: ["AGGREGATE_TWITTER_BASE_URL": base, "X_BEARER_TOKEN": "another-token-entirely", "TZ": "UTC"]).run(arguments)
        #expect(served.code == .success, "\(served.stderr)")
        #expect(try stabilized(served.stdout) == stabilized(live.stdout))
        // Each recorded exchange is served once: the same run again finds none left.
        let again = await CLIHarness(environment: ["AGGREGATE_TWITTER_BASE_URL": base, "X_BEARER_TOKEN": "another-token-entirely"]).run(arguments)
        #expect(again.code == .failure)
        #expect(again.stderr.hasPrefix("Error: twitter: ") && again.stderr.split(separator: "\n").count == 1)
    }

    @Test func aCorruptCassetteAndAnUnrecordedRequestAreOneLineEach() async throws {
        let directory = cassettes.appendingPathComponent("corrupt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{\"format\": \"aggregate-cassette\", \"version\": 1, \"exchan".utf8).write(to: Cassette.file(in: directory))
        let corrupt = await CLIHarness().run(["tmdb", "popular", "--replay", directory.path])
        #expect(corrupt.code == .dataError)
        #expect(corrupt.stderr.hasPrefix("Error: tmdb: the cassette \(Cassette.file(in: directory).path) is not valid JSON"))
        #expect(corrupt.stderr.split(separator: "\n").count == 1 && corrupt.stdout.isEmpty)

        try Cassette(recordedAt: Date(), credentialVariables: ["TMDB_API_KEY"]).save(to: directory)
        let unmatched = await CLIHarness(environment: ["AGGREGATE_TMDB_BASE_URL": "http://127.0.0.1:9/tmdb"]).run(["tmdb", "popular", "--replay", directory.path])
        #expect(unmatched.code == .config)
        #expect(unmatched.stderr == "Error: tmdb: the cassette \(Cassette.file(in: directory).path) has no recorded answer for GET http://127.0.0.1:9/tmdb/configuration?api_key=*** (or no more of them): replay the same command, or record it again with --record\n")

        let both = await CLIHarness().run(["tmdb", "popular", "--replay", directory.path, "--record", directory.path])
        #expect(both.code == .usage)
        let offline = await CLIHarness().run(["tmdb", "popular", "--replay", directory.path, "--offline"])
        #expect(offline.code == .usage && offline.stderr.hasPrefix("Error: tmdb: --replay answers from a cassette; it cannot be used with --offline"))
    }

    /// A replay's JSON as the recorded run printed it: everything is the same but `meta.source`.
    func asRecorded(_ replayed: String) -> String {
        replayed.replacingOccurrences(of: #""source": "replay""#, with: #""source": "live""#)
    }

    /// `compare --format json` with every elapsed time set to 0.
    func stabilizedComparison(_ json: String) throws -> String {
        var text = try stabilized(json)
        text = text.replacingOccurrences(of: #""elapsedMs" : [0-9.e+-]+"#, with: "\"elapsedMs\" : 0", options: .regularExpression)
        return text.replacingOccurrences(of: #""(elapsedMs|milliseconds|timeMs)": [0-9.e+-]+"#, with: "\"$1\": 0", options: .regularExpression)
    }
}
