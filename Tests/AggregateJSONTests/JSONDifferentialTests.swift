import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// Writes random JSON text: nested containers, escapes, non-ASCII, surrogate pairs, big and odd numbers, whitespace.
struct CorpusWriter {
    var random: SeededGenerator
    let pieces = ["a", "é", "日本", "🎉", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83c\\udf89", "\\t", " ", "x.y", "[0]", "\u{2028}"]
    let numbers = ["0", "-0", "1", "-17", "4.50", "1e3", "-2.5E-7", "1097002747000", "1334567890123456789012", "0.1", "9007199254740993"]
    let spaces = ["", " ", "\n", "\t", "\r\n  "]

    mutating func value(depth: Int) -> String {
        let pick = Int.random(in: 0..<(depth > 5 ? 5 : 8), using: &random)
        switch pick {
        case 0: return string()
        case 1: return numbers.randomElement(using: &random)!
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3, 4: return string()
        case 5:
            let count = Int.random(in: 0..<6, using: &random)
            return "[" + (0..<count).map { _ in space() + value(depth: depth + 1) + space() }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0..<6, using: &random)
            return "{" + (0..<count).map { _ in space() + string() + space() + ":" + space() + value(depth: depth + 1) }.joined(separator: ",") + space() + "}"
        }
    }

    mutating func string() -> String {
        let count = Int.random(in: 0..<5, using: &random)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined() + "\""
    }

    mutating func space() -> String { spaces.randomElement(using: &random)! }
}

/// Compares the tree parser, the streaming reader and Foundation's JSONSerialization on a generated corpus, and
/// browse's streamed views with the ones computed from the tree.
@Suite struct JSONDifferentialTests {
    @Test func treeStreamAndFoundationAgreeOnAGeneratedCorpus() throws {
        var writer = CorpusWriter(random: SeededGenerator(state: 20_261_130))
        for _ in 0..<400 {
            let text = writer.value(depth: 0)
            let data = Data(text.utf8)
            let tree = try JSONParser().parse(data)
            // Small windows make tokens straddle refills.
            for chunk in [7, 64, 1 << 20] {
                let reader = JSONEventReader(data: data, chunkSize: chunk)
                #expect(try reader.readValue() == tree, "\(text)")
                #expect(try reader.next() == nil)
            }
            let foundation = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            #expect(same(tree, foundation), "\(text)")
        }
    }

    /// Found by the JSON fuzzer: a key longer than the read window, followed by whitespace that runs past a refill.
    @Test(arguments: [7, 16, 64])
    func keysLongerThanTheWindowReadAlikeInBothReaders(chunkSize: Int) throws {
        let key = "rr" + String(repeating: "5", count: 100) + "b"
        for text in [#"{"\#(key)":{""   "#, #"{"\#(key)"      :  {"k": 1}}"#, #"{"\#(key)"                    "#] {
            let data = Data(text.utf8)
            var treeError: JSONParseError?
            var tree: JSONValue?
            do { tree = try JSONParser().parse(data) } catch { treeError = error }
            var streamError: JSONParseError?
            var streamed: JSONValue?
            do throws(JSONParseError) {
                streamed = try JSONEventReader(data: data, chunkSize: chunkSize).readValue()
            } catch { streamError = error }
            #expect(tree == streamed, "\(text)")
            #expect(treeError?.reason == streamError?.reason && treeError?.line == streamError?.line && treeError?.column == streamError?.column, "\(text)")
        }
    }

    /// Found by the JSON fuzzer: after a UTF-8 byte order mark, columns on the first line count from after the mark
    /// in both readers (the stream counted the mark's three bytes).
    @Test(arguments: ["\u{FEFF}\u{10},", "\u{FEFF}  x", "\u{FEFF}[1,]", "\u{FEFF}[1,\n2,]"])
    func errorsAfterAByteOrderMarkHaveTheSameColumnInBothReaders(text: String) throws {
        let data = Data(text.utf8)
        var treeError: JSONParseError?
        do { _ = try JSONParser().parse(data) } catch { treeError = error }
        for chunkSize in [2, 7, 64] {
            var streamError: JSONParseError?
            do throws(JSONParseError) {
                _ = try JSONEventReader(data: data, chunkSize: chunkSize).readValue()
            } catch { streamError = error }
            #expect(treeError != nil)
            #expect(treeError?.reason == streamError?.reason, "\(text)")
            #expect(treeError?.line == streamError?.line && treeError?.column == streamError?.column, "\(text) chunk \(chunkSize)")
        }
        if text.hasPrefix("\u{FEFF}\u{10}") { #expect(treeError?.column == 1) }
    }

    @Test func truncatedCorpusDocumentsFailAlikeInBothReaders() throws {
        var writer = CorpusWriter(random: SeededGenerator(state: 7))
        var compared = 0
        for _ in 0..<200 {
            let text = writer.value(depth: 0)
            guard text.utf8.count > 2 else { continue }
            let cut = Data(text.utf8.prefix(text.utf8.count * 2 / 3))
            guard String(data: cut, encoding: .utf8) != nil else { continue }
            var treeError: JSONParseError?
            do { _ = try JSONParser().parse(cut) } catch { treeError = error }
            var streamError: JSONParseError?
            do throws(JSONParseError) {
                let reader = JSONEventReader(data: cut, chunkSize: 16)
                while try reader.nextToken() != nil {}
            } catch { streamError = error }
            #expect(treeError == streamError, "\(String(decoding: cut, as: UTF8.self))")
            compared += 1
        }
        #expect(compared > 100)
    }

    @Test func streamedBrowseViewsMatchTheTreeOnes() throws {
        let folder = TestPaths.testTarget("AggregateJSONTests").appendingPathComponent("Fixtures/browse")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 8)
        var writer = CorpusWriter(random: SeededGenerator(state: 99))
        let generated = (0..<100).map { _ in Data(writer.value(depth: 0).utf8) }
        for data in try names.map({ try Data(contentsOf: folder.appendingPathComponent($0)) }) + generated {
            let tree = try JSONParser().parse(data)
            for options in [JSONOutline.Options(), .init(depth: 3, maxChildren: 2, width: 40), .init(depth: 1, width: nil)] {
                #expect(try JSONOutline.lines(from: JSONEventReader(data: data, chunkSize: 32), options: options) == JSONOutline.lines(tree, options: options))
            }
            var streamed: [UInt8] = []
            try JSONOutline.paths(from: JSONEventReader(data: data, chunkSize: 32), batchBytes: 100) { streamed += $0 }
            let expected = JSONOutline.paths(tree).map { $0 + "\n" }.joined()
            #expect(String(decoding: streamed, as: UTF8.self) == expected)
            // Every container's path, found by streaming, leads to the same node as in the tree.
            var containers: [JSONPath] = []
            collect(tree, .root, into: &containers)
            for path in containers.prefix(30) {
                let reader = JSONEventReader(data: data, chunkSize: 32)
                let found = try path.seek(in: reader)
                #expect(try found.get() == path.normalized(in: tree))
                #expect(try reader.readValue() == path.resolve(in: tree))
            }
        }
    }

    @Test func streamedLookupErrorsMatchTheTreeOnes() throws {
        let data = Data(#"{"results": [{"name": "a", "topics": [1, 2, 3]}], "meta": {"count": 1}, "byNumber": {"0": true}, "s": "x"}"#.utf8)
        let tree = try JSONParser().parse(data)
        for text in ["results.0.topcs", "resuls", "results.0.topics.3", "results.first", "meta[0]", "meta.count.x", "byNumber[0]", "s.t", "results[1]"] {
            let path = try JSONPath(parsing: text)
            var expected: JSONPathLookupError?
            do { _ = try path.resolve(in: tree) } catch { expected = error }
            let streamed = try path.seek(in: JSONEventReader(data: data))
            guard case .failure(let error) = streamed else {
                Issue.record("\(text) should fail")
                continue
            }
            #expect(error == expected)
        }
    }

    private func collect(_ value: JSONValue, _ path: JSONPath, into paths: inout [JSONPath]) {
        switch value {
        case .array(let elements):
            paths.append(path)
            for (index, element) in elements.enumerated() { collect(element, path.appending(.index(index)), into: &paths) }
        case .object(let object):
            paths.append(path)
            // A repeated key is left out: a stream leads into its first member, the tree into its last.
            let counts = Dictionary(object.keys.map { ($0, 1) }, uniquingKeysWith: +)
            for member in object.members where counts[member.key] == 1 {
                collect(member.value, path.appending(.key(member.key)), into: &paths)
            }
        default:
            paths.append(path)
        }
    }

    /// Whether our value and Foundation's say the same thing (numbers compared as doubles; keys as the last wins).
    private func same(_ value: JSONValue, _ foundation: Any) -> Bool {
        switch value {
        case .null: return foundation is NSNull
        case .bool(let flag):
            return (foundation as? Bool) == flag
        case .number(let text):
            guard let number = foundation as? NSNumber else { return false }
            return Double(text) == number.doubleValue || Decimal(string: text) == number.decimalValue
        case .string(let text): return (foundation as? String) == text
        case .array(let elements):
            guard let others = foundation as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { same($0, $1) }
        case .object(let object):
            guard let others = foundation as? [String: Any], others.count == Set(object.keys).count else { return false }
            return object.keys.allSatisfy { key in others[key].map { same(object[key]!, $0) } ?? false }
        }
    }
}
