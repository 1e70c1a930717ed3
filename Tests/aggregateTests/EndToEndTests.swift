import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing

/// End-to-end runs of the built binary: exit codes, stderr lines, and help in swift-argument-parser's layout.
@Suite struct EndToEndTests {
    @Test func readmeQuickStartCommandWorksOffline() throws {
        let output = try Binary.run(["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--offline"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 18, "all 18 bundled groups within 25 miles of London (fewer than the default limit of 20)")
        #expect(lines.allSatisfy { $0.count <= 80 }, "80 columns when stdout is not a terminal")
        #expect(output.stderr == "note: meetup: offline: these are the sandbox's bundled sample data, not live results\n")
        #expect(!output.stdout.contains("\u{1B}["), "no colour when not a terminal")
    }

    @Test func unknownProviderIsAUsageErrorListingTheProviders() throws {
        let output = try Binary.run(["nosuch", "--limit", "3"])
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        let names = try TestRegistry.builtIn().registry.names.joined(separator: ", ")
        #expect(output.stderr.hasPrefix("Error: unknown provider or command 'nosuch'. Valid providers: \(names)."))
        #expect(output.stderr.hasSuffix("Usage: aggregate <command> [arguments] [options]\n  See 'aggregate --help' for more information.\n"))
    }

    @Test func missingCredentialsExit78WithOneLine() throws {
        let output = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13"])
        #expect(output.status == 78)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: meetup: no credentials: set MEETUP_TOKEN (GraphQL API) or MEETUP_API_KEY (API v2), or use --offline to see sample data\n")
    }

    @Test(arguments: [
        (["meetup", "--lat", "91", "--lon", "0", "--offline"], "Error: meetup: --lat must be between -90 and 90, not 91"),
        (["meetup", "--lon", "0", "--offline"], "Error: meetup: missing --lat <DEGREES> for 'meetup groups'"),
        (["meetup", "--lat", "1", "--lon", "2", "--limit", "0", "--offline"], "Error: meetup: --limit must be a whole number from 1 to 10000, not '0'"),
        (["meetup", "--lat", "1", "--lon", "2", "--formt", "json"], "Error: meetup: unknown option '--formt'; did you mean '--format'?"),
        (["meetup", "--lat", "1", "--lon", "2", "--api", "v3"], "Error: meetup: --api must be one of graphql, v2, not 'v3'"),
        (["meetup", "extra", "--lat", "1", "--lon", "2"], "Error: meetup: unexpected argument 'extra'"),
        (["meetup", "--lat", "1", "--lon", "2", "--base-url", "http://example.com"], "Error: meetup: refusing plain http:// to example.com: use https://, or pass --allow-http to send requests to it unencrypted"),
    ])
    func badCommandLinesGiveOneClearLine(arguments: [String], firstLine: String) throws {
        let output = try Binary.run(arguments, environment: ["MEETUP_API_KEY": "k"])
        #expect(output.stderr.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(output.status == (firstLine.contains("refusing") ? 78 : 64))
        if output.status == 64 {
            #expect(output.stderr.contains("Usage: aggregate meetup [groups] --lat <DEGREES> --lon <DEGREES>"))
        }
    }

    @Test func helpAndVersion() throws {
        let help = try Binary.run(["--help"])
        #expect(help.status == 0)
        for section in ["OVERVIEW:", "USAGE:", "PROVIDERS:", "SUBCOMMANDS:", "OPTIONS:", "EXIT CODES:"] {
            #expect(help.stdout.contains(section))
        }
        let providerHelp = try Binary.run(["help", "meetup"])
        #expect(providerHelp.status == 0)
        #expect(providerHelp.stdout.contains("USAGE:\n  aggregate meetup [groups] --lat <DEGREES> --lon <DEGREES> [--radius <MILES>] [--query <TEXT>] [--api <API>] [<options>]"))
        #expect(providerHelp.stdout.contains("MEETUP_API_KEY"))
        #expect(try Binary.run(["meetup", "--help"]).stdout == providerHelp.stdout)
        let version = try Binary.run(["--version"])
        #expect(version.stdout == "\(AggregateVersion.current)\n")
    }

    @Test func providersAndDescribe() throws {
        let providers = try Binary.run(["providers"])
        #expect(providers.status == 0)
        #expect(providers.stdout.contains("meetup"))
        let describe = try Binary.run(["describe", "meetup"])
        #expect(describe.status == 0)
        for text in ["OPERATIONS:", "groups (default)", "--lat <DEGREES>", "MEETUP_TOKEN", "EXAMPLES", "aggregate meetup groups --lat 51.509980 --lon -0.133700 --offline", "https://www.meetup.com/api/guide/"] {
            #expect(describe.stdout.contains(text), "describe shows \(text)")
        }
        let json = try Binary.run(["describe", "meetup", "--format", "json"])
        #expect(try JSONParser().parse(json.stdout)["operations"]?[0]?["name"] == "groups")
        let unknown = try Binary.run(["describe", "nosuch"])
        #expect(unknown.status == 64)
    }

    @Test func jsonAndNDJSONOutputsAgree() throws {
        let json = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--format", "json", "--limit", "7"])
        let ndjson = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--format", "ndjson", "--limit", "7"])
        let document = try JSONParser().parse(json.stdout)
        let items = try #require(document["results"]?[0]?["items"]?.array)
        #expect(items.count == 7)
        let lines = ndjson.stdout.split(separator: "\n").map { try? JSONParser().parse(String($0)) }
        #expect(lines == items.map(Optional.some))
        #expect(document["results"]?[0]?["meta"]?["source"] == "offline")
    }

    @Test func rawPrintsTheResponseBodies() throws {
        let one = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--raw", "--limit", "3", "--api", "v2"])
        let body = try JSONParser().parse(one.stdout)
        #expect(body["results"]?.array?.count == 3)
        #expect(!one.stdout.contains("sandbox-meetup-key"), "the key echoed in meta.url is redacted")
        let paged = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--raw", "--limit", "3", "--api", "graphql"])
        #expect(try JSONParser().parse(paged.stdout)["data"] != nil)
    }
}

/// `aggregate sandbox` as a real process: it serves over loopback, logs redacted lines, and stops on Ctrl-C.
@Suite struct SandboxProcessTests {
    @Test func servesAndStopsCleanlyOnSIGINT() async throws {
        let process = Process()
        process.executableURL = Binary.url
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-sandbox-\(UUID().uuidString)")
        process.arguments = ["sandbox", "--port", "0", "--data-dir", data.path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let reader = LineReader(err.fileHandleForReading)
        let banner = try #require(reader.line(containing: "listening on", timeout: 20))
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))

        let output = try Binary.run(
            ["meetup", "--lat", "51.5", "--lon", "-0.13", "--api", "v2", "--limit", "2", "--base-url", url],
            environment: ["MEETUP_API_KEY": "sandbox-meetup-key"])
        #expect(output.status == 0)
        #expect(output.stdout.split(separator: "\n").count == 2)
        let logged = try #require(reader.line(containing: "GET /2/groups", timeout: 10))
        #expect(logged.contains("key=***") && !logged.contains("sandbox-meetup-key"))

        process.interrupt()
        #expect(reader.line(containing: "sandbox stopped", timeout: 15) != nil)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        try? FileManager.default.removeItem(at: data)
    }

    @Test func aTakenPortIsAConfigurationError() throws {
        let sandbox = try LoopbackSandbox()
        let output = try Binary.run(["sandbox", "--port", String(sandbox.server.port)])
        #expect(output.status == 78)
        #expect(output.stderr.hasPrefix("Error: sandbox: port \(sandbox.server.port) is already in use"))
    }

    @Test func badOptionsAreUsageErrors() throws {
        #expect(try Binary.run(["sandbox", "--fault", "status=abc"]).status == 64)
        #expect(try Binary.run(["sandbox", "--fail-rate", "2"]).status == 64)
        #expect(try Binary.run(["sandbox", "--port", "70000"]).status == 64)
        // These used to trap (exit 132) in the fault parser.
        for spec in ["=", "==", " = ", "status=503;="] {
            let output = try Binary.run(["sandbox", "--fault", spec])
            #expect(output.status == 64, "--fault '\(spec)'")
            #expect(output.stderr.contains("invalid sandbox fault"))
        }
    }
}

/// Reads lines from a pipe as they arrive, with a deadline.
final class LineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    private let handle: FileHandle

    init(_ handle: FileHandle) {
        self.handle = handle
        handle.readabilityHandler = { [weak self] file in
            let data = file.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.buffer += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
    }

    deinit { handle.readabilityHandler = nil }

    /// The first complete line containing `text`, waiting up to `timeout` seconds.
    func line(containing text: String, timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            let found = buffer.split(separator: "\n").first { $0.contains(text) }.map(String.init)
            lock.unlock()
            if let found { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}

/// The binary carries its sample data compiled in: a copy far from the build folder still answers offline.
@Suite struct SelfContainedBinaryTests {
    @Test func aCopiedBinaryRunsEveryProviderOffline() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("aggregate")
        try FileManager.default.copyItem(at: Binary.url, to: copy)
        var process = Process()
        let out = Pipe()
        // A child another test forks while the copy is being written may hold it open for a moment (ETXTBSY).
        for attempt in 1...50 {
            process = Process()
            process.executableURL = copy
            process.arguments = ["compare", "--all", "--offline", "--quiet", "--format", "json", "--limit", "2"]
            process.currentDirectoryURL = folder
            process.environment = ["XDG_DATA_HOME": folder.appendingPathComponent("data").path]
            process.standardOutput = out
            process.standardError = Pipe()
            do {
                try process.run()
                break
            } catch let error as NSError where attempt < 50 && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ETXTBSY) {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let results = try #require(try JSONParser().parse(data)["results"]?.array)
        #expect(results.count == (try TestRegistry.builtIn().registry.names.count))
        #expect(results.allSatisfy { $0["status"] == "ok" && ($0["items"]?.array?.isEmpty == false) })
    }
}
