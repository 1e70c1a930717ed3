import AggregateTestSupport
import AggregateText
import Foundation
import Testing

/// The explorer driven through a real terminal: tmux runs `aggregate browse -i` in a pane, the test sends keys and
/// reads the screen tmux renders. A shell script around the binary records `stty -g` before and after and the exit
/// status, so the terminal's restoration is checked from outside the process. Every wait has a deadline.
///
/// Without tmux (or python3, which starts it) the suite is skipped with the reason shown; `.ci/run` installs tmux and
/// sets `AGGREGATE_REQUIRE_TMUX=1`, so there a missing tmux fails these tests rather than skipping them.
@Suite(.serialized, .requires(.tmux, .python3)) struct BrowseInteractiveTests {
    let meetup = browseFixtures.appendingPathComponent("meetup_v2_groups.json").path

    @Test func stepsInAndOutSearchesRedrawsOnResizeAndQuitsRestoringTheTerminal() throws {
        let session = try TmuxSession(command: "\(Binary.url.path) browse \(meetup) -i")
        defer { session.close() }
        try session.waitForScreen { $0.first?.hasPrefix(".  object{2}") == true && $0.contains("> results: array[1]") }
        #expect(try session.value("#{alternate_on}") == "1", "the explorer runs on the alternate screen")
        #expect(try session.value("#{cursor_flag}") == "0", "the cursor is hidden")

        try session.send("Enter")
        try session.waitForScreen { $0.first?.hasPrefix("results  array[1]") == true }
        try session.send("Right")
        try session.waitForScreen { $0.first?.hasPrefix("results[0]  object{21}") == true && $0.contains("> utc_offset = 3600000") }
        try session.send("j", "Down")
        try session.waitForScreen { $0.contains("> visibility = \"public\"") }
        try session.send("k")
        try session.waitForScreen { $0.contains("> country = \"GB\"") }

        try session.type("/organ")
        try session.waitForScreen { $0.last?.hasPrefix("/organ") == true }
        try session.send("Enter")
        try session.waitForScreen { $0.contains("> organizer: object{2}") && $0.last?.hasPrefix("match 1 of 1 for \"organ\"") == true }
        try session.send("Enter")
        try session.waitForScreen { $0.first?.hasPrefix("results[0].organizer  object{2}") == true && $0.contains("> member_id = 7730461") }
        try session.send("Left")
        try session.waitForScreen { $0.first?.hasPrefix("results[0]  object{21}") == true && $0.contains("> organizer: object{2}") }
        try session.send("BSpace")
        try session.waitForScreen { $0.first?.hasPrefix("results  array[1]") == true }

        try session.resize(width: 50, height: 12)
        try session.waitForScreen { lines in
            lines.count == 12 && lines.last?.hasSuffix(" 1/1") == true && lines.allSatisfy { TextLayout.width($0) <= 50 }
        }

        try session.send("q")
        let result = try session.waitForExit()
        #expect(result.status == "0")
        #expect(result.sttyBefore == result.sttyAfter, "the terminal modes are restored")
        #expect(try session.value("#{alternate_on}") == "0", "the alternate screen is left")
        #expect(try session.value("#{cursor_flag}") == "1", "the cursor is shown again")
        #expect(!result.screen.contains { $0.contains("object{") }, "the explorer's screen is gone")
    }

    @Test func ctrlCRestoresTheTerminalAndEndsAsInterrupted() throws {
        let session = try TmuxSession(command: "\(Binary.url.path) browse \(meetup) -i --path results.0.topics")
        defer { session.close() }
        try session.waitForScreen { $0.first?.hasPrefix("results[0].topics  array[3]") == true }
        try session.type("/fr")  // Ctrl-C works in the middle of a search too
        try session.send("C-c")
        let result = try session.waitForExit()
        #expect(result.status == "130")
        #expect(result.sttyBefore == result.sttyAfter)
        #expect(try session.value("#{alternate_on}") == "0")
        #expect(try session.value("#{cursor_flag}") == "1")
    }

    @Test(.requires(.pgrep)) func terminationBySignalRestoresTheTerminal() throws {
        let session = try TmuxSession(command: "\(Binary.url.path) browse \(meetup) -i")
        defer { session.close() }
        try session.waitForScreen { $0.contains("> results: array[1]") }
        let shell = try session.value("#{pane_pid}")
        let child = try TmuxSession.run("/usr/bin/env", ["pgrep", "-P", shell]).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(pid_t(child))
        #expect(kill(pid, SIGTERM) == 0)
        let result = try session.waitForExit()
        #expect(result.status == "143")
        #expect(result.sttyBefore == result.sttyAfter)
        #expect(try session.value("#{alternate_on}") == "0")
    }

    @Test func readsKeysFromTheTerminalWhenTheDocumentComesFromStandardInput() throws {
        let session = try TmuxSession(command: "cat \(meetup) | \(Binary.url.path) browse - -i")
        defer { session.close() }
        try session.waitForScreen { $0.contains("> results: array[1]") }
        try session.send("j")
        try session.waitForScreen { $0.contains("> meta: object{12}") }
        try session.send("q")
        let result = try session.waitForExit()
        #expect(result.status == "0")
        #expect(result.sttyBefore == result.sttyAfter)
    }
}

/// One tmux server on a private socket with one pane running `command` inside a small recording shell script.
final class TmuxSession {
    struct Exit {
        var status: String
        var sttyBefore: String
        var sttyAfter: String
        var screen: [String]
    }

    enum Failure: Error, CustomStringConvertible {
        case noTmux
        case timedOut(String, screen: [String])
        case command(String)

        var description: String {
            switch self {
            case .noTmux: return "tmux is needed for the interactive tests: apt-get install tmux (.ci/run does)"
            case .timedOut(let what, let screen): return "timed out waiting for \(what); the screen was:\n" + screen.joined(separator: "\n")
            case .command(let text): return text
            }
        }
    }

    private let socket = "aggregate-test-\(UUID().uuidString.prefix(8))"
    private let directory: URL
    private static let deadline: TimeInterval = 20

    init(command: String, width: Int = 90, height: Int = 20) throws {
        guard let tmuxPath = OptionalTool.tmux.path else { throw Failure.noTmux }
        self.tmuxPath = tmuxPath
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-tmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = """
            stty -g > '\(directory.path)/before'
            \(command)
            echo $? > '\(directory.path)/status.tmp'
            stty -g > '\(directory.path)/after'
            mv '\(directory.path)/status.tmp' '\(directory.path)/status'
            echo "finished"
            exec sleep 600
            """
        let scriptPath = directory.appendingPathComponent("run.sh").path
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // The server is started through a wrapper that first closes every inherited descriptor beyond 0–2: Foundation's
        // `Process` learns that a child ended when a descriptor the child inherited closes, so a tmux server holding
        // descriptors of this test process would keep other `waitUntilExit()` calls from ever returning.
        // It also unblocks all signals: a process started from a test thread inherits that thread's blocked mask,
        // and tmux (and the explorer under it) should see the signals a user's terminal session would.
        let closeAndExec = """
            import os, signal, sys
            os.closerange(3, 65536)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(sys.argv[1], sys.argv[1:])
            """
        _ = try Self.run("/usr/bin/env", [
            "python3", "-c", closeAndExec, tmuxPath, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "t",
            "-x", String(width), "-y", String(height), "sh \(scriptPath)",
        ])
    }

    private let tmuxPath: String

    func close() {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends tmux key names (`Enter`, `Left`, `C-c`, `j`).
    func send(_ keys: String...) throws { _ = try tmux(["send-keys", "-t", "t"] + keys) }

    /// Appends everything the pane's program writes from now on (escape sequences included) to `path`.
    func record(to path: String) throws { _ = try tmux(["pipe-pane", "-t", "t", "-o", "cat >> '\(path)'"]) }

    /// Types `text` literally.
    func type(_ text: String) throws { _ = try tmux(["send-keys", "-t", "t", "-l", text]) }

    func resize(width: Int, height: Int) throws {
        _ = try tmux(["resize-window", "-t", "t", "-x", String(width), "-y", String(height)])
    }

    /// A tmux format value of the pane, e.g. `#{alternate_on}`.
    func value(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "t", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The visible screen, one string per row, trailing spaces removed.
    func screen() throws -> [String] {
        let text = try tmux(["capture-pane", "-p", "-t", "t"])
        var rows = text.components(separatedBy: "\n")
        if rows.last == "" { rows.removeLast() }
        return rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    /// Polls the screen until `condition` holds, failing after the deadline with the last screen.
    func waitForScreen(_ what: String = #function, line: Int = #line, _ condition: ([String]) -> Bool) throws {
        let end = Date().addingTimeInterval(Self.deadline)
        var last: [String] = []
        while Date() < end {
            last = try screen()
            if condition(last) { return }
            usleep(50_000)
        }
        throw Failure.timedOut("the screen expected at line \(line)", screen: last)
    }

    /// Waits until the script around the command has recorded the exit status and the terminal modes.
    func waitForExit() throws -> Exit {
        let end = Date().addingTimeInterval(Self.deadline)
        let statusPath = directory.appendingPathComponent("status").path
        while Date() < end {
            if let status = try? String(contentsOfFile: statusPath, encoding: .utf8) {
                try waitForScreen { $0.contains("finished") }
                func read(_ name: String) -> String {
                    ((try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8)) ?? "")
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                }
                return Exit(
                    status: status.trimmingCharacters(in: .whitespacesAndNewlines), sttyBefore: read("before"),
                    sttyAfter: read("after"), screen: try screen())
            }
            usleep(50_000)
        }
        throw Failure.timedOut("the command to exit", screen: (try? screen()) ?? [])
    }

    private func tmux(_ arguments: [String]) throws -> String {
        try Self.run(tmuxPath, ["-L", socket] + arguments)
    }

    /// Runs a short command and returns its standard output; fails on a non-zero status or after 20 seconds.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collected = DataBox()
        let done = DispatchSemaphore(value: 0)
        // A thread of its own, not Dispatch's global queue, whose few threads the test run's blocking work can hold.
        Thread {
            collected.data = output.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + deadline) == .success else {
            process.terminate()
            throw Failure.command("\(executable) \(arguments.joined(separator: " ")) did not finish")
        }
        process.waitUntilExit()
        let text = String(decoding: collected.data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure.command("\(executable) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}
