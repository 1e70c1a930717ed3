import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// Every path prints as text that reads back as the same path, whatever its keys hold: combining and prepended
/// marks, joiners, quotes, backslashes, dots, brackets and digits included.
@Suite struct JSONPathRoundTripTests {
    /// Scalars that break grapheme-based readers or the syntax itself.
    static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", "7", "-", "_", "$", ".", "[", "]", "\"", "'", "\\", " ", "/", ":",
        "\u{0301}", "\u{0308}", "\u{070F}", "\u{0600}", "\u{200D}", "\u{FE0F}", "\u{1F600}", "\u{0915}", "\u{094D}",
        "\u{1100}", "\u{1161}", "\n", "\u{0000}", "é",
    ]

    @Test func printedPathsReadBackAsTheSamePath() throws {
        var generator = SeededGenerator(state: 14)
        for _ in 0..<3000 {
            var segments: [JSONPath.Segment] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    segments.append(.index(Int.random(in: -50...50, using: &generator)))
                } else {
                    var key = ""
                    for _ in 0..<Int.random(in: 0...5, using: &generator) {
                        key.unicodeScalars.append(Self.alphabet.randomElement(using: &generator)!)
                    }
                    segments.append(.key(key))
                }
            }
            let path = JSONPath(segments)
            let text = path.description
            let read = try JSONPath(parsing: text)
            #expect(read == path, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("the issue's keys: a leading combining mark and a prepended mark", arguments: ["\u{0301}x", "\u{070F}", "\u{0600}1", "a\u{0301}"])
    func markedKeys(_ key: String) throws {
        let path = JSONPath([.key(key), .index(0)])
        #expect(try JSONPath(parsing: path.description) == path)
        let document = try JSONParser().parse(JSONWriter().string([key: [1]]))
        #expect(try JSONPath(parsing: path.description).resolve(in: document) == 1)
    }
}
