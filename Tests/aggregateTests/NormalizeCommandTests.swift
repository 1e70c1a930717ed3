import AggregateCore
import AggregateTestSupport
import Foundation
import Testing

private let tmdbPage = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/tmdb/search_page_quirks.json").path

/// `aggregate normalize` through the built binary: saved responses in, unified results out, exit codes as a run's.
@Suite struct NormalizeCommandTests {
    @Test func aSavedPageGivesTheSameItemsAsAnyRunInEveryFormat() throws {
        let csv = try Binary.run(["normalize", "tmdb", "search", tmdbPage, "--format", "csv"])
        #expect(csv.status == 0)
        #expect(csv.stdout.hasPrefix("provider,kind,id,title,"))
        #expect(csv.stdout.contains("tmdb,movie,1930,The Amazing Spider-Man,"))
        let json = try Binary.run(["normalize", "tmdb", tmdbPage, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let result = try #require((document["results"] as? [[String: Any]])?.first)
        #expect(result["operation"] as? String == "search")
        #expect((result["items"] as? [Any])?.count == csv.stdout.split(whereSeparator: \.isNewline).count - 1)
        for format in ["text", "ndjson", "markdown"] {
            let output = try Binary.run(["normalize", "tmdb", tmdbPage, "--format", format])
            #expect(output.status == 0 && output.stdout.contains("Spider-Man"), "\(format)")
        }
    }

    @Test func rawOutputOfARunNormalizesBackToTheSameItems() throws {
        let run = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--quiet", "--format", "ndjson"])
        let raw = try Binary.run(["meetup", "--lat", "51.5", "--lon", "-0.13", "--offline", "--quiet", "--raw"])
        #expect(run.status == 0 && raw.status == 0)
        let again = try Binary.run(["normalize", "meetup", "-", "--format", "ndjson"], stdin: raw.stdout)
        #expect(again.status == 0)
        let ids = { (text: String) in text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String } }
        #expect(!ids(run.stdout).isEmpty)
        #expect(ids(again.stdout) == ids(run.stdout))
    }

    @Test func pagesComeAsNDJSONOrAsAnArrayAndTheLimitCuts() throws {
        let body = try String(contentsOfFile: tmdbPage, encoding: .utf8)
        let oneLine = String(data: try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: Data(body.utf8))), encoding: .utf8)!
        let single = try Binary.run(["normalize", "tmdb", "--format", "ndjson"], stdin: body)
        let count = single.stdout.split(separator: "\n").count
        let ndjson = try Binary.run(["normalize", "tmdb", "--pages", "--format", "ndjson", "--verbose"], stdin: oneLine + "\n\n" + oneLine + "\n")
        #expect(ndjson.status == 0)
        #expect(ndjson.stdout.split(separator: "\n").count == 2 * count)
        #expect(ndjson.stderr == "tmdb: normalized 2 pages from standard input into \(2 * count) items\n")
        let array = try Binary.run(["normalize", "tmdb", "--pages", "--format", "ndjson", "--limit", "3"], stdin: "[\(oneLine),\n\(oneLine)]")
        #expect(array.stdout.split(separator: "\n").count == 3)
    }

    @Test func loneSurrogatesAreReadAndReportedWithVerbose() throws {
        let page = #"{"page":1,"results":[{"id":5,"title":"Cut \ud83c","release_date":"2001-01-01"}],"total_pages":1,"total_results":1}"#
        let output = try Binary.run(["normalize", "tmdb", "--format", "ndjson", "--verbose"], stdin: page)
        #expect(output.status == 0)
        #expect(output.stdout.contains("Cut \u{FFFD}"))
        #expect(output.stderr.contains("tmdb: 1 lone UTF-16 surrogate escape (e.g. \\ud800, from text cut inside a surrogate pair) read as U+FFFD"))
    }

    /// Every provider's `--raw` output normalizes back to the same items, whichever API answered (`--api` as for the
    /// provider's own command), and twitter's too, whose plan needs a username that no body tells.
    @Test(arguments: [
        ["twitter", "orbitalnotes", "--limit", "5"], ["twitter", "orbitalnotes", "--limit", "5", "--api", "v1.1"],
        ["kiva", "newest", "--api", "rest", "--limit", "5"], ["kiva", "search", "--api", "rest", "--limit", "5"],
        ["meetup", "--lat", "51.5", "--lon", "-0.13", "--api", "v2", "--limit", "5"],
    ])
    func rawOutputOfEveryAPINormalizesBack(_ run: [String]) throws {
        let items = try Binary.run(run + ["--offline", "--quiet", "--format", "ndjson"])
        let raw = try Binary.run(run + ["--offline", "--quiet", "--raw"])
        #expect(items.status == 0 && raw.status == 0, "\(items.stderr)")
        let operation = run[1].hasPrefix("-") || run[0] == "twitter" ? [] : [run[1]]
        let api = run.firstIndex(of: "--api").map { Array(run[$0...($0 + 1)]) } ?? []
        let again = try Binary.run(["normalize", run[0]] + operation + ["-", "--format", "ndjson", "--limit", "5"] + api, stdin: raw.stdout)
        #expect(again.status == 0, "\(again.stderr)")
        let ids = { (text: String) in text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String } }
        #expect(!ids(items.stdout).isEmpty)
        #expect(ids(again.stdout) == ids(items.stdout))
    }

    @Test(arguments: [
        (["normalize", "tmdb", "search"], "{\"x\": 1}", 65, "Error: tmdb: standard input: not a tmdb response of this kind: the response has no 'results' list (not a TMDb movie list page)\n"),
        (["normalize", "tmdb"], "{\"x\":", 65, "Error: tmdb: standard input: invalid JSON: unexpected end of input, expected a value at line 1, column 6: {\"x\":\n"),
        (["normalize", "tmdb", "/nonexistent/page.json"], "", 66, "Error: normalize: /nonexistent/page.json: no such file\n"),
        (["normalize", "nosuch"], "", 64, "Error: unknown provider 'nosuch'"),
        (["normalize"], "", 64, "Error: missing <provider>: name whose responses these are"),
        (["normalize", "tmdb", "--format", "xml"], "", 64, "Error: --format must be one of"),
        (["normalize", "tmdb", "nosuchop", tmdbPage], "", 64, "Error: tmdb: unknown operation 'nosuchop' (operations: search, popular, movie)\nUsage: aggregate normalize "),
        (["normalize", "tmdb", tmdbPage, "--api", "v2"], "", 64, "Error: tmdb: --api does not apply: this provider has one API; leave it out\n"),
        (["normalize", "kiva", "--api", "soap"], "", 64, "Error: kiva: --api must be one of graphql, rest, not 'soap'\n"),
    ] as [([String], String, Int32, String)])
    func badInputsGiveOneLineAndTheRunExitCodes(arguments: [String], stdin: String, status: Int32, stderr: String) throws {
        let output = try Binary.run(arguments, stdin: stdin)
        #expect(output.status == status)
        #expect(output.stderr.hasPrefix(stderr), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }
}

/// A live run with `--verbose` says when a response had lone surrogates, which were read as U+FFFD.
@Suite struct RepairReportTests {
    @Test func verboseRunsReportLoneSurrogatesInResponses() async throws {
        var harness = CLIHarness(environment: ["X_BEARER_TOKEN": "test-token"])
        harness.makeTransport = {
            FakeTransport { request in
                let older = request.url.query?.contains("max_id") == true
                let body = older ? "[]" : #"[{"id_str": "17", "full_text": "cut here \ud83c", "created_at": "Wed Nov 26 16:05:00 +0000 2025", "user": {"id_str": "9", "screen_name": "swiftbytes", "name": "Swift Bytes"}}]"#
                return HTTPResponse(status: 200, body: Data(body.utf8), url: request.url)
            }
        }
        let output = await harness.run(["twitter", "swiftbytes", "--api", "v1.1", "--base-url", "https://api.example.org", "--verbose", "--format", "ndjson"])
        #expect(output.code == .success)
        #expect(output.stdout.contains("cut here \u{FFFD}"))
        #expect(output.stderr.contains("twitter: 1 lone UTF-16 surrogate escape (e.g. \\ud800, from text cut inside a surrogate pair) read as U+FFFD"))
        let quiet = await harness.run(["twitter", "swiftbytes", "--api", "v1.1", "--base-url", "https://api.example.org", "--format", "ndjson"])
        #expect(!quiet.stderr.contains("surrogate"))
    }
}
