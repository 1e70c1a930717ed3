import Foundation

/// Numbers typed by users, in decimal notation only.
///
/// `Double(_:)` also reads `0x10`, `0x1p3`, `1e-300`, `inf` and `nan`, none of which anyone means as a timeout or
/// a latitude; options read their numbers here instead and then check their documented range.
public enum DecimalText {
    /// The value of `text` when it is an optional sign, digits, and at most one decimal point (`12`, `-0.5`,
    /// `.25`, `3.`), or `nil` for anything else. Surrounding spaces are allowed.
    public static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var digits = 0
        var points = 0
        for (offset, byte) in trimmed.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): points += 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"): guard offset == 0 else { return nil }
            default: return nil
            }
        }
        guard digits > 0, digits <= 40, points <= 1 else { return nil }
        return Double(trimmed)
    }

    /// ``number(_:)`` within `range`, or `nil`.
    public static func number(_ text: String, in range: ClosedRange<Double>) -> Double? {
        number(text).flatMap { range.contains($0) ? $0 : nil }
    }
}
