import AggregateCore
import AggregateJSON
import Foundation
import Testing

@Suite struct JSONParserTests {
    @Test func keepsKeyOrderAndNumberText() throws {
        let value = try JSONParser().parse(#"{"b": 1, "a": 1097002747000, "big": 1334567890123456789012, "f": 4.50}"#)
        #expect(value.object?.keys == ["b", "a", "big", "f"])
        #expect(value["a"]?.int == 1_097_002_747_000)
        #expect(value["big"]?.numberText == "1334567890123456789012")
        #expect(value["f"]?.numberText == "4.50")
        #expect(JSONWriter().string(value) == #"{"b":1,"a":1097002747000,"big":1334567890123456789012,"f":4.50}"#)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser().parse(#"["\u00e9\n\t\"\\\/", "\ud83c\udf89 party", "\u003cb\u003e"]"#)
        #expect(value[0]?.string == "é\n\t\"\\/")
        #expect(value[1]?.string == "🎉 party")
        #expect(value[2]?.string == "<b>")
    }

    @Test func skipsByteOrderMark() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data("[1]".utf8)
        #expect(try JSONParser().parse(data) == .array([.int(1)]))
    }

    @Test(arguments: [
        ("", "empty input", 1, 1),
        ("{\"a\": 1,}", "expected a quoted key", 1, 9),
        ("[1, 2\n, 3", "unexpected end of input inside an array", 2, 4),
        ("{\"a\" 1}", "expected ':' after a key", 1, 6),
        ("[01]", "invalid number (leading zero)", 1, 3),
        ("\"abc", "unterminated string", 1, 5),
        ("[1] x", "unexpected text after the JSON value", 1, 5),
        ("\"\\u12", "incomplete \\u escape", 1, 4),
        ("[\"\\q\"]", "invalid escape \\'q'", 1, 4),
        ("nul", "invalid literal, expected null", 1, 1),
    ])
    func reportsTheFirstErrorWithLineAndColumn(input: String, reason: String, line: Int, column: Int) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(input) }
        do {
            _ = try JSONParser().parse(input)
        } catch {
            #expect(error.reason == reason)
            #expect(error.line == line)
            #expect(error.column == column)
        }
    }

    @Test func rejectsInvalidUTF8() {
        let data = Data([0x22, 0xFF, 0xFE, 0x22])
        #expect(throws: JSONParseError.self) { try JSONParser().parse(data) }
    }

    @Test func refusesDeepNestingWithoutCrashing() {
        let depth = 100_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        do {
            _ = try JSONParser().parse(text)
            Issue.record("deep nesting should be refused")
        } catch {
            #expect(error.reason == "nesting deeper than 512 levels")
        }
        #expect((try? JSONParser(maxDepth: 600).parse(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))) != nil)
    }

    @Test func prettyWriterIndentsAndEscapes() {
        let value: JSONValue = ["s": "a\"b\u{1}\n", "e": [], "o": [:], "n": .null]
        #expect(JSONWriter(pretty: true).string(value) == "{\n  \"s\": \"a\\\"b\\u0001\\n\",\n  \"e\": [],\n  \"o\": {},\n  \"n\": null\n}")
    }

    @Test func numericAccessors() throws {
        let value = try JSONParser().parse(#"{"money": "600.10", "id": 1096997366870401024, "neg": -3, "f": 2.5, "text": "x"}"#)
        #expect(value["money"]?.decimal == Decimal(string: "600.10"))
        #expect(value["id"]?.uint64 == 1_096_997_366_870_401_024)
        #expect(value["id"]?.idString == "1096997366870401024")
        #expect(value["neg"]?.int == -3)
        #expect(value["f"]?.int == nil)
        #expect(value["text"]?.decimal == nil)
        #expect(JSONValue.decimal(Decimal(string: "425.25")!).numberText == "425.25")
        #expect(JSONValue.double(4.0).numberText == "4")
    }

    @Test func membersAppendedInOrderOmitNil() {
        var members: [JSONObject.Member] = []
        members.append("a", .int(1))
        members.append("skipped", nil)
        members.append("b", .null)
        #expect(members == [JSONObject.Member("a", .int(1)), JSONObject.Member("b", .null)])
        #expect(JSONWriter().string(.object(JSONObject(members))) == #"{"a":1,"b":null}"#)
    }
}
