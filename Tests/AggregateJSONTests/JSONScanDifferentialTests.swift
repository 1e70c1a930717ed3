@testable import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// The word-at-a-time scans (``JSONScan``) against the byte-at-a-time reference (``JSONSimpleScan``) and against
/// `JSONSerialization`: the same outcome for every input at every start offset, so that strings ending, escapes and
/// bad bytes land at every position of an eight-byte word and on both sides of the reader's window boundary.
@Suite struct JSONScanDifferentialTests {
    /// Byte pieces that exercise every branch: plain ASCII, every escape (good and bad), every UTF-8 length, invalid
    /// and overlong UTF-8, encoded surrogates, code points past U+10FFFF, control bytes, quotes and whitespace.
    static let pieces: [[UInt8]] = {
        var pieces: [[UInt8]] = [
            Array("a".utf8), Array("plain text".utf8), Array("0123456789abcdef".utf8), Array("é".utf8), Array("日本".utf8),
            Array("🎉".utf8), Array("\u{2028}".utf8), [0x7F], [0x22], [0x5C], [0x20], [0x0A], [0x0D], [0x09],
            Array(#"\n"#.utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\/"#.utf8), Array(#"\b\f\r\t"#.utf8),
            Array(#"\u00e9"#.utf8), Array(#"\uD83C\uDF89"#.utf8), Array(#"\uDEAD"#.utf8), Array(#"\u12G4"#.utf8),
            Array(#"\u12"#.utf8), Array(#"\x"#.utf8), Array(#"\"#.utf8), Array(#"\ "#.utf8),
            [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0xA0], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF5, 0x80],
            [0xFE], [0xFF], [0xC3, 0x28], [0xE2, 0x82], [0xF0, 0x9F, 0x8E],
        ]
        pieces += (0..<0x20).map { [UInt8($0)] }
        return pieces
    }()

    /// `count` inputs of random pieces, each at most a few words long.
    static func inputs(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(state: seed)
        return (0..<count).map { _ in
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<10, using: &random) {
                // Mostly harmless pieces, so that most strings get far before something stops them.
                let piece = Int.random(in: 0..<4, using: &random) == 0 ? pieces.randomElement(using: &random) : pieces[Int.random(in: 0..<4, using: &random)]
                bytes += piece ?? []
            }
            return bytes
        }
    }

    @Test func stringScansAgreeAtEveryOffset() {
        for input in Self.inputs(count: 3000, seed: 24) {
            for padding in 0..<8 {
                let bytes = [UInt8](repeating: 0x20, count: padding) + [0x22] + input + [0x22] + Array(" ,1".utf8)
                bytes.withUnsafeBytes { buffer in
                    for start in 0..<buffer.count {
                        // The streaming reader checks UTF-8 as it scans strings; the tree parser does not.
                        for final in [true, false] { for checkUTF8 in [true, false] {
                            var fast = JSONScan.StringShape()
                            var simple = JSONScan.StringShape()
                            let fastOutcome = JSONScan.string(buffer, from: start, final: final, shape: &fast, checkUTF8: checkUTF8)
                            let simpleOutcome = JSONSimpleScan.string(buffer, from: start, final: final, shape: &simple, checkUTF8: checkUTF8)
                            #expect(fastOutcome == simpleOutcome, "string at \(start) of \(bytes) (UTF-8 checked: \(checkUTF8))")
                            if case .complete = simpleOutcome {
                                #expect(fast.escaped == simple.escaped && fast.nonASCII == simple.nonASCII, "shape at \(start) of \(bytes)")
                            }
                        } }
                    }
                }
            }
        }
    }

    /// Every lead byte with every second byte, the third and fourth from each edge of the continuation range, and
    /// every cut: the range checks of ``JSONScan/sequence(_:at:)`` judge as working out the scalar does.
    @Test func sequenceJudgementsAgreeWithWorkingOutTheScalar() {
        let edges: [UInt8] = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        var judged = 0
        var mismatches: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0)...0xFF {
                for third in edges {
                    for fourth in edges {
                        let bytes = [lead, second, third, fourth]
                        bytes.withUnsafeBytes { whole in
                            for length in 1...4 {
                                let window = UnsafeRawBufferPointer(rebasing: whole[0..<length])
                                if JSONScan.sequence(window, at: 0) != JSONSimpleScan.sequence(window, at: 0) { mismatches.append(Array(window)) }
                                judged += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(judged == 128 * 256 * 100 * 4)
    }

    @Test func utf8WhitespaceAndNewlineScansAgreeAtEveryOffset() {
        for input in Self.inputs(count: 3000, seed: 2024) {
            input.withUnsafeBytes { buffer in
                for start in 0...buffer.count {
                    for final in [true, false] {
                        let fast = JSONScan.checkUTF8(buffer, from: start, final: final)
                        let simple = JSONSimpleScan.checkUTF8(buffer, from: start, final: final)
                        #expect(fast.invalid == simple.invalid && fast.checkedEnd == simple.checkedEnd, "UTF-8 from \(start) of \(input)")
                    }
                    #expect(JSONScan.skipWhitespace(buffer, start) == JSONSimpleScan.skipWhitespace(buffer, start), "whitespace from \(start) of \(input)")
                    let prefix = UnsafeRawBufferPointer(rebasing: buffer[0..<start])
                    let fast = JSONScan.Words.newlines(prefix)
                    let simple = JSONSimpleScan.newlines(prefix)
                    #expect(fast.count == simple.count && fast.lineStart == simple.lineStart, "newlines before \(start) of \(input)")
                }
            }
        }
    }

    /// Long runs: the 32-byte ASCII loop, whitespace runs of pretty-printed JSON, and one odd byte at every offset.
    @Test func longRunsStopAtTheFirstOddByteWherever() {
        for odd: [UInt8] in [[0x22], [0x5C], [0x1F], [0x00], [0xC3, 0xA9], [0x80], [0x0A], [0x41]] {
            for offset in 0..<80 {
                let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: offset) + odd + [UInt8](repeating: UInt8(ascii: "y"), count: 70) + [0x22]
                let blanks = [UInt8](repeating: 0x20, count: offset) + [0x0A, 0x09, 0x0D] + odd + [UInt8](repeating: 0x20, count: 40)
                for (buffer, name) in [(bytes, "text"), (blanks, "blanks")] {
                    buffer.withUnsafeBytes { raw in
                        #expect(JSONScan.checkUTF8(raw, from: 0, final: true) == JSONSimpleScan.checkUTF8(raw, from: 0, final: true), "\(name) \(odd) at \(offset)")
                        #expect(JSONScan.skipWhitespace(raw, 0) == JSONSimpleScan.skipWhitespace(raw, 0), "\(name) \(odd) at \(offset)")
                        #expect(JSONScan.Words.skipPlain(raw, from: 0) == JSONSimpleScan.firstSpecial(raw, from: 0), "\(name) \(odd) at \(offset)")
                    }
                }
            }
        }
    }

    /// The escape search of ``JSONWriter`` a word at a time against the byte-at-a-time one, from every offset (so
    /// each byte lands at every position of a word), and the quoted text against a byte-at-a-time writer.
    @Test func escapeSearchAndQuotingAgreeAtEveryOffset() {
        var inputs = Self.inputs(count: 3000, seed: 4242)
        for odd: [UInt8] in [[0x22], [0x5C], [0x1F], [0x00], [0x7F], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xA9], [0xE2, 0x82, 0xAC], [0xC3, 0xA9]] {
            for offset in 0..<20 {
                inputs.append([UInt8](repeating: UInt8(ascii: "x"), count: offset) + odd + [UInt8](repeating: UInt8(ascii: "y"), count: 20))
            }
        }
        for input in inputs {
            input.withUnsafeBytes { raw in
                for start in 0...raw.count {
                    #expect(JSONScan.Words.skipUnescaped(raw, from: start) == JSONSimpleScan.firstToEscape(raw, from: start), "escape search from \(start) of \(input)")
                }
            }
            var fast: [UInt8] = []
            input.withUnsafeBufferPointer { JSONWriter.appendQuoted(utf8: $0, to: &fast) }
            #expect(fast == JSONSimpleScan.quoted(input), "quoted \(input)")
        }
    }

    /// `--paths` writes strings without escapes (non-ASCII, U+2028 and U+2029 among them) from their bytes: in
    /// windows that cut them anywhere, the lines equal the tree's.
    @Test func pathsOfUnescapedTextEqualTheTreeInEveryWindow() throws {
        let texts = ["café naïve", "日本語 🎉", "line\u{2028}sep\u{2029}para", "mixed é \\n \\\" 日", "\u{2028}", "plain"]
        for text in texts {
            for padding in 0..<12 {
                let document = "{\"pad\": \"" + String(repeating: "p", count: padding) + "\", \"k\": [\"" + text + "\", {\"é\": \"" + text + "\"}]}"
                let data = Data(document.utf8)
                let tree = JSONOutline.paths(try JSONParser().parse(data))
                for chunkSize in [16, 23, 64] {
                    var bytes: [UInt8] = []
                    try JSONOutline.paths(from: JSONEventReader(data: data, chunkSize: chunkSize), batchBytes: 7) { bytes += $0 }
                    #expect(String(decoding: bytes, as: UTF8.self) == tree.map { $0 + "\n" }.joined(), "\(document) in windows of \(chunkSize)")
                }
            }
        }
    }

    /// Documents whose strings cross the reader's window boundary at every offset decode as `JSONSerialization`
    /// decodes them, and a mistake after many lines is reported at the tree parser's line and column.
    @Test func stringsAcrossTheWindowDecodeAsFoundationDoes() throws {
        let texts = [#"plain ASCII text that is long enough"#, #"caf\u00e9 \"quoted\" \\ back \/ slash \n\t end"#,
                     "日本語 and 🎉 emoji with é", #"pair \ud83c\udf89 and more"#, "mixed \u{2028} é \\n 日"]
        for text in texts {
            for padding in 0..<40 {
                let document = "[\"" + String(repeating: "p", count: padding) + "\", \"" + text + "\"]"
                let data = Data(document.utf8)
                let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
                for chunkSize in [16, 23, 64] {
                    let reader = JSONEventReader(data: data, chunkSize: chunkSize)
                    let value = try reader.readValue()
                    #expect(value == .array(expected.map(JSONValue.string)), "\(document) in windows of \(chunkSize)")
                }
            }
        }
        for lines in [1, 7, 40] {
            for bad in [#""\q""#, "\"a\u{01}\"", "tru", "[1,]", "\"x\"\"y\""] {
                let document = String(repeating: "[1,\n  \"some text\",\n", count: lines) + "  " + bad
                let data = Data(document.utf8)
                var treeError: JSONParseError?
                do throws(JSONParseError) { _ = try JSONParser().parse(data) } catch { treeError = error }
                var streamError: JSONParseError?
                do throws(JSONParseError) {
                    let reader = JSONEventReader(data: data, chunkSize: 16)
                    while try reader.nextToken() != nil {}
                } catch { streamError = error }
                let tree = try #require(treeError)
                let stream = try #require(streamError)
                #expect(stream.reason == tree.reason && stream.line == tree.line && stream.column == tree.column, "\(bad) after \(lines) lines")
            }
        }
    }
}
