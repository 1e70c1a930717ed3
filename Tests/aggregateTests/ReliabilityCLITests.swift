import AggregateCore
import AggregateSandbox
import Foundation
import MessageBoardProvider
import MessageBoardSandbox
import Testing

/// The smaller defects of issue 14, each through the built binary or the in-process CLI.
@Suite struct ReliabilityCLITests {
    @Test func pathsPrintedByPathsReadBackThroughPath() throws {
        // Keys that start with a combining mark and a prepended mark (U+070F), as in the report.
        let document = "{\"\u{0301}x\":1,\"\u{070F}\":2,\"\u{0600}3\":[4]}"
        let listed = try Binary.run(["browse", "-", "--paths"], stdin: document)
        #expect(listed.status == 0, "\(listed.stderr)")
        let paths = listed.stdout.split(separator: "\n").compactMap { $0.components(separatedBy: " = ").first }
        #expect(paths.count == 3, "\(listed.stdout)")
        for path in paths {
            let read = try Binary.run(["browse", "-", "--path", path], stdin: document)
            #expect(read.status == 0, "\(path): \(read.stderr)")
        }
    }

    @Test(arguments: [["--base-url", ""], ["--base-url", " "], ["--base-url", "http://127.0.0.1:99999"], ["--base-url", "http://127.0.0.1:0"]])
    func badBaseURLsAreConfigurationErrorsBeforeAnyRequest(_ option: [String]) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await CLIHarness(environment: ["MEETUP_API_KEY": "k"]).run(["meetup", "--lat", "1", "--lon", "2", "--api", "v2"] + option)
        #expect(output.code.rawValue == 78)
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(output.stderr.hasPrefix("Error: meetup: "))
        #expect(sandbox.server.requestCount == 0)
    }

    @Test(arguments: [
        ["meetup", "--lat", "1", "--lon", "2", "--timeout", "0x10"], ["meetup", "--lat", "1", "--lon", "2", "--timeout", "1e-300"],
        ["meetup", "--lat", "1", "--lon", "2", "--timeout", "inf"], ["meetup", "--lat", "0x1p3", "--lon", "2"],
        ["meetup", "--lat", "1e1", "--lon", "2"], ["meetup", "--lat", "91", "--lon", "2"], ["meetup", "--lat", "nan", "--lon", "2"],
        ["sandbox", "--latency", "0x10"], ["sandbox", "--fail-rate", "1e-1"], ["browse", "-", "--timeout", "0x1p3"],
    ])
    func numbersAreDecimalAndInRange(_ arguments: [String]) async {
        let output = await CLIHarness(environment: ["MEETUP_API_KEY": "k"], stdin: "{}").run(arguments + ["--offline"].filter { _ in arguments[0] == "meetup" })
        #expect(output.code.rawValue == 64, "\(arguments): \(output.stderr)")
        #expect(output.stderr.hasPrefix("Error: "))
    }

    @Test func decimalNumbersStillWork() async {
        let output = await CLIHarness().run(["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--offline", "--timeout", "2.5", "--limit", "1"])
        #expect(output.code == .success, "\(output.stderr)")
    }

    @Test func aDataDirectoryThatIsAFileIsRefusedAtStart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-not-a-dir-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try Binary.run(["sandbox", "--port", "0", "--data-dir", file.path], timeout: 20)
        #expect(output.status == 78)
        #expect(output.stderr == "Error: sandbox: the data directory \(file.path) is a file, not a directory: pass --data-dir with a directory\n")
    }

    @Test func aRateLimitedPostSaysItWasNotRetried() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; retry-after=0; method=POST"], sandboxes: [MessageBoardSandbox.self])
        let board = CLIHarness(environment: ["MESSAGEBOARD_URL": sandbox.server.baseURL.appendingEndpoint("/messageboard").absoluteString])
        let output = await board.run(["messageboard", "post", "--name", "Joe", "--message", "Hi"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: messageboard: not saved: the board is rate limiting (HTTP 429), and a POST is never retried; wait before posting again\n")
        #expect(!output.stderr.contains("retries ran out"))
        #expect(sandbox.server.requestCount == 1)
    }
}
