import AggregateJSON
public import AggregateText
public import Foundation

// Decimal amounts written for people and for APIs, without `Double` and without the locale: money, averages and
// counts are rounded and grouped the same way on every machine.

extension DecimalText {
    /// `value` rounded half-up (away from zero) to `places` decimal places: 70.8333 to 2 places is 70.83,
    /// 0.125 is 0.13, -2.5 to 0 places is -3.
    public static func rounded(_ value: Decimal, places: Int) -> Decimal {
        var input = value
        var output = Decimal()
        NSDecimalRound(&output, &input, places, .plain)
        return output
    }

    /// `value` rounded half-up to `places` decimal places and written with exactly that many: `"600.00"`,
    /// `"6.6"`, `"7.0"`, `"-0.50"`; no point when `places` is 0.
    public static func fixed(_ value: Decimal, places: Int) -> String {
        let text = JSONNumberFormat.text(for: rounded(value, places: places))
        guard places > 0 else { return text }
        let parts = text.split(separator: ".", maxSplits: 1)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        return "\(parts[0])." + fraction.padding(toLength: places, withPad: "0", startingAt: 0)
    }

    /// Decimal text with a comma between each group of three digits of its whole part: `"1350"` is `"1,350"`,
    /// `"-1234567.5"` is `"-1,234,567.5"`; a sign and the fraction are kept as they are.
    public static func grouped(_ text: String) -> String {
        let sign = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.prefix(1)) : ""
        let unsigned = text.dropFirst(sign.count)
        let whole = unsigned.prefix { $0 != "." }
        var result = ""
        for (index, digit) in whole.enumerated() {
            if index > 0, (whole.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return sign + result + unsigned.dropFirst(whole.count)
    }
}
