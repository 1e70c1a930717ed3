import AggregateCore
import AggregateJSON
import Foundation
import Testing

@Suite struct JSONPathSyntaxTests {
    @Test(arguments: [
        ("", [JSONPath.Segment]()),
        (".", []),
        ("results", [.key("results")]),
        (".results", [.key("results")]),
        ("results.0.topics", [.key("results"), .name("0"), .key("topics")]),
        ("results[0].topics", [.key("results"), .index(0), .key("topics")]),
        ("results[-1]", [.key("results"), .index(-1)]),
        ("results.-2", [.key("results"), .name("-2")]),
        ("[3][4]", [.index(3), .index(4)]),
        ("a.[0]", [.key("a"), .index(0)]),
        (#""a.b".c"#, [.key("a.b"), .key("c")]),
        (#"x."a.b""#, [.key("x"), .key("a.b")]),
        ("'a.b'.c", [.key("a.b"), .key("c")]),
        (#"x["a.b"]"#, [.key("x"), .key("a.b")]),
        ("x['a]b']", [.key("x"), .key("a]b")]),
        (#"x["tab\there \"q\""]"#, [.key("x"), .key("tab\there \"q\"")]),
        (#"x['it\'s']"#, [.key("x"), .key("it's")]),
        (#"x["0"]"#, [.key("x"), .key("0")]),
        ("watch/providers.results.GB", [.key("watch/providers"), .key("results"), .key("GB")]),
        ("données.clé", [.key("données"), .key("clé")]),
    ])
    func parses(text: String, segments: [JSONPath.Segment]) throws {
        #expect(try JSONPath(parsing: text).segments == segments)
    }

    @Test(arguments: [
        ("a..b", 3, "empty segment"),
        ("a.", 3, "ends with '.'"),
        ("a[", 3, "unterminated '['"),
        ("a[]", 3, "empty brackets"),
        ("a[x]", 3, #"[x] is not an index; write a number such as [0], or quote a key: ["x"]"#),
        ("a[1.5]", 3, "[1.5] is not an index"),
        ("a[0", 4, "expected ']'"),
        (#"a."bc"#, 3, "unterminated quoted key"),
        ("a]", 2, "unexpected ']'"),
        (#"a"b""#, 2, "unexpected quote"),
        ("a[0]b", 5, "unexpected 'b'"),
        (#""\x""#, 1, "invalid quoted key"),
        ("a. .b", 3, "a key with spaces must be quoted"),
    ])
    func rejectsWithTheColumn(text: String, column: Int, reason: String) {
        do {
            _ = try JSONPath(parsing: text)
            Issue.record("\(text) should not parse")
        } catch {
            #expect(error.column == column, "\(text): \(error)")
            #expect(error.reason.contains(reason), "\(text): \(error)")
        }
    }

    @Test func descriptionIsCanonicalAndReadsBack() throws {
        let path = JSONPath([.key("results"), .index(0), .key("a.b"), .key("0"), .key(""), .key("watch/providers"), .key("x y"), .key("-1"), .key("q\"")])
        #expect(path.description == #"results[0]["a.b"]["0"][""].watch/providers["x y"]["-1"]["q\""]"#)
        #expect(try JSONPath(parsing: path.description) == path)
        #expect(JSONPath.root.description == ".")
        #expect(try JSONPath(parsing: "[2].id").description == "[2].id")
        #expect(try JSONPath(parsing: "results.0").description == "results.0")
    }
}

@Suite struct JSONPathLookupTests {
    let document: JSONValue = [
        "results": [
            ["name": "London French Meetup", "topics": [["name": "French"], ["name": "Language Exchange"], ["name": "Francophone"]]],
        ],
        "a.b": ["c": true],
        "byNumber": ["0": "zero", "10": "ten"],
        "empty": [],
        "meta": ["count": 1],
    ]

    @Test(arguments: [
        ("results.0.topics.1.name", JSONValue.string("Language Exchange")),
        ("results[0].topics[-1].name", "Francophone"),
        ("results.-1.topics.-3.name", "French"),
        (#"["a.b"].c"#, true),
        ("'a.b'.c", true),
        ("byNumber.0", "zero"),
        (#"byNumber["10"]"#, "ten"),
        ("meta.count", 1),
    ])
    func resolves(text: String, expected: JSONValue) throws {
        #expect(try JSONPath(parsing: text).resolve(in: document) == expected)
    }

    @Test func normalizesNegativeAndBareIndices() throws {
        #expect(try JSONPath(parsing: "results.-1.topics.-1").normalized(in: document).description == "results[0].topics[2]")
        #expect(try JSONPath(parsing: "byNumber.0").normalized(in: document).description == #"byNumber["0"]"#)
    }

    @Test(arguments: [
        ("results.0.topcs", "results.0.topcs", #"no key "topcs" in results.0; keys there: name, topics"#),
        ("resuls.0", "resuls", #"no key "resuls" in the top level; keys there: results, "a.b", byNumber, empty, meta"#),
        ("results.0.topics.3", "results.0.topics.3", "index 3 is out of range in results.0.topics; it has 3 elements: indices 0...2 (or -3...-1)"),
        ("results[0].topics[-4]", "results[0].topics[-4]", "index -4 is out of range in results[0].topics; it has 3 elements: indices 0...2 (or -3...-1)"),
        ("empty[0]", "empty[0]", "index 0 is out of range in empty; it is empty"),
        ("results.first", "results.first", "results is an array, not an object, so the key \"first\" does not apply; it has 1 element: indices 0...0 (or -1...-1)"),
        ("meta[0]", "meta[0]", "meta is an object, not an array, so [0] does not apply; keys there: count"),
        ("meta.count.x", "meta.count.x", "meta.count is a number, which has no keys or elements"),
        (#"byNumber[0]"#, "byNumber[0]", #"byNumber is an object, not an array, so [0] does not apply; keys there: "0", "10""#),
    ])
    func namesTheFirstFailingSegmentAndWhatIsThere(text: String, failedAt: String, reason: String) throws {
        let path = try JSONPath(parsing: text)
        do {
            _ = try path.resolve(in: document)
            Issue.record("\(text) should not resolve")
        } catch {
            #expect(error.failedAt.description == failedAt)
            #expect(error.reason == reason)
        }
    }

    @Test func longKeyListsAreCut() throws {
        let wide = JSONValue.object(JSONObject((0..<25).map { JSONObject.Member("k\($0)", .null) }))
        let path = try JSONPath(parsing: "nope")
        do {
            _ = try path.resolve(in: wide)
            Issue.record("should fail")
        } catch {
            #expect(error.reason.hasSuffix("k18, k19 and 5 more"))
        }
    }
}
