import AggregateCore
import AggregateJSON
import Foundation
import Testing

/// Accept/reject cases in the manner of JSONTestSuite's `test_parsing` (y_ must parse, n_ must fail), written by us.
/// Both readers must agree on every case: the tree parser and the streaming reader.
@Suite struct JSONConformanceTests {
    static let accepted: [String] = [
        "[]", "{}", "[[]]", "[{}]", "0", "-0", "1E400", "-1e-400", "1.5e+3", "123e65", "[1E22]", "[0e1]", "[-0.0]",
        "\"\"", "\" \"", "true", "false", "null", " [1] ", "\n{\"a\":1}\n", "\t[\r\n1\t]",
        "[\"\\u0000\"]", "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\uD834\\uDD1E\"]", "[\"\\u00e9\"]", "[\"é\"]",
        "[\"\u{1F600}\"]", "[\"\u{7F}\"]", "{\"a\":1,\"a\":2}", "{\"\":0}", "[1,[2,[3,[4]]]]",
        "[123456789012345678901234567890]", "[-123]", "[1.0]", "{\"a\":{\"b\":{\"c\":[true,false,null]}}}",
        "[\"\\ud800\"]", "[\"\\udc00\\ud800\"]", "[\"\\ud800abc\"]", "[\"\\ud800\\u0041\"]",
    ]

    static let rejected: [String] = [
        "", " ", "[", "]", "{", "}", "[1,]", "[,1]", "[1,,2]", "{\"a\":1,}", "{,}", "{\"a\"}", "{\"a\" 1}", "{a:1}",
        "{'a':1}", "['a']", "[01]", "[-01]", "[1.]", "[.1]", "[+1]", "[1e]", "[1e+]", "[-]", "[0x1]", "[Infinity]",
        "[NaN]", "[-Infinity]", "[1 2]", "[true false]", "[tru]", "[nul]", "[fals]", "[True]", "\"abc", "[\"a\tb\"]",
        "[\"\\x41\"]", "[\"\\u12\"]", "[\"\\u12G4\"]", "[\"\\\"]", "[1] [2]", "[1]x", "{\"a\":1}}", "[]]", "[[]", "\u{0C}[]",
        "/* c */ []", "[1] // c", "{\"a\":1 \"b\":2}", "[\"\u{1}\"]", "[1;2]", "{\"a\";1}", "nulll", "[\"a\"\"b\"]",
        "-", "--1", "1..0", "1.e1", "[\u{A0}1]", "{\"a\":}", "{:1}", "[\"\\", "[\"\\u", "tRue",
    ]

    @Test(arguments: accepted)
    func acceptedByBothReaders(text: String) throws {
        let tree = try JSONParser().parse(text)
        let reader = JSONEventReader(data: Data(text.utf8))
        let streamed = try reader.readValue()
        #expect(try reader.next() == nil)
        #expect(streamed == tree)
    }

    @Test(arguments: rejected)
    func rejectedByBothReaders(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser().parse(text) }
        var tree: JSONParseError?
        do { _ = try JSONParser().parse(text) } catch { tree = error }
        #expect(throws: JSONParseError.self) {
            let reader = JSONEventReader(data: Data(text.utf8))
            while try reader.next() != nil {}
        }
        do {
            let reader = JSONEventReader(data: Data(text.utf8))
            while try reader.next() != nil {}
        } catch {
            #expect(error == tree, "the streaming reader and the tree parser must give the same error")
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        for bytes: [UInt8] in [[0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC3, 0x22, 0x5D], [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D]] {
            #expect(throws: JSONParseError.self) { try JSONParser().parse(Data(bytes)) }
        }
    }

    @Test func loneSurrogatesReadAsReplacementCharactersAndAreCounted() throws {
        var notes = JSONParseNotes()
        let value = try JSONParser().parse(Data(#"["\ud800", "ok \ud83c\udf89", "\udc00x\ud83c"]"#.utf8), notes: &notes)
        #expect(value == ["\u{FFFD}", "ok 🎉", "\u{FFFD}x\u{FFFD}"])
        #expect(notes.replacedSurrogates == 3)
        #expect(notes.summary == "3 lone UTF-16 surrogate escapes (e.g. \\ud800, from text cut inside a surrogate pair) read as U+FFFD")
        var clean = JSONParseNotes()
        _ = try JSONParser().parse(Data(#"["\u00e9"]"#.utf8), notes: &clean)
        #expect(clean.summary == nil)
    }

    @Test func largeObjectsKeepOrderAndFindEveryKeyIncludingRepeats() throws {
        var text = "{"
        for number in 0..<1000 { text += "\"k\(number)\":\(number)," }
        text += "\"k7\":\"last\"}"
        let object = try #require(try JSONParser().parse(text).object)
        #expect(object.count == 1001)
        #expect(object.keys.prefix(3) == ["k0", "k1", "k2"])
        #expect(object["k999"] == 999)
        #expect(object["k7"] == "last")
        #expect(object["missing"] == nil)
        var copy = object
        copy["k7"] = nil
        #expect(copy.count == 999)
        #expect(copy["k8"] == 8)
        copy["new"] = true
        #expect(copy.keys.last == "new")
        #expect(copy["new"] == true)
        var small = JSONObject()
        for number in 0..<40 { small["n\(number)"] = .int(number) }
        #expect(small["n0"] == 0 && small["n39"] == 39 && small.count == 40)
    }
}
