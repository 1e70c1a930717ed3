import AggregateCore
import AggregateTestSupport
import AggregateText
import Foundation
import Testing

@Suite struct PlainTextTests {
    @Test func stripsTagsDecodesEntitiesAndCollapsesWhitespace() {
        let html = "<p>Meet <b>locals</b>&nbsp;&amp; friends.</p>\n<p>Ask&#39;s &lt;code&gt; <a href=\"x\">here</a>.</p><br />"
        #expect(PlainText.fromHTML(html) == "Meet locals & friends. Ask's <code> here.")
    }

    @Test func blockTagsSeparateWords() {
        #expect(PlainText.fromHTML("<ul><li>one</li><li>two</li></ul>") == "one two")
        #expect(PlainText.fromHTML("a<br/>b") == "a b")
    }

    @Test func emptyOrTagOnlyTextIsNil() {
        #expect(PlainText.fromHTML("") == nil)
        #expect(PlainText.fromHTML("<p> &nbsp; </p>") == nil)
        #expect(PlainText.fromHTML(nil) == nil)
    }

    @Test func keepsLessThanThatIsNotATag() {
        #expect(PlainText.fromHTML("1 < 2 & 3 > 2") == "1 < 2 & 3 > 2")
        #expect(PlainText.decodeEntities("&#x1F389; &unknown; &amp") == "🎉 &unknown; &amp")
    }
}

@Suite struct TextLayoutTests {
    @Test func countsWideCharactersAsTwoColumns() {
        #expect(TextLayout.width("abc") == 3)
        #expect(TextLayout.width("東京") == 4)
        #expect(TextLayout.width("☕🎉") == 4)
        #expect(TextLayout.width("e\u{301}") == 1)
    }

    @Test func truncatesToColumnsWithAnEllipsis() {
        #expect(TextLayout.truncate("hello world", to: 8) == "hello w…")
        #expect(TextLayout.truncate("hello", to: 8) == "hello")
        #expect(TextLayout.truncate("東京東京東京", to: 7) == "東京東…")
        #expect(TextLayout.width(TextLayout.truncate("東京東京東京", to: 7)) <= 7)
        #expect(TextLayout.truncate("line\nbreak", to: 20) == "line break")
    }

    /// Truncation measures only until the text is too wide; it must cut where measuring the whole text did.
    @Test func truncationThatStopsEarlyCutsWhereMeasuringEverythingDid() {
        func measuringEverything(_ text: String, _ columns: Int) -> String {
            let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            guard TextLayout.width(flat) > columns else { return flat }
            guard columns > 1 else { return columns == 1 ? "…" : "" }
            var result = ""
            var used = 0
            for character in flat {
                let characterWidth = TextLayout.width(of: character)
                if used + characterWidth > columns - 1 { break }
                result.append(character)
                used += characterWidth
            }
            while result.last == " " { result.removeLast() }
            return result + "…"
        }
        let pieces = [
            "a", "word ", " ", "東", "🎉", "e\u{301}", "\u{301}", "\n", "\r\n", "\n\n", "\u{7}", "☕", "é", "  ", "\u{200D}", "🇫", "🇷",
            "\u{600}", "\u{200B}",
        ]
        var random = SeededGenerator(state: 1206)
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0..<14, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            for columns in -1...12 {
                #expect(TextLayout.truncate(text, to: columns) == measuringEverything(text, columns), "\(text.debugDescription) to \(columns)")
            }
        }
        // Texts longer than the prefix that truncation measures first (twice the columns and 64 characters), with
        // zero-width and joining characters and line breaks around the prefix's end.
        // Half the pieces of width zero (a control character, a lone combining mark), so that measuring often
        // reaches the prefix's end before the columns are used up.
        let zeroHeavy = pieces + Array(repeating: "\u{7}", count: 12) + Array(repeating: "\u{301}", count: 8)
        for _ in 0..<600 {
            let text = (0..<Int.random(in: 40..<200, using: &random)).map { _ in zeroHeavy.randomElement(using: &random) ?? "" }.joined()
            for columns in [0, 1, 2, 5, 20, 40] {
                #expect(TextLayout.truncate(text, to: columns) == measuringEverything(text, columns), "\(text.debugDescription) to \(columns)")
            }
        }
        // Only zero-width characters after the prefix: measuring must go on past it, to the whole text.
        let zeroWidth = String(repeating: "a", count: 3) + String(repeating: "\u{7}", count: 300) + "wide text after it"
        #expect(TextLayout.truncate(zeroWidth, to: 5) == measuringEverything(zeroWidth, 5))
    }

    @Test func wrapsAtWordsAndSplitsLongWords() {
        #expect(TextLayout.wrap("the quick brown fox jumps", width: 10) == ["the quick", "brown fox", "jumps"])
        #expect(TextLayout.wrap("abcdefghijklmnop", width: 10) == ["abcdefghij", "klmnop"])
        #expect(TextLayout.wrap("a b", width: 20, indent: "  ") == ["  a b"])
    }
}

@Suite struct ISO8601Tests {
    @Test func parsesOffsetsFractionsAndPlainDates() {
        #expect(ISO8601.date(from: "2019-09-21T09:00:00+01:00").map(ISO8601.string) == "2019-09-21T08:00:00Z")
        #expect(ISO8601.date(from: "2020-06-25T06:14:19.000Z").map(ISO8601.string) == "2020-06-25T06:14:19Z")
        #expect(ISO8601.date(from: "2012-07-03").map(ISO8601.string) == "2012-07-03T00:00:00Z")
        #expect(ISO8601.date(from: "") == nil)
        #expect(ISO8601.date(from: "None") == nil)
    }
}
