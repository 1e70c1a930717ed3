import AggregateTestSupport
import Foundation
import Testing

private let archives = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter_archive")
private let sharedSamples = TestPaths.testTarget("AggregateProvidersTests")
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/api/samples/twitter_archive")

private func ndjson(_ arguments: [String]) throws -> [[String: Any]] {
    let output = try Binary.run(["twitter", "archive"] + arguments + ["--format", "ndjson"])
    #expect(output.status == 0, "\(output.stderr)")
    return output.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// `aggregate twitter archive` over our own archives in the shapes of each era, and over the shared real samples.
@Suite struct TwitterArchiveTests {
    @Test func theCurrentEraReadsEveryPartUnwrapsTweetsAndKeepsTheLastEdit() throws {
        let items = try ndjson([archives.appendingPathComponent("2024_parts").path])
        #expect(items.map { $0["id"] as? String } == [
            "1855000000000000001", "1767400000000000009", "1712800000000000003", "1626900000000000004", "9811245",
        ])
        let edited = items[1]
        #expect(edited["title"] as? String == "Ferry timetable v1 & v2 compared (fixed link)")
        #expect((edited["metrics"] as? [String: Any])?["likes"] as? Int == 12)
        #expect(edited["url"] as? String == "https://x.com/quaykeeper/status/1767400000000000009")
        #expect(edited["createdAt"] as? String == "2024-03-11T18:05:00Z")
        #expect(items[0]["extra"].flatMap { ($0 as? [String: Any])?["isRetweet"] as? Bool } == true)
        #expect(items[2]["title"] as? String == "A long harbour story begins here and goes on past the limit of one post so it is cut into two parts by the app, but the archive keeps it whole & intact.")
        #expect(items[3]["extra"].flatMap { ($0 as? [String: Any])?["isReply"] as? Bool } == true)
        #expect(items[4]["title"] as? String == "first post from the old phone \u{FFFD}")
    }

    @Test func everyEraOfOurOwnArchivesIsRead() throws {
        #expect(try ndjson([archives.appendingPathComponent("2021_wrapped").path]).map { $0["id"] as? String } == ["1221100000000000005"])
        let root = try ndjson([archives.appendingPathComponent("2019_root").path])
        #expect(root.map { $0["id"] as? String } == ["1159900000000000006", "1159800000000000007"])
        let grailbird = try ndjson([archives.appendingPathComponent("2016_grailbird").path])
        #expect(grailbird.map { $0["id"] as? String } == ["164570129890410499", "164560889234735104"])
        #expect(grailbird[0]["createdAt"] as? String == "2016-01-31T22:27:01Z")
        #expect(grailbird[0]["author"] as? String == "@quaykeeper (Quay Keeper)")
        // One part file, named on its own, and the data/ folder.
        let part = archives.appendingPathComponent("2024_parts/data/tweets-part1.js").path
        #expect(try ndjson([part]).count == 2)
        #expect(try ndjson([archives.appendingPathComponent("2024_parts/data").path]).count == 5)
    }

    @Test func theManifestListsThePartsWhenItNamesFilesThatAreThere() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.copyItem(at: archives.appendingPathComponent("2024_parts"), to: scratch)
        let manifest = scratch.appendingPathComponent("data/manifest.js")
        let original = try String(contentsOf: manifest, encoding: .utf8)
        // Listing only part 1: only its tweets are read.
        let onlyPart1 = original.replacingOccurrences(of: #""fileName" : "data/tweets.js","#, with: #""fileName" : "data/tweets-part1.js","#)
        #expect(onlyPart1 != original)
        try onlyPart1.write(to: manifest, atomically: true, encoding: .utf8)
        #expect(try ndjson([scratch.path]).map { $0["id"] as? String } == ["1626900000000000004", "9811245", "1626900000000000004", "9811245"])
        // A manifest naming a file that is not there is not trusted: the files on disk are read.
        try original.replacingOccurrences(of: "data/tweets-part1.js", with: "data/tweets-part9.js").write(to: manifest, atomically: true, encoding: .utf8)
        #expect(try ndjson([scratch.path]).count == 5)
    }

    @Test func filtersAndTheLimitWorkAsForTheTimeline() throws {
        let path = archives.appendingPathComponent("2024_parts").path
        #expect(try ndjson([path, "--exclude", "replies,retweets"]).map { $0["id"] as? String } == ["1767400000000000009", "1712800000000000003", "9811245"])
        #expect(try ndjson([path, "--since", "2023-01-01", "--until", "2024-11-01"]).map { $0["id"] as? String } == [
            "1767400000000000009", "1712800000000000003", "1626900000000000004",
        ])
        // --limit keeps the newest, compared as integers (the 2006 id is the shortest).
        #expect(try ndjson([path, "--limit", "2"]).map { $0["id"] as? String } == ["1855000000000000001", "1767400000000000009"])
        let text = try Binary.run(["twitter", "archive", path, "--format", "csv", "--limit", "1"])
        #expect(text.stdout.hasPrefix("provider,kind,id,title"))
        #expect(text.stdout.contains("1855000000000000001"))
    }

    @Test func theZipIsReadThroughUnzipOrBsdtarOrRefusedClearly() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let zip = scratch.appendingPathComponent("twitter-2024-11-16-abc.zip")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import shutil,sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])", String(zip.path.dropLast(4)), archives.appendingPathComponent("2024_parts").path]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let hasTool = ["/usr/bin/unzip", "/usr/bin/bsdtar", "/bin/unzip", "/bin/bsdtar"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        let output = try Binary.run(["twitter", "archive", zip.path, "--format", "ndjson"])
        if hasTool {
            #expect(output.status == 0)
            #expect(output.stdout.split(separator: "\n").count == 5)
        } else {
            #expect(output.status == 1)
            #expect(output.stderr.contains("reading a .zip needs unzip or bsdtar"))
        }
    }

    @Test(arguments: [
        (["twitter", "archive"], 64, "Error: missing <path>"),
        (["twitter", "archive", "/nonexistent/x"], 66, "Error: twitter: /nonexistent/x: no such file or folder"),
        (["twitter", "archive", "/tmp", "--since", "yesterday"], 64, "Error: --since must be a date such as 2024-01-31"),
        (["twitter", "archive", "/tmp", "--exclude", "likes"], 64, "Error: --exclude takes replies, retweets or both"),
    ] as [([String], Int32, String)])
    func badArgumentsGiveOneLine(arguments: [String], status: Int32, stderr: String) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == status)
        #expect(output.stderr.hasPrefix(stderr), "\(output.stderr)")
    }

    @Test func aBrokenDataFileNamesItsPathLineAndColumn() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("data"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("data/tweets.js")
        try Data("window.YTD.tweets.part0 = [\n  {\"tweet\" : {\"id\" : \"1\",}}\n]".utf8).write(to: file)
        let output = try Binary.run(["twitter", "archive", scratch.path])
        #expect(output.status == 65)
        #expect(output.stderr == "Error: twitter: \(file.path): invalid JSON: expected a quoted key at line 2, column 26: weet\" : {\"id\" : \"1\",}}\n")
    }

    /// Conformance with the real exports in ../shared (when that folder is there): every era reads.
    @Test func everySharedSampleEraIsRead() throws {
        guard FileManager.default.fileExists(atPath: sharedSamples.path) else { return }
        let expected: [(String, Int)] = [
            ("2013-02-08_anildash_grailbird", 1), ("2019-08_gedankenstuecke_root_layout", 1), ("2020-04-03_LumenInferius", 1),
            ("2024-11-16_alrocar", 8), ("2023_multipart.AUTHORED/data/tweets-part1.AUTHORED.js", 1),
        ]
        for (name, atLeast) in expected {
            let items = try ndjson([sharedSamples.appendingPathComponent(name).path])
            #expect(items.count >= atLeast, "\(name)")
            #expect(items.allSatisfy { ($0["id"] as? String)?.allSatisfy(\.isNumber) == true && $0["createdAt"] is String }, "\(name)")
        }
        // The edited pair of the 2024 sample shows once, as its last version.
        let alrocar = try ndjson([sharedSamples.appendingPathComponent("2024-11-16_alrocar").path]).compactMap { $0["id"] as? String }
        #expect(!alrocar.contains("1767496415922585688") && alrocar.contains("1767497756157866020"))
    }
}
