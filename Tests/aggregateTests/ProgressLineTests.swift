import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateText
import Foundation
import Testing
@testable import aggregate

/// The progress line's logic with an injected clock, and once for real in a terminal (tmux).
@Suite struct ProgressLineTests {
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var writes: [String] = []
        var now: TimeInterval = 100
        func write(_ text: String) { lock.lock(); writes.append(text); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return writes }
    }

    func line(_ recorder: Recorder, enabled: Bool = true) -> ProgressLine {
        ProgressLine(label: "tmdb", isEnabled: enabled, width: 60, clock: { recorder.now }, write: recorder.write)
    }

    @Test func appearsOnlyAfterASecondThenUpdatesInPlaceAndClearsAtTheEnd() {
        let recorder = Recorder()
        let progress = line(recorder)
        progress.handle(FetchEvent(provider: "tmdb", kind: .fetchingPage(number: 1)))
        progress.handle(FetchEvent(provider: "tmdb", kind: .response(status: 200, bytes: 2048, milliseconds: 5)))
        recorder.now += 0.9
        progress.tick()
        #expect(recorder.all.isEmpty, "nothing within the first second")
        recorder.now += 0.2
        progress.handle(FetchEvent(provider: "tmdb", kind: .pageRead(pages: 1, items: 20)))
        #expect(recorder.all == ["\r\u{1B}[2Ktmdb: fetching page 1 · 1 page · 20 items · 2.0 KiB · 1.1 s"])
        progress.handle(FetchEvent(provider: "tmdb", kind: .fetchingPage(number: 2)))
        progress.handle(FetchEvent(provider: "tmdb", kind: .response(status: 200, bytes: 1024, milliseconds: 5)))
        recorder.now += 1
        progress.tick()
        #expect(recorder.all.last == "\r\u{1B}[2Ktmdb: fetching page 2 · 1 page · 20 items · 3.0 KiB · 2.1 s")
        #expect(recorder.all.allSatisfy { !$0.contains("\n") }, "one line, redrawn in place")
        progress.finish()
        #expect(recorder.all.last == "\r\u{1B}[2K", "cleared before the results")
        let count = recorder.all.count
        progress.tick()
        progress.update(pages: 9)
        #expect(recorder.all.count == count, "nothing after finish")
    }

    @Test func aQuickRunShowsNothingAndADisabledLineNeverDraws() {
        let quick = Recorder()
        let progress = line(quick)
        progress.update(phase: "reading", bytes: 10)
        progress.finish()
        #expect(quick.all.isEmpty)

        let disabled = Recorder()
        let off = line(disabled, enabled: false)
        disabled.now += 5
        off.update(phase: "parsing", bytes: 1 << 20)
        off.tick()
        off.finish()
        #expect(disabled.all.isEmpty)
    }

    @Test func warningsPrintAboveTheLine() {
        let recorder = Recorder()
        let progress = line(recorder)
        recorder.now += 2
        progress.update(phase: "fetching page 4")
        progress.printAbove { recorder.write("warning: tmdb: stopped paging\n") }
        #expect(Array(recorder.all.suffix(3)) == ["\r\u{1B}[2K", "warning: tmdb: stopped paging\n", "\r\u{1B}[2Ktmdb: fetching page 4 · 2.0 s"])
    }

    @Test func theLineFitsTheWidth() {
        let text = ProgressLine.text(label: "browse a-very-long-file-name.json", figures: .init(phase: "parsing", bytes: 300 << 20), elapsed: 12.34, width: 30)
        #expect(TextLayout.width(text) <= 29)
        #expect(ProgressLine.text(label: "x", figures: .init(pages: 1, items: 1), elapsed: 1, width: 80) == "x: 1 page · 1 item · 1.0 s")
    }

    @Test func notOnATerminalThereIsNoProgressLine() throws {
        let sandbox = try LoopbackSandbox(faults: ["delay=600ms; times=3"])
        let key = try #require(try SandboxCatalog(allProviders, sandboxes: allSandboxes).sandbox(named: "tmdb")?.sandboxEnvironment["TMDB_API_KEY"])
        let output = try Binary.run(
            ["tmdb", "popular", "--limit", "45"], environment: ["TMDB_API_KEY": key, "AGGREGATE_TMDB_BASE_URL": sandbox.url + "/tmdb"])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty, "stderr is a pipe here: \(output.stderr)")
    }

    @Test(.requires(.tmux, .python3)) func aSlowMultiPageFetchShowsOneUpdatingLineInATerminal() throws {
        let sandbox = try LoopbackSandbox(faults: ["delay=900ms"])
        let key = try #require(try SandboxCatalog(allProviders, sandboxes: allSandboxes).sandbox(named: "tmdb")?.sandboxEnvironment["TMDB_API_KEY"])
        let session = try TmuxSession(
            command: "env TMDB_API_KEY=\(key) AGGREGATE_TMDB_BASE_URL=\(sandbox.url)/tmdb \(Binary.url.path) tmdb popular --limit 45",
            width: 100, height: 60)
        defer { session.close() }
        try session.waitForScreen { $0.contains { $0.hasPrefix("tmdb: fetching page") && $0.hasSuffix(" s") } }
        let result = try session.waitForExit()
        #expect(result.status == "0")
        #expect(!result.screen.contains { $0.hasPrefix("tmdb: ") }, "the line is cleared before the results")
        #expect(result.screen.filter { !$0.isEmpty }.count >= 45, "the results follow")

        // With --quiet, nothing but the results reaches the terminal, checked on everything the pane received.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-quiet-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let quiet = try TmuxSession(
            command: "sleep 0.5; env TMDB_API_KEY=\(key) AGGREGATE_TMDB_BASE_URL=\(sandbox.url)/tmdb \(Binary.url.path) tmdb popular --limit 45 --quiet",
            width: 100, height: 60)
        defer { quiet.close() }
        try quiet.record(to: log)
        let quietResult = try quiet.waitForExit()
        #expect(quietResult.status == "0")
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written.contains("Parasite"), "the log caught the output")
        #expect(!written.contains("fetching page"), "--quiet shows no progress")
    }

    /// Ctrl-C (or SIGTERM) during a slow request clears the line, and the process ends as interrupted: 130 (143).
    /// The shell traps SIGINT so that it survives the Ctrl-C the terminal sends to the whole foreground group.
    @Test(.requires(.tmux, .python3, .pgrep), arguments: ["SIGINT", "SIGTERM"])
    func anEndingSignalClearsTheLine(_ signal: String) throws {
        let sandbox = try LoopbackSandbox(faults: ["delay=20s"])
        let key = try #require(try SandboxCatalog(allProviders, sandboxes: allSandboxes).sandbox(named: "tmdb")?.sandboxEnvironment["TMDB_API_KEY"])
        let session = try TmuxSession(
            command: "trap true INT; env TMDB_API_KEY=\(key) AGGREGATE_TMDB_BASE_URL=\(sandbox.url)/tmdb \(Binary.url.path) tmdb popular --no-cache",
            width: 100, height: 20)
        defer { session.close() }
        try session.waitForScreen { $0.contains { $0.hasPrefix("tmdb: ") && $0.hasSuffix(" s") } }
        if signal == "SIGINT" {
            try session.send("C-c")
        } else {
            let shell = try session.value("#{pane_pid}")
            let child = try TmuxSession.run("/usr/bin/env", ["pgrep", "-P", shell]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(kill(try #require(pid_t(child)), SIGTERM) == 0)
        }
        let result = try session.waitForExit()
        #expect(result.status == (signal == "SIGINT" ? "130" : "143"))
        #expect(!result.screen.contains { $0.contains("tmdb: ") }, "the line is cleared: \(result.screen)")
    }

    /// The archive reader feeds the same line: a tweet file that arrives slowly (through a pipe) shows which file is
    /// being read and how many tweets so far, and the line is gone when the results are written.
    @Test(.requires(.tmux, .python3)) func aSlowArchiveShowsWhichFileAndHowManyTweets() throws {
        let fixture = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter_archive/2021_wrapped/data/tweet.js").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-archive-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("tweet.js").path
        let output = folder.appendingPathComponent("out.json").path
        let session = try TmuxSession(
            command: """
                mkfifo '\(pipe)'; (head -c 200 '\(fixture)'; sleep 1.6; tail -c +201 '\(fixture)') > '\(pipe)' & \
                \(Binary.url.path) twitter archive '\(pipe)' --format json > '\(output)'
                """,
            width: 100, height: 20)
        defer { session.close() }
        try session.waitForScreen { $0.contains { $0.hasPrefix("twitter archive: reading file 1 of 1") && $0.hasSuffix(" s") } }
        let result = try session.waitForExit()
        #expect(result.status == "0")
        #expect(!result.screen.contains { $0.hasPrefix("twitter archive:") }, "the line is cleared when reading ends")
        let document = try JSONParser().parse(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(document["results"]?[0]?["items"]?.array?.isEmpty == false)
    }
}
