import AggregateCore
import AggregateTestSupport
import Foundation
import Testing

/// A text view that stops at the default limit while more items exist says so on stderr.
@Suite struct DefaultLimitNoteTests {
    /// A Rails board with `count` messages.
    func board(_ count: Int) -> CLIHarness {
        let messages = (1...count).map { #"{"id":\#($0),"name":"Ana","message":"Message \#($0)","created_at":"2024-05-01T10:00:\#(String(format: "%02d", $0 % 60)).000Z"}"# }
        var harness = CLIHarness(environment: ["MESSAGEBOARD_URL": "http://localhost:3000"])
        harness.makeTransport = { FakeTransport.json("[" + messages.joined(separator: ",") + "]") }
        return harness
    }

    @Test func theMessageBoardSaysHowManyItLeftOut() async {
        let output = await board(27).run(["messageboard", "list"])
        #expect(output.code == .success)
        #expect(output.stdout.split(separator: "\n").count == 20)
        #expect(output.stderr == "note: messageboard: showing 20 of 27; use --limit to see more\n")
    }

    /// The `--fields` table stops at the limit as the provider's view does, so it says so too (the built binary).
    @Test(arguments: [["--fields", "title,metrics.voteAverage"], ["--fields", "title", "--sort", "-createdAt"]])
    func aFieldsTableSaysHowManyItLeftOut(_ extra: [String]) throws {
        let output = try Binary.run(["tmdb", "popular", "--offline"] + extra)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").count == 21, "a header and 20 rows")
        #expect(output.stderr.split(separator: "\n").map(String.init).contains("note: tmdb: showing 20 of 52; use --limit to see more"), "\(output.stderr)")
    }

    @Test(arguments: [["--limit", "20"], ["--limit", "30"], ["--format", "json"], ["--quiet"]])
    func noNoteWhenTheLimitWasChosenOrTheViewIsNotText(_ extra: [String]) async {
        let output = await board(27).run(["messageboard", "list"] + extra)
        #expect(output.code == .success)
        #expect(output.stderr.isEmpty, "\(output.stderr)")
    }

    @Test func noNoteWhenEverythingWasShown() async {
        #expect(await board(20).run(["messageboard", "list"]).stderr.isEmpty)
        #expect(await board(5).run(["messageboard", "list"]).stderr.isEmpty)
    }

    @Test(arguments: [
        (["tmdb", "popular"], "note: tmdb: showing 20 of 52; use --limit to see more"),
        (["kiva"], "note: kiva: showing 20 of 42; use --limit to see more"),
        (["twitter", "hourly_chime"], "note: twitter: showing the first 20; more exist; use --limit to see more"),
    ])
    func everyProviderSaysSo(_ arguments: [String], _ note: String) async {
        let output = await CLIHarness().run(arguments + ["--offline"])
        #expect(output.code == .success)
        #expect(output.stderr.split(separator: "\n").map(String.init).contains(note), "\(output.stderr)")
    }
}

/// Standard input for `--message -` must be UTF-8 text.
@Suite struct StandardInputEncodingTests {
    @Test(arguments: [Data([0x48, 0xE9, 0x6C, 0x6C, 0x6F]), Data([0xFF, 0xFE, 0x41, 0x00]), Data([0x61, 0xC3])])
    func bytesThatAreNotUTF8AreNamedSo(_ bytes: Data) async {
        var harness = CLIHarness()
        harness.stdinBytes = bytes
        let output = await harness.run(["messageboard", "post", "--offline", "--name", "Ana", "--message", "-"])
        #expect(output.code == .dataError)
        #expect(output.stderr == "Error: messageboard: --message - read standard input, but it is not UTF-8 text; convert it first (e.g. with iconv)\n")
        #expect(output.stdout.isEmpty)
    }

    @Test func utf8IsRead() async {
        var harness = CLIHarness()
        harness.stdinBytes = Data("Grüße aus Köln".utf8)
        let output = await harness.run(["messageboard", "post", "--offline", "--name", "Ana", "--message", "-", "--quiet"])
        #expect(output.code == .success)
        #expect(output.stdout.contains("Grüße aus Köln"))
    }
}

/// The board's timestamps keep the precision it sent.
@Suite struct TimestampPrecisionTests {
    @Test(arguments: [
        ("2024-05-01T10:15:30.302Z", "2024-05-01T10:15:30.302Z"), ("2024-05-01T12:15:30.302+02:00", "2024-05-01T10:15:30.302Z"),
        ("2024-05-01T10:15:30Z", "2024-05-01T10:15:30Z"), ("2024-05-01T10:15:30.000Z", "2024-05-01T10:15:30.000Z"),
    ])
    func utcStringsKeepTheGivenPrecision(_ given: String, _ expected: String) {
        #expect(ISO8601.utcString(keepingPrecisionOf: given) == expected)
    }
}
