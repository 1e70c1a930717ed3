@testable import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// The integer-based text of small decimals (``JSONNumberFormat/smallText(for:)``) against `NSDecimalString`, which
/// writes every other decimal: the same text for decimals made every way a result makes them (parsed from text,
/// from integers, by arithmetic, with and without trailing zeros, at every exponent around the fast path's limits).
@Suite struct JSONNumberFormatTests {
    static func reference(_ value: Decimal) -> String {
        var copy = value
        return NSDecimalString(&copy, Locale(identifier: "en_US_POSIX"))
    }

    /// Decimals of random digits and exponents, some through arithmetic so that their representation is not the
    /// compact one parsing gives.
    static func decimals(count: Int, seed: UInt64) -> [Decimal] {
        var random = SeededGenerator(state: seed)
        return (0..<count).map { index in
            let digits = UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random)
            let exponent = Int.random(in: -24...24, using: &random)
            var value = Decimal(sign: Bool.random(using: &random) ? .minus : .plus, exponent: exponent, significand: Decimal(digits))
            switch index % 4 {
            case 0: value = value * Decimal(Int.random(in: 1...1000, using: &random)) / Decimal(Int.random(in: 1...9, using: &random))
            case 1: value = Decimal(string: String(Double.random(in: -1e7...1e7, using: &random)), locale: Locale(identifier: "en_US_POSIX")) ?? value
            default: break
            }
            return value
        }
    }

    @Test func smallDecimalsAreWrittenAsNSDecimalStringWritesThem() {
        var fast = 0
        for value in Self.decimals(count: 60_000, seed: 0x5EED_DEC1) {
            let text = JSONNumberFormat.text(for: value)
            #expect(text == Self.reference(value), "decimal with exponent \(value.exponent)")
            if JSONNumberFormat.smallText(for: value) != nil { fast += 1 }
        }
        // Most of these take the fast path; were it never taken, this test would compare the reference with itself.
        #expect(fast > 30_000)
    }

    @Test func edgesOfTheFastPath() throws {
        let texts = [
            "0", "1", "-1", "7.0", "1.50", "-12.340", "0.005", "123.4500", "100", "1e18", "1e19", "1e-18", "1e-19",
            "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740991", "0.000000000000000001",
            "12345678901234567890", "1e30", "1e-30", "3.14159265358979323846", "600.00", "0.10", "10.10",
        ]
        for text in texts {
            let value = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
            #expect(JSONNumberFormat.text(for: value) == Self.reference(value), "\(text)")
        }
        for integer in [0, 1, -1, 9, 10, 258, -500, Int(Int32.max), 1 << 52, (1 << 53) - 1, 1 << 53, Int.max, Int.min] {
            #expect(JSONNumberFormat.text(for: Decimal(integer)) == Self.reference(Decimal(integer)), "\(integer)")
        }
        #expect(JSONNumberFormat.text(for: Decimal(258)) == "258")
        #expect(JSONNumberFormat.text(for: try #require(Decimal(string: "-0.050", locale: Locale(identifier: "en_US_POSIX")))) == "-0.05")
        #expect(JSONNumberFormat.smallText(for: .nan) == nil)
    }
}
