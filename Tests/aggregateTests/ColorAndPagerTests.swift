import AggregateCore
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// `--color auto|always|never` with `FORCE_COLOR` and `NO_COLOR`, through the built binary (a pipe, and a real
/// terminal in tmux), and the rule itself.
@Suite struct ColorTests {
    static let bold = "\u{1B}[1m"
    let listing = ["tmdb", "popular", "--offline", "--limit", "3", "--quiet"]

    @Test func theRuleStrongestFirst() {
        #expect(ColorChoice.automatic(isTerminal: true, environment: [:]))
        #expect(!ColorChoice.automatic(isTerminal: false, environment: [:]))
        #expect(!ColorChoice.automatic(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(ColorChoice.automatic(isTerminal: true, environment: ["NO_COLOR": ""]), "an empty NO_COLOR is unset")
        #expect(!ColorChoice.automatic(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(ColorChoice.automatic(isTerminal: false, environment: ["FORCE_COLOR": "1"]))
        #expect(ColorChoice.automatic(isTerminal: false, environment: ["FORCE_COLOR": "1", "NO_COLOR": "1"]), "FORCE_COLOR wins")
        #expect(!ColorChoice.automatic(isTerminal: false, environment: ["FORCE_COLOR": "0"]))
        #expect(!ColorChoice.automatic(isTerminal: false, environment: ["FORCE_COLOR": ""]))
        #expect(ColorChoice.always.allowsColor(auto: false))
        #expect(!ColorChoice.never.allowsColor(auto: true))
        #expect(ColorChoice.auto.allowsColor(auto: true) && !ColorChoice.auto.allowsColor(auto: false))
    }

    @Test func aPipeGetsColourOnlyWhenAskedFor() throws {
        let plain = try Binary.run(listing)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!plain.stdout.contains("\u{1B}["), "auto: a pipe is not a terminal")

        let always = try Binary.run(listing + ["--color", "always"], environment: ["NO_COLOR": "1"])
        #expect(always.status == 0)
        #expect(always.stdout.contains(Self.bold), "--color always colours a pipe, NO_COLOR or not")

        let forced = try Binary.run(listing, environment: ["FORCE_COLOR": "1"])
        #expect(forced.stdout.contains(Self.bold), "FORCE_COLOR forces colour as --color always does")
        let forcedOff = try Binary.run(listing, environment: ["FORCE_COLOR": "0"])
        #expect(!forcedOff.stdout.contains("\u{1B}["), "FORCE_COLOR=0 forces nothing")
        let never = try Binary.run(listing + ["--color", "never"], environment: ["FORCE_COLOR": "1"])
        #expect(!never.stdout.contains("\u{1B}["), "--color never beats FORCE_COLOR")

        // Without colour the text is exactly the plain text, escape sequences aside.
        #expect(always.stdout.replacingOccurrences(of: Self.bold, with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
            .replacingOccurrences(of: "\u{1B}[2m", with: "") == plain.stdout)
    }

    @Test func compareAndLocalCommandsTakeTheOptionToo() throws {
        let compare = try Binary.run(["compare", "tmdb popular", "--offline", "--quiet", "--color", "always"])
        #expect(compare.status == 0, "\(compare.stderr)")
        #expect(compare.stdout.contains(Self.bold + "tmdb popular"), "the invocations in bold")
        #expect(compare.stdout.contains("\u{1B}[32mok\u{1B}[0m"), "ok in green")
        let plainCompare = try Binary.run(["compare", "tmdb popular", "--offline", "--quiet"])
        #expect(!plainCompare.stdout.contains("\u{1B}["))

        let archive = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter_archive/2021_wrapped").path
        let colored = try Binary.run(["twitter", "archive", archive, "--color", "always"])
        let plain = try Binary.run(["twitter", "archive", archive, "--color", "never"])
        #expect(colored.status == 0 && plain.status == 0, "\(colored.stderr)\(plain.stderr)")
        #expect(!plain.stdout.contains("\u{1B}["))
        #expect(colored.stdout.contains(Self.bold), "twitter archive's text view is coloured on request")
    }

    @Test func aBadValueIsAUsageError() throws {
        let output = try Binary.run(listing + ["--color", "sometimes"])
        #expect(output.status == 64)
        #expect(output.stderr.hasPrefix("Error: tmdb: --color must be auto, always or never, not 'sometimes'\n"))
        #expect(output.stdout.isEmpty)
    }

    /// On a terminal, auto colours, and `NO_COLOR` turns that off: checked on the bytes the pane received.
    @Test(.requires(.tmux, .python3)) func onATerminalAutoColoursUnlessNoColor() throws {
        for (noColor, expectColour) in [(false, true), (true, false)] {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-color-\(UUID().uuidString).log").path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let session = try TmuxSession(
                command: "sleep 0.5; " + PagerTests.clean(noColor ? ["NO_COLOR=1"] : []) + " \(Binary.url.path) tmdb popular --offline --limit 3 --quiet --no-pager",
                width: 120, height: 30)
            defer { session.close() }
            try session.record(to: log)
            let result = try session.waitForExit()
            #expect(result.status == "0")
            let written = try String(contentsOfFile: log, encoding: .utf8)
            #expect(written.contains("Dune"), "the log caught the output")
            #expect(written.contains(Self.bold) == expectColour, "NO_COLOR=\(noColor): \(written.debugDescription)")
        }
    }
}

/// The pager: chosen from `AGGREGATE_PAGER`, `PAGER` or `less -FRX`, used only for long text on a terminal. A small
/// script standing in for the pager records what it was given.
@Suite(.serialized) struct PagerTests {
    /// `env` with the variables that would change the outcome removed, a private config, and `extra` set.
    static func clean(_ extra: [String]) -> String {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-pager-config-\(UUID().uuidString)").path
        return (["env", "-u", "NO_COLOR", "-u", "FORCE_COLOR", "-u", "AGGREGATE_PAGER", "-u", "PAGER", "-u", "LINES", "-u", "COLUMNS", "XDG_CONFIG_HOME=\(config)"]
            + extra).map(shellQuoted).joined(separator: " ")
    }

    /// A folder with `pager.sh`, which copies its stdin to `received` and notes `LESS` in `less`.
    struct RecordingPager {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-pager-\(UUID().uuidString)")
        var script: String { folder.appendingPathComponent("pager.sh").path }
        var received: String { folder.appendingPathComponent("received").path }
        var less: String { folder.appendingPathComponent("less").path }

        init() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "#!/bin/sh\nprintf '%s' \"$LESS\" > '\(less)'\ncat > '\(received)'\n".write(toFile: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        }

        var receivedText: String? { try? String(contentsOfFile: received, encoding: .utf8) }
        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func whichPager() {
        #expect(Pager.command(environment: [:]) == "less -FRX")
        #expect(Pager.command(environment: ["PAGER": "more"]) == "more")
        #expect(Pager.command(environment: ["PAGER": "more", "AGGREGATE_PAGER": "most -s"]) == "most -s")
        #expect(Pager.command(environment: ["PAGER": "more", "AGGREGATE_PAGER": ""]) == nil, "an empty AGGREGATE_PAGER means none")
        #expect(Pager.command(environment: ["PAGER": ""]) == nil)
        #expect(Pager.command(environment: ["PAGER": "cat"]) == nil)
        #expect(Pager.command(environment: ["AGGREGATE_PAGER": " cat "]) == nil)
    }

    @Test func rowsCountWrappedLines() {
        #expect(Pager.rowsNeeded("a\nb\n", width: 80) == 2)
        #expect(Pager.rowsNeeded("a\n\nb", width: 80) == 3)
        #expect(Pager.rowsNeeded(String(repeating: "x", count: 81) + "\n", width: 80) == 2)
        #expect(Pager.rowsNeeded(String(repeating: "x", count: 80) + "\n", width: 80) == 1)
    }

    @Test func aPipeNeverPages() throws {
        let pager = try RecordingPager()
        defer { pager.remove() }
        let output = try Binary.run(["tmdb", "popular", "--offline", "--limit", "45", "--quiet"], environment: ["AGGREGATE_PAGER": pager.script])
        #expect(output.status == 0)
        #expect(output.stdout.split(separator: "\n").count >= 45)
        #expect(pager.receivedText == nil, "stdout is a pipe: no pager")
    }

    @Test(.requires(.tmux, .python3)) func longTextOnATerminalGoesThroughThePager() throws {
        let pager = try RecordingPager()
        defer { pager.remove() }
        let session = try TmuxSession(
            command: Self.clean(["AGGREGATE_PAGER=\(pager.script)", "PAGER=false"]) + " \(Binary.url.path) tmdb popular --offline --limit 45 --quiet",
            width: 100, height: 20)
        defer { session.close() }
        let result = try session.waitForExit()
        #expect(result.status == "0")
        let received = try #require(pager.receivedText, "the pager was not run; screen: \(result.screen)")
        #expect(received.split(separator: "\n").count >= 45, "the pager got all of it")
        #expect(received.contains("Dune (2021)"))
        #expect(received.contains("\u{1B}[1m"), "stdout is a terminal, so the text is coloured (less -R shows it)")
        #expect(try String(contentsOfFile: pager.less, encoding: .utf8) == "FRX", "LESS is set for a pager when unset")
        #expect(!result.screen.contains { $0.contains("Dune (2021)") }, "nothing was written past the pager")
    }

    @Test(.requires(.tmux, .python3)) func noPagerShortOutputAndOtherFormatsWriteDirectly() throws {
        let pager = try RecordingPager()
        defer { pager.remove() }
        let bin = Binary.url.path
        let runs = [
            ("--no-pager", "\(bin) tmdb popular --offline --limit 45 --quiet --no-pager", "Crouching Tiger"),
            ("short output", "\(bin) tmdb popular --offline --limit 2 --quiet", "Dune (2021)"),
            ("json", "\(bin) tmdb popular --offline --limit 45 --quiet --format json | tail -n 3; \(bin) tmdb popular --offline --limit 45 --quiet --format ndjson > /dev/null", "}"),
            ("a pager that is not there", "env AGGREGATE_PAGER=/nonexistent/pager \(bin) tmdb popular --offline --limit 45 --quiet", "Crouching Tiger"),
        ]
        for (what, command, expected) in runs {
            let session = try TmuxSession(command: Self.clean(["AGGREGATE_PAGER=\(pager.script)"]) + " sh -c " + shellQuoted(command), width: 100, height: 20)
            defer { session.close() }
            let result = try session.waitForExit()
            #expect(result.status == "0", "\(what): \(result.screen)")
            #expect(pager.receivedText == nil, "\(what): no pager")
            #expect(result.screen.contains { $0.contains(expected) }, "\(what): written directly: \(result.screen)")
            #expect(!result.screen.contains { $0.contains("not found") || $0.contains("Error") }, "\(what): no error")
        }
    }

    @Test(.requires(.tmux, .python3)) func describeAndCompareTextPage() throws {
        for command in ["describe twitter", "compare 'tmdb popular' 'kiva newest' 'github search swift' --offline --quiet"] {
            let pager = try RecordingPager()
            defer { pager.remove() }
            let session = try TmuxSession(
                command: Self.clean(["AGGREGATE_PAGER=\(pager.script)"]) + " \(Binary.url.path) \(command)", width: 100, height: 12)
            defer { session.close() }
            let result = try session.waitForExit()
            #expect(result.status == "0", "\(command): \(result.screen)")
            #expect((pager.receivedText?.split(separator: "\n").count ?? 0) >= 12, "\(command): paged")
        }
    }
}
