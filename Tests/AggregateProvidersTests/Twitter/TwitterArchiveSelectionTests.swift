import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing
@testable import TwitterProvider

/// The archive reads each tweet with only ``TwitterArchive/tweetFields``: the items must be those of the whole
/// tweets, for every archive era we hold (our fixtures and the shared real exports) and for API v1.1 statuses, whose
/// retweets, media and replies exercise every field the mapping reads.
@Suite struct TwitterArchiveSelectionTests {
    /// The JSON arrays to read: the data of every archive `.js` file after its `=`, and every v1.1 timeline body.
    static func documents() throws -> [(name: String, data: Data)] {
        var roots = [TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter_archive")]
        if let shared = TestPaths.sharedSamples { roots.append(shared.appendingPathComponent("twitter_archive")) }
        var documents: [(name: String, data: Data)] = []
        for root in roots {
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "js" {
                let data = try Data(contentsOf: url)
                guard let equals = data.firstIndex(of: UInt8(ascii: "=")) else { continue }
                documents.append((url.path, Data(data[(equals + 1)...])))
            }
        }
        let timelines = [TwitterFixtures.folder.appendingPathComponent("v1.1-timeline-page.json")]
            + TestPaths.sharedResponseSamples("twitter")
        for url in timelines {
            let data = try Data(contentsOf: url)
            if data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) == UInt8(ascii: "[") { documents.append((url.path, data)) }
        }
        return documents
    }

    /// Each element of `data`'s top-level array, read with `selection`.
    static func elements(of data: Data, selecting selection: JSONSelection?) throws -> [JSONValue] {
        let reader = JSONEventReader(data: data)
        guard try reader.nextToken() == .arrayStart else { return [] }
        var elements: [JSONValue] = []
        while let token = try reader.nextToken(), token != .arrayEnd {
            elements.append(try reader.readValue(startingWith: token, selecting: selection))
        }
        return elements
    }

    @Test func selectedTweetsGiveTheItemsOfWholeTweets() throws {
        var compared = 0, smaller = 0, retweets = 0
        for document in try Self.documents() {
            let whole = try Self.elements(of: document.data, selecting: nil)
            let selected = try Self.elements(of: document.data, selecting: TwitterArchive.tweetFields)
            try #require(whole.count == selected.count, "\(document.name)")
            for (full, kept) in zip(whole, selected) {
                let expected = TwitterArchive.item(full, username: "archive_owner", notes: TwitterArchive.LongPosts())
                let actual = TwitterArchive.item(kept, username: "archive_owner", notes: TwitterArchive.LongPosts())
                #expect(actual.map { JSONWriter().string($0.jsonValue) } == expected.map { JSONWriter().string($0.jsonValue) }, "\(document.name)")
                compared += 1
                if kept != full { smaller += 1 }
                if (full["tweet"] ?? full)["retweeted_status"] != nil { retweets += 1 }
            }
        }
        // Enough tweets of enough kinds, and the selection really drops members (or this compares a value with itself).
        #expect(compared >= 20)
        #expect(smaller == compared)
        #expect(retweets >= 1)
    }

    @Test func aSelectionKeepsNamedMembersAtEveryLevelAndInArrays() throws {
        let data = Data(#"{"a":1,"b":{"c":[{"d":2,"e":3},{"d":4}],"f":5},"g":[1,{"h":6}],"self":{"a":7,"z":8,"self":{"a":9,"z":10}},"a":11}"#.utf8)
        let selection = JSONSelection([
            "a": .whole, "g": .whole, "self": .same,
            "b": .selection(JSONSelection(["c": .selection(JSONSelection(["d": .whole]))])),
        ])
        let reader = JSONEventReader(data: data)
        let value = try reader.readValue(startingWith: try #require(try reader.nextToken()), selecting: selection)
        #expect(value == (try JSONParser().parse(Data(#"{"a":1,"b":{"c":[{"d":2},{"d":4}]},"g":[1,{"h":6}],"self":{"a":7,"self":{"a":9}},"a":11}"#.utf8))))
        // A repeated key resolves to its last member, as in the whole value.
        #expect(value["a"] == 11)
        #expect(try reader.nextToken() == nil)
    }

    @Test func skippedMembersAreStillCheckedAsJSON() throws {
        let reader = JSONEventReader(data: Data(#"{"keep":1,"skip":[1,2,}"#.utf8))
        let start = try #require(try reader.nextToken())
        #expect(throws: JSONParseError.self) { try reader.readValue(startingWith: start, selecting: JSONSelection(["keep": .whole])) }
    }
}
