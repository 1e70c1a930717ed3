import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateText
import Foundation
import MeetupProvider
import Testing
@testable import aggregate

/// `aggregate compare` over the loopback sandbox with fault injection. Four invocations reach four distinct paths
/// (v2 and GraphQL, at the root and under /meetup), so a fault can target exactly one of them.
@Suite(.serialized) struct CompareLoopbackTests {
    func invocations(_ sandbox: LoopbackSandbox) -> [String] {
        [
            "meetup --lat 51.509980 --lon -0.133700 --api v2",
            "meetup --lat 48.8566 --lon 2.3522 --api graphql",
            "meetup --lat 52.52 --lon 13.405 --api v2 --base-url \(sandbox.url)/meetup",
            "meetup --lat 40.73 --lon -73.99 --api graphql --base-url \(sandbox.url)/meetup",
        ]
    }

    func harness(_ sandbox: LoopbackSandbox) -> CLIHarness {
        CLIHarness(environment: [
            "MEETUP_API_KEY": "sandbox-meetup-key", "MEETUP_TOKEN": "sandbox-meetup-token", "AGGREGATE_MEETUP_BASE_URL": sandbox.url,
        ])
    }

    func results(_ output: CLIHarness.Output) throws -> [JSONValue] {
        try #require(try JSONParser().parse(output.stdout)["results"]?.array)
    }

    @Test func allSucceedInTheOrderGiven() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["compare"] + invocations(sandbox) + ["--limit", "4", "--format", "json"])
        #expect(output.code == .success)
        let document = try JSONParser().parse(output.stdout)
        let results = try results(output)
        #expect(results.map { $0["status"] } == Array(repeating: "ok", count: 4))
        let countries = results.map { $0["items"]?[0]?["location"]?["country"]?.string }
        #expect(countries == ["GB", "FR", "DE", "US"], "results keep the order of the invocations")
        let rows = try #require(document["comparison"]?["invocations"]?.array)
        #expect(rows.map { $0["invocation"]?.string } == invocations(sandbox).map(Optional.some))
        #expect(rows[0]["fieldCoverage"]?["subtitle"] == .number("1.00"), "v2 has who")
        #expect(rows[1]["fieldCoverage"]?["subtitle"] == .number("0.00"), "GraphQL has no who")
        #expect(rows[0]["authStyle"]?.string?.isEmpty == false)
    }

    @Test func oneFailingLeavesTheOthersIntact() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=500; path=/gql-ext"])
        let output = await harness(sandbox).run(["compare"] + invocations(sandbox) + ["--limit", "4", "--format", "json"])
        #expect(output.code == .partial)
        let results = try results(output)
        #expect(results.map { $0["status"] } == ["ok", "failed", "ok", "ok"])
        #expect(results[1]["error"]?["httpStatus"] == 500)
        for index in [0, 2, 3] { #expect(results[index]["items"]?.array?.count == 4) }
        #expect(output.stderr.contains("Error: meetup: the GraphQL API returned an error (HTTP 500)"))
    }

    /// Through the binary, whose thread pool is its own: in process, other suites' blocking waits can starve the
    /// cooperative pool and stretch every elapsed time alike.
    @Test func oneHangingPastItsTimeoutDoesNotDelayTheOthers() async throws {
        let sandbox = try LoopbackSandbox(faults: ["delay=30s; path=/meetup/gql-ext"])
        let output = try Binary.run(
            ["compare"] + invocations(sandbox) + ["--limit", "4", "--timeout", "3", "--format", "json"],
            environment: ["MEETUP_API_KEY": "sandbox-meetup-key", "MEETUP_TOKEN": "sandbox-meetup-token", "AGGREGATE_MEETUP_BASE_URL": sandbox.url])
        #expect(output.status == ExitCode.partial.rawValue, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results[3]["error"]?["kind"] == "timeout")
        let hanging = try #require(results[3]["meta"]?["elapsedMs"]?.double)
        #expect(hanging >= 3000, "it waited for its whole timeout")
        for index in 0..<3 {
            #expect(results[index]["status"] == "ok")
            // They finished without waiting for the hanging one's timeout.
            #expect((results[index]["meta"]?["elapsedMs"]?.double ?? .infinity) < hanging)
        }
    }

    @Test func allFailingExitsOne() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=500"])
        let output = await harness(sandbox).run(["compare"] + invocations(sandbox))
        #expect(output.code == .failure)
        #expect(output.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: meetup:") }.count == 4)
        #expect(output.stdout.contains("failed"))
    }

    @Test func aUsageErrorInAnyInvocationSendsNothing() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["compare", "meetup --lat 51.5 --lon -0.13", "meetup --lat 91 --lon 0"])
        #expect(output.code == .usage)
        #expect(output.stderr.hasPrefix("Error: invocation 2 ('meetup --lat 91 --lon 0'): meetup: --lat must be between -90 and 90, not 91\n"))
        #expect(sandbox.server.requestCount == 0)
        let unknown = await harness(sandbox).run(["compare", "nosuch thing"])
        #expect(unknown.code == .usage)
        #expect(unknown.stderr.contains("unknown provider 'nosuch'"))
        #expect(await harness(sandbox).run(["compare"]).code == .usage)
    }

    @Test func noProgressLinesWhenStderrIsNotATerminal() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["compare"] + invocations(sandbox))
        #expect(output.code == .success)
        #expect(!output.stderr.contains("\u{1B}"))
        #expect(!output.stderr.contains("fetching page"))
        #expect(output.stderr.isEmpty)
    }

    @Test func textViewIsSideBySideWhenWideAndStackedWhenNarrow() async throws {
        let sandbox = try LoopbackSandbox()
        var wide = harness(sandbox)
        wide.width = 160
        let side = await wide.run(["compare", invocations(sandbox)[0], invocations(sandbox)[1], "--limit", "3"])
        let statusLine = try #require(side.stdout.split(separator: "\n").first { $0.hasPrefix("status") })
        #expect(statusLine.split(separator: " ", omittingEmptySubsequences: true) == ["status", "ok", "ok"])
        #expect(side.stdout.contains("field coverage"))
        var narrow = harness(sandbox)
        narrow.width = 50
        let stacked = await narrow.run(["compare", invocations(sandbox)[0], invocations(sandbox)[1], "--limit", "3"])
        #expect(stacked.stdout.hasPrefix("== meetup --lat 51.509980"))
        #expect(stacked.stdout.split(separator: "\n").allSatisfy { TextLayout.width(String($0)) <= 50 })
    }
}

@Suite struct CompareOfflineTests {
    @Test func allComparesTheFirstExampleOfEveryProvider() async throws {
        let output = await CLIHarness().run(["compare", "--all", "--offline", "--format", "json", "--limit", "2"])
        #expect(output.code == .success)
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["provider"]?.string } == (try TestRegistry.builtIn().registry.names.map { Optional($0) }))
        #expect(results.allSatisfy { $0["meta"]?["source"] == "offline" })
    }

    @Test func theDocumentedExampleWorksOffline() async throws {
        let output = await CLIHarness().run([
            "compare", "meetup --lat 51.509980 --lon -0.133700", "kiva newest", "tmdb search batman", "twitter nasa", "--offline", "--format", "json",
        ])
        #expect(output.code == .success, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["provider"]?.string } == ["meetup", "kiva", "tmdb", "twitter"])
        #expect(results.allSatisfy { ($0["items"]?.array?.count ?? 0) > 0 })
    }

    @Test func ndjsonCSVAndMarkdownCoverEveryProvidersItems() async throws {
        let arguments = ["compare", "meetup --lat 51.5 --lon -0.13", "meetup --lat 48.85 --lon 2.35", "--offline", "--limit", "2", "--quiet"]
        let ndjson = await CLIHarness().run(arguments + ["--format", "ndjson"])
        #expect(ndjson.stdout.split(separator: "\n").count == 4)
        let csv = await CLIHarness().run(arguments + ["--format", "csv"])
        #expect(csv.stdout.hasPrefix("provider,kind,id,title,subtitle,summary,url,imageUrl,author,createdAt,city,country,latitude,longitude,tags,metric_members\r\n"))
        let markdown = await CLIHarness().run(arguments + ["--format", "markdown"])
        #expect(markdown.stdout.split(separator: "\n").count == 6, "header, rule and four rows")
    }

    @Test func compareOptionsApplyToEveryInvocationThatLeavesThemUnset() async throws {
        let output = await CLIHarness().run(["compare", "kiva newest --limit 1", "tmdb popular", "--offline", "--limit", "3", "--format", "json"])
        #expect(output.code == .success, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["items"]?.array?.count } == [1, 3])
        #expect(results.allSatisfy { $0["meta"]?["source"] == "offline" })

        let clash = await CLIHarness().run(["compare", "kiva newest --base-url https://api.kivaws.org", "--offline"])
        #expect(clash.code == .usage)
        #expect(clash.stderr.hasPrefix(
            "Error: invocation 1 ('kiva newest --base-url https://api.kivaws.org'): kiva: --offline and --base-url cannot be used together\n"))

        // Compare's own option is checked once, as compare's, even when every invocation sets its own.
        let bad = await CLIHarness().run(["compare", "kiva newest --limit 1", "--limit", "abc", "--offline"])
        #expect(bad.code == .usage)
        #expect(bad.stderr.hasPrefix("Error: --limit must be a whole number from 1 to 10000, not 'abc'\n"))
        let format = await CLIHarness().run(["compare", "kiva newest", "--format", "xml", "--offline"])
        #expect(format.stderr.hasPrefix("Error: --format must be one of text, json, ndjson, csv, markdown, html, not 'xml'\n"))
    }

    @Test func helpDocumentsCompare() async {
        let output = await CLIHarness().run(["help", "compare"])
        let flat = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["OVERVIEW:", "USAGE: aggregate compare", "ARGUMENTS:", "--all", "Exit status: 0 when all succeed, 3 when some fail"] {
            #expect(flat.contains(text))
        }
    }
}

@Suite struct ShellWordsTests {
    @Test func splitsLikeAShell() throws {
        #expect(try ShellWords.split(#"tmdb search "the amazing spider-man" --year 2012"#) == ["tmdb", "search", "the amazing spider-man", "--year", "2012"])
        #expect(try ShellWords.split(#"twitter 'it'\''s'  x\ y"#) == ["twitter", "it's", "x y"])
        #expect(try ShellWords.split(#"a "" b"#) == ["a", "", "b"])
        #expect(throws: AggregateError.self) { try ShellWords.split(#"tmdb "unclosed"#) }
    }
}

@Suite struct ProgressTests {
    @Test func statusTextForEachEvent() {
        #expect(ProgressDisplay.status(for: .fetchingPage(number: 2)) == "fetching page 2")
        #expect(ProgressDisplay.status(for: .retrying(afterSeconds: 1.5, reason: "HTTP 503", retry: 1, of: 3)) == "retrying in 1.5 s (HTTP 503)")
        #expect(ProgressDisplay.status(for: .finished(items: 1)) == "done with 1 item")
        #expect(ProgressDisplay.status(for: .failed("boom")) == "failed: boom")
        #expect(ProgressDisplay.status(for: .warning("x")) == nil)
    }

    @Test func redrawsLinesInPlaceAndClearsThemAtTheEnd() {
        let buffer = Buffer()
        let display = ProgressDisplay(labels: ["a", "b"], console: Console(out: { _ in }, err: { buffer.append($0) }), width: 80)
        display.start()
        display.update(1, .fetchingPage(number: 1))
        display.finish()
        let text = buffer.text
        #expect(text.contains("a: waiting\n"))
        #expect(text.contains("b: fetching page 1\n"))
        #expect(text.contains("\u{1B}[2A"), "moves back up to redraw")
        #expect(text.hasSuffix("\u{1B}[2K\n\u{1B}[2K\n\u{1B}[2A"), "clears its lines when done")
    }
}
