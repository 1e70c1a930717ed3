import AggregateJSON
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate import recording` end to end through the built binary: a provider run recorded against the emulator
/// over loopback becomes a definition that gives the same ids and titles, in order, when the cassette is replayed
/// through it; and cassettes it cannot learn from fail with one line and the documented exit code.
@Suite(.serialized) struct ImportRecordingTests {
    func folder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-import-\(name)-\(UUID().uuidString)")
    }

    /// The ids and titles of a `--format json` run's first result.
    func items(_ output: Binary.Output) throws -> [[String]] {
        let json = try JSONParser().parse(output.stdout)
        let items = try #require(json["results"]?[0]?["items"]?.array)
        return items.map { [$0["id"]?.string ?? "?", $0["title"]?.string ?? "?"] }
    }

    /// Records `arguments` against the emulator, imports the cassette as `name`, and replays it through the import
    /// with `replayed` (the imported operation and its arguments): both runs' items.
    func roundTrip(
        provider: String, _ arguments: [String], name: String, replayed: [String]
    ) throws -> (recorded: [[String]], replayed: [[String]], importOutput: Binary.Output, out: URL) {
        let sandbox = try LoopbackSandbox()
        let cassette = folder("cassette")
        let out = folder("definition")
        let environment = ["AGGREGATE_\(provider.uppercased())_BASE_URL": sandbox.url + "/" + provider]
        let recorded = try Binary.run(arguments + ["--format", "json", "--record", cassette.path], environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        sandbox.server.stop()
        let imported = try Binary.run(["import", "recording", cassette.path, "--name", name, "--out", out.path])
        let replay = try Binary.run(
            ["--provider-file", out.appendingPathComponent("provider.json").path, name] + replayed + ["--format", "json", "--replay", cassette.path])
        #expect(replay.status == 0, "\(replay.stderr)")
        return (try items(recorded), try items(replay), imported, out)
    }

    @Test func gitHubsSearchComesBackFromItsRecording() throws {
        let run = try roundTrip(
            provider: "github", ["github", "search", "swift", "--limit", "60"], name: "gh-imported", replayed: ["repositories", "swift", "--limit", "60"])
        #expect(run.importOutput.status == 0, "\(run.importOutput.stderr)")
        #expect(run.importOutput.stdout.contains("verified: 59 items from 2 exchanges match"), "\(run.importOutput.stdout)")
        #expect(run.recorded.count == 59)
        #expect(run.replayed == run.recorded)
        let definition = try JSONParser().parse(Data(contentsOf: run.out.appendingPathComponent("provider.json")))
        let operation = definition["operations"]?[0]
        #expect(operation?["pagination"] == ["kind": "link", "pageSize": 30, "pageSizeParameter": "per_page", "totalCountPath": "total_count"])
        #expect(operation?["records"] == "items")
        #expect(operation?["item"]?["title"] == ["full_name", "name"])
        #expect(definition["samples"] == ["repositories": ["SampleData/repositories-1.json", "SampleData/repositories-2.json"]])
        let report = try String(contentsOf: run.out.appendingPathComponent("import-report.txt"), encoding: .utf8)
        #expect(report.contains("pagination: link: each request followed the previous answer's Link rel=\"next\""))
        let check = try Binary.run(["check", run.out.appendingPathComponent("provider.json").path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func hackerNewsSearchComesBackFromItsRecording() throws {
        let run = try roundTrip(
            provider: "hackernews", ["hackernews", "search", "swift", "--limit", "30"], name: "hn-imported", replayed: ["search", "swift", "--limit", "30"])
        #expect(run.importOutput.status == 0, "\(run.importOutput.stderr)")
        #expect(run.importOutput.stdout.contains("verified: 34 items from 2 exchanges match"), "\(run.importOutput.stdout)")
        #expect(run.recorded.count == 30)
        #expect(run.replayed == run.recorded)
        let definition = try JSONParser().parse(Data(contentsOf: run.out.appendingPathComponent("provider.json")))
        let pagination = definition["operations"]?[0]?["pagination"]
        #expect(pagination?["kind"] == "pageNumber")
        #expect(pagination?["firstPage"] == 0)
        #expect(pagination?["pageSizeParameter"] == "hitsPerPage")
        #expect(pagination?["totalPagesPath"] == "nbPages")
        #expect(definition["operations"]?[0]?["item"]?["title"] == ["title", "story_title"])
        // Offline, its emulator serves the recorded bodies as its samples.
        let offline = try Binary.run(["--provider-file", run.out.appendingPathComponent("provider.json").path, "hn-imported", "search", "swift", "--offline", "--format", "json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try items(offline) == Array(run.recorded.prefix(20)))
    }

    /// Writes `text` as DIR/cassette.json and imports it: the result and whether an output folder was left.
    func importing(_ text: String?) throws -> (Binary.Output, Bool) {
        let cassette = folder("bad")
        if let text {
            try FileManager.default.createDirectory(at: cassette, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: cassette.appendingPathComponent("cassette.json"))
        }
        let out = folder("none")
        let output = try Binary.run(["import", "recording", cassette.path, "--name", "nothing", "--out", out.path])
        return (output, FileManager.default.fileExists(atPath: out.path))
    }

    func cassette(_ exchanges: String) -> String {
        #"{"format": "aggregate-cassette", "version": 1, "recordedAt": "2026-12-01T10:00:00.000Z", "credentialVariables": [], "exchanges": [\#(exchanges)]}"#
    }

    func exchange(status: Int, contentType: String, body: String) -> String {
        let encoded = JSONWriter().string(.string(body))
        return #"{"provider": "get", "startedAt": "2026-12-01T10:00:00.000Z", "durationMs": 1, "request": {"method": "GET", "url": "https://api.example.com/items", "headers": [], "body": null}, "response": {"status": \#(status), "headers": [["Content-Type", "\#(contentType)"]], "body": \#(encoded)}}"#
    }

    @Test func cassettesItCannotLearnFromFailWithOneLine() throws {
        let cases: [(String?, Int32, String)] = [
            (nil, 66, "there is no folder"),
            ("{not json", 65, "is not valid JSON"),
            (#"{"format": "aggregate-cassette", "version": 9}"#, 65, "version 9 is not one this build reads"),
            (cassette(""), 65, "holds no exchanges"),
            (cassette(exchange(status: 200, contentType: "text/html", body: "<html>hello</html>")), 65, "the body is not JSON (text/html)"),
            (cassette(exchange(status: 503, contentType: "application/json", body: "{}")), 65, "HTTP 503: only successful answers show the records"),
        ]
        for (text, status, words) in cases {
            let (output, leftFolder) = try importing(text)
            #expect(output.status == status, "\(words): \(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(output.stderr)")
            #expect(lines.first?.hasPrefix("Error: import recording: ") == true || lines.first?.hasPrefix("Error: the cassette") == true, "\(output.stderr)")
            #expect(output.stderr.contains(words), "\(output.stderr)")
            #expect(!leftFolder)
            #expect(output.stdout.isEmpty)
        }
        let empty = folder("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = try Binary.run(["import", "recording", empty.path])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("holds no cassette.json"))
        let usage = try Binary.run(["import", "recording"])
        #expect(usage.status == 64)
    }
}
