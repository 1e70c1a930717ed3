import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `aggregate sandbox` as a separate process, started on a free port; the port is read from its start-up line.
final class SandboxProcess: @unchecked Sendable {
    let process = Process()
    let dataDirectory: URL
    private(set) var port = 0
    private let lock = NSLock()
    private var errorOutput = Data()

    enum Failure: Error, CustomStringConvertible {
        case noStartLine(String)
        var description: String {
            switch self {
            case .noStartLine(let stderr): return "aggregate sandbox printed no 'listening on' line: \(stderr)"
            }
        }
    }

    /// Starts `aggregate sandbox --port 0 --data-dir <dataDirectory> <arguments>` and waits until it listens.
    init(dataDirectory: URL, arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.dataDirectory = dataDirectory
        process.executableURL = Binary.url
        process.arguments = ["sandbox", "--port", "0", "--data-dir", dataDirectory.path] + arguments
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = reader.availableData
                if data.isEmpty { return }
                lock.lock()
                errorOutput.append(data)
                lock.unlock()
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            if let match = stderr.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), let number = Int(match.1) {
                port = number
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        throw Failure.noStartLine(stderr)
    }

    /// What the server wrote on stderr so far.
    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorOutput, as: UTF8.self)
    }

    /// The board's address as users give it in `MESSAGEBOARD_URL`.
    var url: String { "http://127.0.0.1:\(port)/messageboard" }

    /// SIGKILL: no clean-up, no flushing, as a crash or `kill -9` would leave it.
    func kill() {
        guard process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and wait.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// The board's promises that need a real server process: nothing saved is lost when the process is killed,
/// a corrupt store is refused, and the sandbox command's flags reach the board.
@Suite(.serialized) struct MessageBoardProcessTests {
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("messageboard-process-\(UUID().uuidString)")
    var storeFile: URL { dataDirectory.appendingPathComponent("messageboard-messages.json") }

    func harness(_ sandbox: SandboxProcess) -> CLIHarness {
        CLIHarness(environment: ["MESSAGEBOARD_URL": sandbox.url])
    }

    func titles(_ sandbox: SandboxProcess) async throws -> [String] {
        let output = await harness(sandbox).run(["messageboard", "list", "--limit", "1000", "--format", "json"])
        #expect(output.code == .success, "stderr: \(output.stderr)")
        let items = try #require(JSONParser().parse(output.stdout)["results"]?[0]?["items"]?.array)
        return items.compactMap { $0["title"]?.string }
    }

    @Test func aMessagePostedRightBeforeAKillIsThereAfterARestart() async throws {
        let first = try SandboxProcess(dataDirectory: dataDirectory)
        defer { first.stop() }
        let post = await harness(first).run(["messageboard", "post", "--name", "Joe", "--message", "Kept across kill -9 ✅"])
        #expect(post.code == .success, "stderr: \(post.stderr)")
        first.kill()
        #expect(first.process.terminationReason == .uncaughtSignal)

        let second = try SandboxProcess(dataDirectory: dataDirectory)
        defer { second.stop() }
        let titles = try await titles(second)
        #expect(titles.first == "Kept across kill -9 ✅")
        #expect(titles.count == 10, "the 9 bundled messages and the new one")
    }

    @Test func killingTheServerDuringConcurrentPostsLosesNoConfirmedMessage() async throws {
        let first = try SandboxProcess(dataDirectory: dataDirectory)
        defer { first.stop() }
        let board = harness(first)
        let confirmed = Counter()
        let outcomes = await withTaskGroup(of: (Int, CLIHarness.Output).self) { group in
            for index in 1...20 {
                group.addTask {
                    let output = await board.run(["messageboard", "post", "--name", "p\(index)", "--message", "crash test \(index)", "--format", "json"])
                    // Kill mid-stream, whatever the other posts are doing at that moment.
                    if output.code == .success, confirmed.increment() == 5 { first.kill() }
                    return (index, output)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        first.kill()
        let saved = outcomes.filter { $0.1.code == .success }.map { "crash test \($0.0)" }
        #expect(saved.count >= 5)
        for (_, output) in outcomes where output.code != .success {
            let lost = output.stderr.contains("the message may or may not have been saved") || output.stderr.contains("cannot connect")
            #expect(lost, "a failed post says whether it may have been saved: \(output.stderr)")
        }

        // The store is intact JSON, and holds every confirmed message exactly once.
        let stored = try #require(try SandboxStore(directory: dataDirectory).read("messageboard-messages.json")?.array)
        let texts = stored.compactMap { $0["message"]?.string }
        #expect(Set(stored.compactMap { $0["id"]?.int }).count == stored.count, "no duplicate ids")
        #expect(Set(texts).count == texts.count, "no duplicate messages")
        for text in saved { #expect(texts.contains(text), "confirmed but lost: \(text)") }

        let second = try SandboxProcess(dataDirectory: dataDirectory)
        defer { second.stop() }
        #expect(try await titles(second).count == stored.count, "a restart serves exactly what was stored")
    }

    @Test func aCorruptStoreIsReportedByTheServerAndLeftAsItWas() throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let corrupt = Data("[{\"id\": 1, \"name\": \"Joe\", \"message\": \"cut off in the mid".utf8)
        try corrupt.write(to: storeFile)
        let sandbox = try SandboxProcess(dataDirectory: dataDirectory)
        defer { sandbox.stop() }
        let environment = ["MESSAGEBOARD_URL": sandbox.url]
        let post = try Binary.run(["messageboard", "post", "--name", "Joe", "--message", "hi"], environment: environment)
        #expect(post.status == 1)
        #expect(post.stderr.hasPrefix("Error: messageboard: the board failed while saving (HTTP 500 Internal Server Error: the sandbox store \(storeFile.path) is corrupt"))
        #expect(post.stderr.contains("it was left untouched: repair or remove it"))
        let list = try Binary.run(["messageboard", "list"], environment: environment)
        #expect(list.status == 1)
        #expect(list.stderr.contains("is corrupt"))
        #expect(try Data(contentsOf: storeFile) == corrupt, "never overwritten or emptied")
        #expect(sandbox.process.isRunning, "the server keeps running and keeps refusing")
    }

    @Test func theCSRFFlagMakesTheBoardRejectJSONPosts() throws {
        let sandbox = try SandboxProcess(dataDirectory: dataDirectory, arguments: ["--messageboard-csrf"])
        defer { sandbox.stop() }
        let post = try Binary.run(["messageboard", "post", "--name", "Joe", "--message", "hi"], environment: ["MESSAGEBOARD_URL": sandbox.url])
        #expect(post.status == 1)
        #expect(post.stderr == "Error: messageboard: not saved: the board rejected a JSON post without a CSRF token (HTTP 422 with an HTML page); it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)\n")
    }

    @Test func offlineRunsShareTheSandboxDataDirectory() throws {
        let xdg = dataDirectory.appendingPathComponent("xdg")
        let sandbox = try SandboxProcess(dataDirectory: xdg.appendingPathComponent("aggregate/sandbox"))
        defer { sandbox.stop() }
        let post = try Binary.run(
            ["messageboard", "post", "--name", "Joe", "--message", "posted live, read offline"],
            environment: ["MESSAGEBOARD_URL": sandbox.url, "XDG_DATA_HOME": xdg.path])
        #expect(post.status == 0, "stderr: \(post.stderr)")
        let list = try Binary.run(["messageboard", "list", "--offline", "--limit", "1"], environment: ["XDG_DATA_HOME": xdg.path])
        #expect(list.status == 0)
        #expect(list.stdout.hasPrefix("\"posted live, read offline\" — by Joe on "))
    }
}

