import AggregateCore
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import Testing
import aggregate

/// Every provider command (GET and POST) against every kind of failure, over the loopback sandbox: the exit code,
/// exactly one error line, how many requests were sent, and no credential anywhere in the output.
/// `Benchmarks/fault-matrix.sh` prints the same matrix as a table (through `AGGREGATE_FAULT_MATRIX_TABLE`).
@Suite(.serialized) struct FaultMatrixTests {
    struct Command: Sendable {
        var name: String
        var method: String
        var arguments: [String]
        var credentials: [String]
        /// Whether the fetch layer may retry it (GET, and POSTs that only read, such as GraphQL queries).
        var retried: Bool
        var provider: String { arguments[0] }
    }

    struct Fault: Sendable {
        var name: String
        /// The server-wide rule; `PORT` becomes the sandbox's port.
        var spec: String
        /// Whether the failure is retried for a retryable command (429/502/503/504 and dropped connections).
        var retryable: Bool
    }

    static let commands = [
        Command(name: "meetup v2", method: "GET", arguments: ["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--api", "v2"], credentials: ["MEETUP_API_KEY"], retried: true),
        Command(name: "meetup graphql", method: "POST", arguments: ["meetup", "--lat", "51.509980", "--lon", "-0.133700", "--api", "graphql"], credentials: ["MEETUP_TOKEN"], retried: true),
        Command(name: "kiva rest", method: "GET", arguments: ["kiva", "newest", "--api", "rest"], credentials: [], retried: true),
        Command(name: "kiva graphql", method: "POST", arguments: ["kiva", "newest"], credentials: [], retried: true),
        Command(name: "tmdb search", method: "GET", arguments: ["tmdb", "search", "batman"], credentials: ["TMDB_ACCESS_TOKEN"], retried: true),
        Command(name: "twitter v2", method: "GET", arguments: ["twitter", "orbitalnotes"], credentials: ["X_BEARER_TOKEN"], retried: true),
        Command(name: "twitter v1.1", method: "GET", arguments: ["twitter", "orbitalnotes", "--api", "v1.1"], credentials: ["X_BEARER_TOKEN"], retried: true),
        Command(name: "messageboard list", method: "GET", arguments: ["messageboard", "list"], credentials: [], retried: true),
        Command(name: "messageboard post", method: "POST", arguments: ["messageboard", "post", "--name", "Joe", "--message", "Hi"], credentials: [], retried: false),
    ]

    static let faults = [
        Fault(name: "401", spec: "status=401", retryable: false),
        Fault(name: "403", spec: "status=403", retryable: false),
        Fault(name: "404", spec: "status=404", retryable: false),
        Fault(name: "429 Retry-After", spec: "status=429; retry-after=1", retryable: true),
        Fault(name: "500", spec: "status=500", retryable: false),
        Fault(name: "502", spec: "status=502", retryable: true),
        Fault(name: "503", spec: "status=503", retryable: true),
        Fault(name: "504", spec: "status=504", retryable: true),
        Fault(name: "timeout", spec: "delay=3s", retryable: false),
        Fault(name: "truncated", spec: "truncate", retryable: true),
        Fault(name: "malformed", spec: "malformed", retryable: false),
        Fault(name: "HTML", spec: "html; status=502", retryable: true),
        Fault(name: "oversize", spec: "size=40MiB", retryable: false),
        Fault(name: "connection closed", spec: "close", retryable: true),
        Fault(name: "redirect elsewhere", spec: "redirect=http://localhost:PORT/elsewhere", retryable: false),
        Fault(name: "redirect loop", spec: "redirect=/loop", retryable: false),
    ]

    /// What one cell should show.
    struct Expectation: Equatable, CustomStringConvertible {
        var exit: Int32
        var requests: Int
        var description: String { "exit \(exit), \(requests) request\(requests == 1 ? "" : "s")" }
    }

    /// The rules the fetch layer documents: 4xx/5xx, timeouts, bad bodies and the size cap end at once; 429, 502,
    /// 503, 504 and dropped connections are retried 3 times for retryable commands (never for a write); a
    /// redirect is followed up to 5 times, and a loop stops as soon as it comes back to a URL it has been to.
    static func expected(_ command: Command, _ fault: Fault) -> Expectation {
        switch fault.name {
        case "redirect loop": return Expectation(exit: 1, requests: 2)
        // The other origin (this sandbox as `localhost`) gets the request without credentials and has no such path.
        case "redirect elsewhere": return Expectation(exit: 1, requests: 2)
        // X's 429 carries its reset time, 10 minutes away here: beyond the retry budget, so it is reported at once
        // with the local time it resets (README, Twitter/X).
        case "429 Retry-After" where command.provider == "twitter": return Expectation(exit: 1, requests: 1)
        default:
            let retries = command.retried && fault.retryable ? RetryPolicy().maxRetries : 0
            return Expectation(exit: 1, requests: 1 + retries)
        }
    }

    struct Cell: Sendable {
        var command: String
        var fault: String
        var exit: Int32
        var requests: Int
        var errorLines: Int
        var leaked: Bool
        var message: String
    }

    static let secrets = allSandboxes.flatMap { $0.sandboxEnvironment.values }

    static func run(_ command: Command, _ fault: Fault) async throws -> Cell {
        // X's 429 resets at the end of its 15-minute window, which near a window's end is within the retry budget;
        // pinned 10 minutes away, the cell does not depend on the time of day.
        let sandbox = try LoopbackSandbox(settings: ["twitter.rate-limit-reset": "600"], sandboxes: allSandboxes)
        let port = sandbox.server.port
        // The rule applies once for a redirect elsewhere (so the other origin answers normally), else always.
        let spec = fault.spec.replacingOccurrences(of: "PORT", with: String(port)) + (fault.name == "redirect elsewhere" ? "; times=1" : "")
        sandbox.server.addFault(try SandboxFault.parse(spec))
        var environment: [String: String] = [:]
        for provider in allProviders {
            environment[provider.descriptor.baseURLVariable] = sandbox.server.baseURL.appendingEndpoint("/\(provider.descriptor.name)").absoluteString
        }
        for variable in command.credentials {
            environment[variable] = allSandboxes.compactMap { $0.sandboxEnvironment[variable] }.first
        }
        var harness = CLIHarness(environment: environment)
        harness.retrySleep = { _ in }
        let output = await harness.run(command.arguments + ["--timeout", fault.name == "timeout" ? "0.5" : "10", "--quiet"])
        let text = output.stdout + output.stderr
        let lines = output.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        return Cell(
            command: command.name, fault: fault.name, exit: output.code.rawValue, requests: sandbox.server.requestCount,
            errorLines: lines.count, leaked: secrets.contains { text.contains($0) }, message: String(lines.first ?? ""))
    }

    @Test(arguments: commands.indices)
    func everyFailureEndsCleanly(_ commandIndex: Int) async throws {
        let command = Self.commands[commandIndex]
        var table: [Cell] = []
        for fault in Self.faults {
            let cell = try await Self.run(command, fault)
            table.append(cell)
            let want = Self.expected(command, fault)
            let context = "\(command.name) × \(fault.name): \(cell.message)"
            #expect(Expectation(exit: cell.exit, requests: cell.requests) == want, "\(context)")
            #expect(cell.errorLines == 1 && cell.message.hasPrefix("Error: \(command.provider): "), "\(context)")
            #expect(!cell.leaked, "\(context): a credential reached the output")
        }
        if let path = ProcessInfo.processInfo.environment["AGGREGATE_FAULT_MATRIX_TABLE"] {
            let rows = table.map { "\($0.command)\t\($0.fault)\t\($0.exit)\t\($0.requests)\t\($0.errorLines)\t\($0.leaked ? "LEAK" : "none")\t\($0.message)" }
            let handle = FileHandle(forWritingAtPath: path) ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)!
            }()
            handle.seekToEndOfFile()
            handle.write(Data((rows.joined(separator: "\n") + "\n").utf8))
            handle.closeFile()
        }
    }
}
