public import AggregateJSON
import Foundation

/// One SQLite value, as a statement's result holds it.
public enum SQLValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `text`, or `NULL` when it is `nil`.
    static func optionalText(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }

    /// A metric: a whole number that fits is an integer, any other a real (SQLite's numbers are 64-bit).
    init(decimal: Decimal) {
        let whole = NSDecimalNumber(decimal: decimal).int64Value
        if Decimal(whole) == decimal {
            self = .integer(whole)
        } else {
            // Through the decimal's own text, so 7.799 stays 7.799 rather than the binary neighbour Decimal gives.
            self = .real(Double(JSONNumberFormat.text(for: decimal)) ?? NSDecimalNumber(decimal: decimal).doubleValue)
        }
    }

    /// The value in JSON: numbers as numbers, a blob as base64 text.
    public var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .integer(let value): return .number(String(value))
        case .real(let value): return value.isFinite ? .double(value) : .null
        case .text(let text): return .string(text)
        case .blob(let bytes): return .string(Data(bytes).base64EncodedString())
        }
    }

    /// The value as text for a table cell or CSV: `NULL` is empty.
    public var plainText: String {
        switch self {
        case .null: return ""
        case .integer(let value): return String(value)
        case .real(let value): return JSONNumberFormat.text(for: value)
        case .text(let text): return text
        case .blob(let bytes): return Data(bytes).base64EncodedString()
        }
    }

    /// The text an API parameter gets from this value, or `nil` for `NULL` (which matches nothing).
    var parameterText: String? {
        switch self {
        case .null: return nil
        case .integer, .real, .blob: return plainText
        case .text(let text): return text
        }
    }
}
