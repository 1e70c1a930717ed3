import AggregateJSON
import AggregateTestSupport
import AggregateYAML
import Foundation
import Testing

/// Fuzz-style: seeded mutations of real documents (the shared OpenAPI documents when present, and every vendored
/// test-suite input) must each end in a value or a `YAMLError` with a line and column inside the input, never a
/// crash or a hang. Whatever reads must write as JSON.
@Suite struct YAMLMutationTests {
    /// Pieces that steer the reader into its corners: indicators, quotes, escapes, tabs, markers, deep nesting.
    static let pieces: [[UInt8]] = [
        "\t", ": ", "- ", "? ", "[", "]", "{", "}", ",", "\"", "'", "\\", "\\u", "&a ", "*a", "!!str ", "!x ", "|", ">-",
        "|2+", "#", "\n", "\n---\n", "\n...\n", "%YAML 1.2\n", "<<: ", "\u{FEFF}", "é", "\r", "0x", ".inf", "  ", "~",
    ].map { Array($0.utf8) }

    static var seeds: [[UInt8]] {
        var inputs: [[UInt8]] = []
        for document in YAMLRealDocumentTests.documents {
            // A window of each document keeps a debug run short; the windows start inside deep structure.
            guard let bytes = FileManager.default.contents(atPath: document.path).map(Array.init) else { continue }
            for start in stride(from: 0, to: bytes.count, by: max(bytes.count / 6, 1)) {
                inputs.append(Array(bytes[start..<min(start + 3000, bytes.count)]))
            }
        }
        let suite = YAMLTestSuiteTests.folder
        for id in ((try? FileManager.default.contentsOfDirectory(atPath: suite.path)) ?? []).sorted() {
            if let bytes = FileManager.default.contents(atPath: suite.appendingPathComponent(id).appendingPathComponent("in.yaml").path) {
                inputs.append(Array(bytes))
            }
        }
        return inputs
    }

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes.insert(contentsOf: pieces.randomElement(using: &random) ?? [], at: position)
            case 1 where position < bytes.count: bytes.remove(at: position)
            case 2 where position < bytes.count: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 3: bytes = Array(bytes[..<position])
            case 4 where position < bytes.count:
                let end = min(bytes.count, position + Int.random(in: 1...80, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default: bytes.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: Int.random(in: 1...6, using: &random)), at: position)
            }
        }
        return bytes
    }

    @Test func mutationsEndInAValueOrAnError() {
        var random = SeededGenerator(state: 23)
        var read = 0
        var refused = 0
        for seed in Self.seeds {
            for _ in 0..<40 {
                let input = Self.mutate(seed, using: &random)
                // YAML breaks lines at \n, \r\n and a lone \r.
                let lines = 1 + input.indices.filter { input[$0] == 0x0A || (input[$0] == 0x0D && ($0 + 1 == input.count || input[$0 + 1] != 0x0A)) }.count
                do throws(YAMLError) {
                    let value = try YAMLParser.parse(input)
                    #expect((try? JSONParser().parse(JSONWriter().data(value))) == value)
                    read += 1
                } catch {
                    refused += 1
                    #expect(error.line >= 1 && error.line <= lines + 1 && error.column >= 1, "\(error)")
                    #expect(!error.reason.isEmpty && !error.reason.contains("\n"))
                }
            }
        }
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
    }
}
