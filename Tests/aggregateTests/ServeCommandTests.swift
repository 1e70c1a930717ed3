import AggregateJSON
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `aggregate serve` as a real process over loopback: the same documents as the command line, and a clean stop.
@Suite struct ServeCommandTests {
    /// A started `aggregate serve --offline --port 0`, its URL and its stderr.
    struct Running {
        let process: Process
        let reader: LineReader
        let url: String
    }

    static func start(_ extra: [String] = []) throws -> Running {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = ["serve", "--offline", "--port", "0"] + extra
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-serve-\(UUID().uuidString)").path
        environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-serve-config-\(UUID().uuidString)").path
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        let reader = LineReader(err.fileHandleForReading)
        let banner = try #require(reader.line(containing: "listening on", timeout: 30))
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        return Running(process: process, reader: reader, url: url)
    }

    static func get(_ url: String) async throws -> (status: Int, body: Data) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A result document without its timings, which differ from run to run.
    static func withoutTimings(_ data: Data) throws -> String {
        let text = String(decoding: data, as: UTF8.self)
        return text.replacing(/"elapsedMs": [0-9.]+/, with: "\"elapsedMs\": 0")
    }

    @Test func anOperationAnswersTheDocumentOfFormatJSONAndSIGTERMStopsWithZero() async throws {
        let running = try Self.start()
        defer { if running.process.isRunning { running.process.terminate() } }

        let cli = try Binary.run(["hackernews", "search", "swift", "--limit", "3", "--offline", "--format", "json"])
        #expect(cli.status == 0)
        let served = try await Self.get("\(running.url)/v1/hackernews/search?query=swift&limit=3")
        #expect(served.status == 200)
        #expect(try Self.withoutTimings(served.body) == Self.withoutTimings(Data(cli.stdout.utf8)))

        let described = try await Self.get("\(running.url)/v1/providers/hackernews")
        let describe = try Binary.run(["describe", "hackernews", "--format", "json"])
        #expect(try JSONParser().parse(described.body) == JSONParser().parse(describe.stdout))

        let unknown = try await Self.get("\(running.url)/v1/hackernews/search?qeury=swift")
        #expect(unknown.status == 400)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("did you mean 'query'?"))

        let logged = try #require(running.reader.line(containing: "\"path\":\"/v1/hackernews/search\"", timeout: 10))
        #expect(!logged.contains("swift"), "the query is not logged")

        running.process.terminate()
        #expect(running.reader.line(containing: "aggregate serve stopped", timeout: 30) != nil)
        running.process.waitUntilExit()
        #expect(running.process.terminationStatus == 0)
    }

    @Test func mistakesAreOneLineWithTheirExitCode() throws {
        let bind = try Binary.run(["serve", "--bind", "0.0.0.0", "--port", "0"])
        #expect(bind.status == 64)
        #expect(bind.stderr.contains("--token-file"))
        #expect(try Binary.run(["serve", "--client-budget", "lots"]).status == 64)
        #expect(try Binary.run(["serve", "--port", "70000"]).status == 64)
        let missing = try Binary.run(["serve", "--token-file", "/nonexistent/tokens"])
        #expect(missing.status == 78)
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }
}
