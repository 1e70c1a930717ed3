import AggregateCore
import AggregateJSON
import AggregateText
import Foundation
import Testing

/// The byte-level shortcuts in PlainText and JSONWriter must give what the general code gives.
@Suite struct FastPathTests {
    static let pieces = ["a", "word", " ", "  ", "\t", "\n", "\r\n", "\u{00A0}", "\u{2003}", "\u{3000}", "\u{2028}", "—", "“x”", "é", "日本",
                         "🎉", "\"", "\\", "\u{1}", "\u{85}", "\u{205F}", "\u{1680}", "\u{202F}", "…", "\u{7F}"]

    @Test func collapsingWhitespaceMatchesSplittingOnEveryWhitespaceCharacter() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{00A0}" })
            let expected = words.isEmpty ? nil : words.joined(separator: " ")
            #expect(PlainText.collapseWhitespace(text) == expected, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func quotingMatchesEscapingScalarByScalar() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            let quoted = JSONWriter.quoted(text)
            #expect(try JSONParser().parse(quoted) == .string(text))
            let needsEscape = text.unicodeScalars.contains { $0.value < 0x20 || $0 == "\"" || $0 == "\\" || $0 == "\u{2028}" || $0 == "\u{2029}" }
            #expect((quoted == "\"\(text)\"") == !needsEscape, "\(quoted)")
        }
    }
}
