import AggregateCore
import AggregateText
import Foundation
import Testing

@Suite struct DecimalTextFormatTests {
    @Test(arguments: [("70.83333", 2, "70.83"), ("0.125", 2, "0.13"), ("-2.5", 0, "-3"), ("2.5", 0, "3"), ("6.641", 1, "6.6"), ("1e3", 2, "1000")])
    func roundsHalfUpAwayFromZero(_ value: String, _ places: Int, _ expected: String) {
        #expect(DecimalText.rounded(Decimal(string: value)!, places: places) == Decimal(string: expected)!)
    }

    @Test(arguments: [("600", 2, "600.00"), ("12.5", 2, "12.50"), ("6.641", 1, "6.6"), ("7", 1, "7.0"), ("-0.5", 2, "-0.50"), ("0.004", 2, "0.00"), ("99.5", 0, "100")])
    func fixedWritesExactlyThePlaces(_ value: String, _ places: Int, _ expected: String) {
        #expect(DecimalText.fixed(Decimal(string: value)!, places: places) == expected)
    }

    @Test(arguments: [("0", "0"), ("999", "999"), ("1350", "1,350"), ("100000", "100,000"), ("-1234567.5", "-1,234,567.5"), ("+1000", "+1,000"), ("12345.678", "12,345.678")])
    func groupsTheWholePartInThrees(_ text: String, _ expected: String) {
        #expect(DecimalText.grouped(text) == expected)
    }
}
