import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing
@testable import AggregateDefinitions

/// A string value is blank (and a fallback moves on to the next source) exactly when trimming its white space and
/// newlines would leave nothing, for every kind of Unicode space, mark and surrogate pair.
@Suite struct ValueRuleBlankTests {
    @Test func aStringIsBlankExactlyWhenTrimmingLeavesNothing() {
        let pieces = [
            "", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}",
            "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}", "\u{FEFF}", "\u{180E}", "a", "é", "e\u{301}", "\u{301}",
            "🎉", "東", "0",
        ]
        var random = SeededGenerator(state: 612)
        var blank = 0
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0..<5, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            let expected = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            #expect(ValueRule.isEmpty(.string(text)) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            if expected { blank += 1 }
        }
        // Both answers occur often enough to mean something.
        #expect(blank > 500 && blank < 4500)
    }
}
