@testable import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// The streaming reader's fast path (``JSONEventReader`` reads tokens that lie whole in its window in one function)
/// against its reference grammar alone, and the two things the fast reader no longer does on every byte: a separate
/// UTF-8 pass (strings are checked as they are scanned) and counting newlines (counted from the input when an error
/// needs them).
@Suite struct JSONEventReaderFastPathTests {
    @Test func theFastPathGivesTheReferenceTokensAndErrorsOnACorpusAndItsMutations() {
        var writer = CorpusWriter(random: SeededGenerator(state: 20_261_206))
        var random = SeededGenerator(state: 6)
        var failures = 0
        var skips = 0
        for _ in 0..<300 {
            let text = Array(writer.value(depth: 0).utf8)
            // The document, cut short, and with one byte changed to punctuation, a letter or a byte that is not UTF-8.
            var inputs = [text, Array(text.prefix(text.count / 2))]
            if !text.isEmpty {
                var mutated = text
                mutated[Int.random(in: 0..<text.count, using: &random)] = [0x2C, 0x5D, 0x7D, 0x3A, 0x22, 0x5C, 0x61, 0xFF, 0xC3, 0x80].randomElement(using: &random) ?? 0
                inputs.append(mutated)
            }
            for input in inputs {
                for chunk in [7, 64, 1 << 20] {
                    let fast = JSONEventReader.tokenTrace(Data(input), chunkSize: chunk, fastPath: true)
                    #expect(fast == JSONEventReader.tokenTrace(Data(input), chunkSize: chunk, fastPath: false), "\(String(decoding: input, as: UTF8.self)) window \(chunk)")
                    if fast.last?.hasPrefix("error") == true { failures += 1 }
                    // Skipping containers whole (a window at a time on the fast path) ends where the reference
                    // grammar's token by token does, with the same error.
                    for tokens in [0, 1, 3, fast.count / 2] {
                        #expect(JSONEventReader.endingTrace(Data(input), chunkSize: chunk, after: tokens, fastPath: true) == JSONEventReader.endingTrace(Data(input), chunkSize: chunk, after: tokens, fastPath: false), "\(String(decoding: input, as: UTF8.self)) window \(chunk), to the end after \(tokens) tokens")
                    }
                    for depth in 1...3 {
                        let skipped = JSONEventReader.tokenTrace(Data(input), chunkSize: chunk, fastPath: true, skipDepth: depth)
                        #expect(skipped == JSONEventReader.tokenTrace(Data(input), chunkSize: chunk, fastPath: false, skipDepth: depth), "\(String(decoding: input, as: UTF8.self)) window \(chunk), skipping at depth \(depth)")
                        if skipped.contains(where: { $0.hasPrefix("skipped") }) { skips += 1 }
                    }
                }
            }
        }
        #expect(failures > 300, "the mutations reach the error paths")
        #expect(skips > 1000, "containers are skipped")
    }

    /// Numbers of every shape, valid and not, moved across the end of a 16-byte window so that each is also cut by
    /// it: skipped as the reference grammar reads them (plain integers are skipped inline).
    @Test(arguments: ["1", "12", "0", "-3", "1.5", "2e3", "3E-2", "10.0e+1", "01", "1.", "1e", "-", "7x", "9 ", "-0", "123456789012345678901234567890"])
    func numbersAreSkippedAsTheReferenceReadsThem(number: String) {
        for shape in ["[[\(number)]]", "[{\"a\":\(number),\"b\":[\(number),\(number)]}]", "[[\(number)], 5]"] {
            // Spaces move the number across the 16-byte window's end.
            for padding in 0..<24 {
                let document = "[" + String(repeating: " ", count: padding) + shape.dropFirst()
                let data = Data(document.utf8)
                #expect(JSONEventReader.tokenTrace(data, chunkSize: 16, fastPath: true, skipDepth: 2) == JSONEventReader.tokenTrace(data, chunkSize: 16, fastPath: false, skipDepth: 2), "\(document)")
            }
        }
    }

    @Test func nestingPastTheLimitAndDeepDocumentsReadAlike() {
        for depth in [10, 511, 512, 513, 2000] {
            let data = Data((String(repeating: #"{"a":["#, count: depth) + "1" + String(repeating: "]}", count: depth)).utf8)
            #expect(JSONEventReader.tokenTrace(data, chunkSize: 1 << 20, fastPath: true) == JSONEventReader.tokenTrace(data, chunkSize: 1 << 20, fastPath: false), "depth \(depth)")
            // Skipped whole: past the container stack's first 64 levels and past the limit.
            #expect(JSONEventReader.tokenTrace(data, chunkSize: 1 << 20, fastPath: true, skipDepth: 1) == JSONEventReader.tokenTrace(data, chunkSize: 1 << 20, fastPath: false, skipDepth: 1), "depth \(depth)")
        }
    }

    @Test(arguments: [
        ([0x5B, 0x31, 0x2C, 0x20, 0xFF, 0x5D], "not valid UTF-8: byte 0xFF", 5),  // [1, <FF>]
        ([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x20, 0x31, 0x20, 0xC3], "not valid UTF-8: byte 0xC3", 9),  // {"a": 1 <C3> cut by the end
        ([0x5B, 0xC3, 0xA9, 0x5D], "unexpected character 0xC3, expected a value", 2),  // [é]: UTF-8, but not JSON
        ([0x5B, 0x22, 0x61, 0xE9, 0x22, 0x5D], "not valid UTF-8: byte 0xE9", 4),  // ["a<E9>"]
        ([0x5B, 0x22, 0xF0, 0x9F, 0x8E], "not valid UTF-8: byte 0xF0", 3),  // ["<F0 9F 8E> cut by the end
    ] as [([UInt8], String, Int)])
    func aByteThatIsNotUTF8IsNamedWhereTheReaderMeetsIt(bytes: [UInt8], reason: String, column: Int) {
        for chunk in [2, 7, 1 << 20] {
            for fastPath in [true, false] {
                var caught: JSONParseError?
                do throws(JSONParseError) {
                    let reader = JSONEventReader(data: Data(bytes), chunkSize: chunk, fastPath: fastPath)
                    while try reader.nextToken() != nil {}
                } catch { caught = error }
                #expect(caught?.reason == reason, "window \(chunk)")
                #expect(caught?.line == 1 && caught?.column == column, "window \(chunk)")
            }
        }
    }

    /// A document of many lines with an error near its end, read in small windows, so most lines were dropped
    /// before the error: from a regular file (lines counted again from the file), from a pipe (counted as dropped)
    /// and from memory, the error has the same line and column.
    @Test(arguments: [false, true])
    func errorLinesAreTheSameFromAFileAPipeAndMemory(byteOrderMark: Bool) throws {
        var text = byteOrderMark ? "\u{FEFF}" : ""
        text += "[\n" + (0..<400).map { "  {\"id\": \($0), \"name\": \"row \($0) café\"}" }.joined(separator: ",\n") + ",\n  {\"id\": 400 \"x\": 1}\n]\n"
        let data = Data(text.utf8)
        #expect(data.count < 60_000, "the pipe takes it whole")
        func error(from reader: JSONEventReader) -> JSONParseError? {
            do throws(JSONParseError) {
                while try reader.nextToken() != nil {}
                return nil
            } catch { return error }
        }
        let expected = try #require(error(from: JSONEventReader(data: data, chunkSize: 64)))
        #expect(expected.line == 402 && expected.reason == "expected ',' or '}' after an object member")
        let tree = treeError(data)
        #expect(tree?.line == expected.line && tree?.column == expected.column && tree?.reason == expected.reason)

        // A regular file, read from an offset past a prefix: lines count from where the reader started.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-lines-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data("prefix line\n".utf8) + data).write(to: file)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: 12)
        #expect(error(from: JSONEventReader(handle: handle, chunkSize: 64)) == expected)
        // The same with the first bytes already read and given as a prefix (as the archive reader does after its `=`),
        try handle.seek(toOffset: 12 + 30)
        #expect(error(from: JSONEventReader(handle: handle, prefix: data.prefix(30), chunkSize: 64)) == expected)
        // and with a prefix that is not what the file holds before the handle's offset (its 30 newlines there must
        // not be counted).
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-lines-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: other) }
        try (Data("prefix line\n".utf8) + Data(repeating: 0x0A, count: 30) + data.dropFirst(30)).write(to: other)
        let otherHandle = try FileHandle(forReadingFrom: other)
        defer { try? otherHandle.close() }
        try otherHandle.seek(toOffset: 12 + 30)
        #expect(error(from: JSONEventReader(handle: otherHandle, prefix: data.prefix(30), chunkSize: 64)) == expected)

        let pipe = Pipe()
        pipe.fileHandleForWriting.write(data)
        try pipe.fileHandleForWriting.close()
        #expect(error(from: JSONEventReader(handle: pipe.fileHandleForReading, chunkSize: 64)) == expected)
    }

    private func treeError(_ data: Data) -> JSONParseError? {
        do throws(JSONParseError) {
            _ = try JSONParser().parse(data)
            return nil
        } catch { return error }
    }
}
