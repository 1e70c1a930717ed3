import AggregateCore
import AggregateJSON
import AggregateTestSupport
import AggregateText
import Foundation
import Testing

/// Our own fixtures in the shapes of the captured API responses (see Fixtures/browse).
private let fixtureFolder = TestPaths.testTarget("AggregateJSONTests").appendingPathComponent("Fixtures/browse")
private let goldenFolder = TestPaths.testTarget("AggregateJSONTests").appendingPathComponent("Golden/browse")
private let fixtureNames = [
    "meetup_v2_groups", "tmdb_search_movie", "tmdb_movie_append", "twitter_v2_search", "twitter_v1_timeline",
    "kiva_v1_loan", "rails_index_empty", "rails_index_rails3",
]

private func fixture(_ name: String) throws -> JSONValue {
    try JSONParser().parse(Data(contentsOf: fixtureFolder.appendingPathComponent("\(name).json")))
}

@Suite struct JSONOutlineGoldenTests {
    @Test(arguments: fixtureNames)
    func outlineMatchesGolden(name: String) throws {
        let lines = JSONOutline.lines(try fixture(name), options: .init(depth: 3, width: 80))
        #expect(lines.allSatisfy { TextLayout.width($0) <= 80 })
        let text = lines.joined(separator: "\n") + "\n"
        if let problem = Golden.check(text, against: goldenFolder.appendingPathComponent("\(name).outline.txt")) {
            Issue.record("\(problem)")
        }
    }

    @Test(arguments: fixtureNames)
    func pathsMatchGolden(name: String) throws {
        let text = JSONOutline.paths(try fixture(name)).joined(separator: "\n") + "\n"
        if let problem = Golden.check(text, against: goldenFolder.appendingPathComponent("\(name).paths.txt")) {
            Issue.record("\(problem)")
        }
    }
}

@Suite struct JSONOutlineTests {
    let group: JSONValue = [
        "name": "London French Meetup",
        "topics": [["name": "French"], ["name": "Language Exchange"], ["name": "Francophone"]],
        "organizer": ["id": 7730461, "name": "Camille"],
        "empty": [],
        "none": [:],
    ]

    @Test func showsScalarsAsKeyEqualsValueAndContainersByTypeAndSize() {
        #expect(JSONOutline.lines(group, options: .init(depth: 1)) == [
            #"name = "London French Meetup""#,
            "topics: array[3]",
            "organizer: object{2}",
            "empty: array[0]",
            "none: object{0}",
        ])
    }

    @Test func nestsToTheDepthWithTwoSpacesPerLevel() {
        #expect(JSONOutline.lines(group, options: .init(depth: 2)) == [
            #"name = "London French Meetup""#,
            "topics: array[3]",
            "  [0]: object{1}",
            "  [1]: object{1}",
            "  [2]: object{1}",
            "organizer: object{2}",
            "  id = 7730461",
            #"  name = "Camille""#,
            "empty: array[0]",
            "none: object{0}",
        ])
        #expect(JSONOutline.lines(group, options: .init(depth: 3))[3] == #"    name = "French""#)
    }

    @Test func cutsLinesToTheWidthCountingWideCharacters() {
        let value: JSONValue = ["title": "夏の灯台 — a very long title that goes on and on", "emoji": "🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀"]
        let lines = JSONOutline.lines(value, options: .init(width: 20))
        #expect(lines == [#"title = "夏の灯台 —…"#, #"emoji = "🚀🚀🚀🚀🚀…"#])
        #expect(lines.allSatisfy { TextLayout.width($0) <= 20 })
        #expect(JSONOutline.lines(value, options: .init(width: nil))[0] == #"title = "夏の灯台 — a very long title that goes on and on""#)
    }

    @Test func keepsEscapesSoEveryValueStaysOnOneLine() {
        let value: JSONValue = ["body": "First line\r\nSecond\tline \"quoted\"", "bell": "\u{07}\u{1B}[31m"]
        #expect(JSONOutline.lines(value, options: .init(width: nil)) == [
            #"body = "First line\r\nSecond\tline \"quoted\"""#,
            #"bell = "\u0007\u001b[31m""#,
        ])
    }

    @Test func countsWhatIsLeftOutPerContainer() {
        let value = JSONValue.array((0..<5).map(JSONValue.int))
        #expect(JSONOutline.lines(value, options: .init(maxChildren: 2)) == ["[0] = 0", "[1] = 1", "… 3 more elements"])
        let object = JSONValue.object(JSONObject((0..<3).map { JSONObject.Member("k\($0)", .null) }))
        #expect(JSONOutline.lines(object, options: .init(maxChildren: 2)).last == "… 1 more key")
    }

    @Test func aScalarOrEmptyNodeIsOneLineOfItself() {
        #expect(JSONOutline.lines("text") == [#""text""#])
        #expect(JSONOutline.lines(.number("1765001234567890123")) == ["1765001234567890123"])
        #expect(JSONOutline.lines([]) == ["array[0]"])
        #expect(JSONOutline.lines([:]) == ["object{0}"])
        #expect(JSONOutline.lines(nil) == ["null"])
    }

    @Test func quotesKeysThatAreNotBare() {
        let value: JSONValue = ["a.b": 1, "0": 2, "": 3, "watch/providers": 4, "x y": 5]
        #expect(JSONOutline.lines(value) == [#""a.b" = 1"#, #""0" = 2"#, #""" = 3"#, "watch/providers = 4", #""x y" = 5"#])
    }

    @Test func pathsListEveryLeafWithAPathThatReadsBack() throws {
        let value: JSONValue = ["a.b": [1, [], ["0": nil]], "big": .number("1765001234567890123"), "s": "line\nbreak", "e": [:]]
        let lines = JSONOutline.paths(value)
        #expect(lines == [
            #"["a.b"][0] = 1"#,
            #"["a.b"][1] = []"#,
            #"["a.b"][2]["0"] = null"#,
            "big = 1765001234567890123",
            #"s = "line\nbreak""#,
            "e = {}",
        ])
        #expect(JSONOutline.paths(.number("5")) == [". = 5"])
        #expect(JSONOutline.paths([1], prefix: try JSONPath(parsing: "data.items")) == ["data.items[0] = 1"])
    }

    @Test func handlesTheDeepestDocumentTheParserAccepts() throws {
        let depth = 512
        let text = String(repeating: "[", count: depth - 1) + "{\"k\": 1}" + String(repeating: "]", count: depth - 1)
        let value = try JSONParser().parse(text)
        #expect(JSONOutline.paths(value) == [String(repeating: "[0]", count: depth - 1) + ".k = 1"])
        #expect(JSONOutline.lines(value, options: .init(depth: 100)).count == 100)
    }
}

/// Every outline and path over the real captured responses (when ../shared/api/samples exists): lines fit the
/// width, and every printed path leads back to the value printed with it.
@Suite struct JSONOutlineSharedSampleTests {
    static var samples: [URL] {
        guard let root = TestPaths.sharedSamples,
            let folders = try? FileManager.default.contentsOfDirectory(atPath: root.path)
        else { return [] }
        return folders.sorted().flatMap { TestPaths.sharedResponseSamples($0) }
    }

    @Test func sharedSamplesAreFound() {
        guard TestPaths.sharedSamples != nil else { return }
        #expect(Self.samples.count > 20)
    }

    @Test(arguments: samples)
    func outlineAndPathsHoldOnRealSample(_ url: URL) throws {
        let value = try JSONInput.decode(Data(contentsOf: url), name: url.lastPathComponent)
        let lines = JSONOutline.lines(value, options: .init(depth: 3, width: 60))
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { TextLayout.width($0) <= 60 && !$0.contains("\n") })
        var count = 0
        JSONOutline.paths(value) { line in
            count += 1
            guard let separator = line.range(of: " = ") else {
                Issue.record("no ' = ' in \(line)")
                return
            }
            do {
                let path = try JSONPath(parsing: String(line[..<separator.lowerBound]))
                let printed = try JSONParser().parse(String(line[separator.upperBound...]))
                #expect(try path.resolve(in: value) == printed, "\(url.lastPathComponent): \(line)")
            } catch {
                Issue.record("\(url.lastPathComponent): \(line): \(error)")
            }
        }
        #expect(count > 0)
    }
}
