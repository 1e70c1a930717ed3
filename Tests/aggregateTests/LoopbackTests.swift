import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing

/// A sandbox server on a free loopback port for the duration of a test.
final class LoopbackSandbox: Sendable {
    let server: SandboxServer
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-loopback-\(UUID().uuidString)")

    init(
        host: String = "127.0.0.1", failRate: Double = 0, faults: [String] = [], settings: [String: String] = [:],
        sandboxes: [any SandboxProviding.Type] = allSandboxes
    ) throws {
        var configuration = SandboxServerConfiguration(host: host, port: 0, failRate: failRate, log: { _ in })
        configuration.faults = try faults.map(SandboxFault.parse)
        configuration.store = SandboxStore(directory: dataDirectory)
        configuration.settings = settings
        server = SandboxServer(catalog: try TestRegistry.builtIn(sandboxes: sandboxes), configuration: configuration)
        try server.start()
    }

    var url: String { server.baseURL.absoluteString }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}

/// The real URLSession transport and the shared fetch layer against the sandbox over loopback, through the CLI:
/// every failure ends with the documented exit code and one clear line.
@Suite(.serialized) struct MeetupLoopbackTests {
    let key = MeetupProvider_sandboxKey
    func harness(_ sandbox: LoopbackSandbox) -> CLIHarness {
        CLIHarness(environment: ["MEETUP_API_KEY": key, "AGGREGATE_MEETUP_BASE_URL": sandbox.url])
    }
    let london = ["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--api", "v2"]

    @Test func pagesThroughSeveralPagesOfV2() async throws {
        let sandbox = try LoopbackSandbox()
        // 18 London groups at page size 5 need 4 pages.
        let output = await harness(sandbox).run(london + ["--limit", "5", "--format", "json"])
        #expect(output.code == .success)
        let v2page = try JSONParser().parse(output.stdout)["results"]?[0]
        #expect(v2page?["items"]?.array?.count == 5)
        #expect(v2page?["meta"]?["nextCursor"] == "1")
        let all = await harness(sandbox).run(london + ["--limit", "18", "--format", "json"])
        #expect(try JSONParser().parse(all.stdout)["results"]?[0]?["meta"]?["pages"] == 1)
        let before = sandbox.server.requestCount
        let paged = await CLIHarness(environment: ["MEETUP_TOKEN": MeetupProvider_sandboxToken, "AGGREGATE_MEETUP_BASE_URL": sandbox.url])
            .run(["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--limit", "7", "--format", "json"])
        let result = try JSONParser().parse(paged.stdout)["results"]?[0]
        #expect(result?["items"]?.array?.count == 7)
        #expect(sandbox.server.requestCount - before == 1, "GraphQL asks for the whole limit in one page")
    }

    @Test func twoAndMorePagesWhenThePageSizeIsSmallerThanTheLimit() async throws {
        let sandbox = try LoopbackSandbox()
        // The v2 page size is min(limit, 200); the sandbox's 40 groups within 100 miles of nowhere... use a wide radius.
        let output = await harness(sandbox).run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--radius", "100", "--api", "v2", "--limit", "200", "--format", "json"])
        #expect(output.code == .success)
        let ids = try JSONParser().parse(output.stdout)["results"]?[0]?["items"]?.array?.compactMap { $0["id"]?.string } ?? []
        #expect(ids.count == 18 && Set(ids).count == 18)
    }

    @Test func wrongKeyGetsMeetups401Body() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await CLIHarness(environment: ["MEETUP_API_KEY": "not-the-key", "AGGREGATE_MEETUP_BASE_URL": sandbox.url]).run(london)
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: meetup: the API key was rejected (HTTP 401). Check MEETUP_API_KEY.\n")
    }

    @Test func rateLimitedOnceThenSucceeds() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; retry-after=1; times=1"])
        let output = await harness(sandbox).run(london + ["--limit", "3", "--verbose"])
        #expect(output.code == .success)
        #expect(output.stdout.split(separator: "\n").count == 3)
        #expect(output.stderr.contains("meetup: retrying in 1.0 s after HTTP 429 (retry 1 of 3)"))
        #expect(sandbox.server.requestCount == 2)
    }

    @Test func serviceUnavailableUntilRetriesRunOut() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=503; retry-after=0"])
        let output = await harness(sandbox).run(london)
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: meetup: the API answered HTTP 503: Service Unavailable: injected by the sandbox\n")
        #expect(sandbox.server.requestCount == 4, "the first try and 3 retries")
    }

    @Test(arguments: [
        ("truncate", "Error: meetup: the request to 127.0.0.1 failed: transfer closed with "),
        ("html", "Error: meetup: the server answered HTTP 500 with an HTML page\n"),
        ("status=200; html", "Error: meetup: the API sent an HTML page instead of JSON (HTTP 200)\n"),
        ("malformed", "Error: meetup: the API sent malformed JSON (HTTP 200): "),
        ("close", "Error: meetup: "),
    ])
    func brokenResponsesEndInOneClearLine(fault: String, expected: String) async throws {
        let sandbox = try LoopbackSandbox(faults: [fault])
        let output = await harness(sandbox).run(london)
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix(expected), "got: \(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func responsesOverTheSizeCapAreRefused() async throws {
        let sandbox = try LoopbackSandbox(faults: ["size=40MiB"])
        let output = await harness(sandbox).run(london)
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: meetup: the response is larger than the 32 MiB size cap\n")
    }

    @Test func aServerSlowerThanTheTimeoutTimesOut() async throws {
        let sandbox = try LoopbackSandbox(faults: ["delay=10s"])
        let output = await harness(sandbox).run(london + ["--timeout", "0.5"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: meetup: no response within 0.5 s (the --timeout); the server may be slow or unreachable\n")
    }

    @Test func nothingListeningIsANetworkError() async throws {
        let output = await CLIHarness(environment: ["MEETUP_API_KEY": key, "AGGREGATE_MEETUP_BASE_URL": "http://127.0.0.1:9"]).run(london + ["--timeout", "2"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasPrefix("Error: meetup: cannot connect to 127.0.0.1:9"))
    }

    @Test func theMarkerKeyAppearsNowhereEvenWhenEveryRequestFails() throws {
        // Every request fails (retry-after=0 keeps the retries quick).
        let sandbox = try LoopbackSandbox(faults: ["status=503; retry-after=0"])
        let marker = "MARKER-\(UUID().uuidString)"
        let dataHome = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-marker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataHome) }
        let environment = ["MEETUP_API_KEY": marker, "AGGREGATE_MEETUP_BASE_URL": sandbox.url, "XDG_DATA_HOME": dataHome.path]
        for extra in [["--verbose"], ["--format", "json", "--verbose"], ["--raw"], ["--format", "ndjson"]] {
            let output = try Binary.run(london + extra, environment: environment)
            #expect(output.status == 1)
            #expect(!output.stdout.contains(marker) && !output.stderr.contains(marker))
            #expect(output.stderr.contains("HTTP 503"))
        }
        let written = FileManager.default.enumerator(atPath: dataHome.path)?.allObjects as? [String] ?? []
        for file in written {
            let contents = (try? String(contentsOfFile: dataHome.appendingPathComponent(file).path, encoding: .utf8)) ?? ""
            #expect(!contents.contains(marker), "\(file) must not hold the key")
        }
    }
}

let MeetupProvider_sandboxKey = "sandbox-meetup-key"
let MeetupProvider_sandboxToken = "sandbox-meetup-token"
