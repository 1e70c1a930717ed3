public import Foundation

/// A JSON value that keeps what `JSONSerialization` loses: the order of object keys and the exact text of numbers.
///
/// Numbers are stored as their literal text, so a tweet id above 2^53 or a money amount such as `"600.10"` survives
/// a round trip unchanged; read them with ``int``, ``double``, ``decimal`` or ``uint64``.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as the literal text that appeared in the document (for example `"4.51"` or `"1097002747000"`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Creates a number value from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }
    /// Creates a number value from a double, written in its shortest round-tripping form.
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumberFormat.text(for: value)) }
    /// Creates a number value from a decimal, written exactly.
    public static func decimal(_ value: Decimal) -> JSONValue { .number(JSONNumberFormat.text(for: value)) }
    /// Creates a string value, or `null` when the string is absent.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}

// MARK: - Reading values

extension JSONValue {
    /// The member named `key` when this is an object, otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range, otherwise `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The string when this is a non-empty string that is not only whitespace.
    public var nonEmptyString: String? {
        guard let value = string else { return nil }
        // A printable ASCII first character settles it without trimming (which goes through NSString).
        if let first = value.utf8.first, first > 0x20, first < 0x7F { return value }
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return value
    }

    /// The boolean when this is `true` or `false`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number's literal text when this is a number.
    public var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }

    /// The value as an `Int` when it is an integral number within range.
    public var int: Int? {
        guard let text = numberText else { return nil }
        if let value = Int(text) { return value }
        if let value = Double(text), value.rounded() == value, abs(value) < 9.0e15 { return Int(value) }
        return nil
    }

    /// The value as a `UInt64` when it is a non-negative integral number (ids beyond 2^53 stay exact).
    public var uint64: UInt64? { numberText.flatMap { UInt64($0) } }

    /// The value as a `Double` when it is a number.
    public var double: Double? { numberText.flatMap(Double.init) }

    /// The value as an exact `Decimal` when it is a number or a numeric string such as `"600.00"`.
    public var decimal: Decimal? {
        switch self {
        case .number(let text):
            if text.utf8.count < 16, let integer = Int(text) { return Decimal(integer) }  // counts and ids: no parsing
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .string(let text):
            if text.utf8.count < 16, let integer = Int(text) { return Decimal(integer) }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") })
            else { return nil }
            return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        default: return nil
        }
    }

    /// The elements when this is an array.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The object when this is an object.
    public var object: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// A scalar's text as searched, shown in full or used as a key: a string as it is, other scalars as their JSON
    /// text (`12`, `true`, `null`); `nil` for arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let text): return text
        case .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array, .object: return nil
        }
    }

    /// A string for ids that APIs send either as numbers or as strings.
    public var idString: String? {
        switch self {
        case .string(let text) where !text.isEmpty: return text
        case .number(let text): return text
        default: return nil
        }
    }

    /// A short name for the value's type: `object`, `array`, `string`, `number`, `bool` or `null`.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Ordered object

/// A JSON object that keeps its members in document order.
public struct JSONObject: Sendable, Equatable {
    /// One member of an object.
    public struct Member: Sendable, Equatable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue
        /// Creates a member.
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in document order. When a key repeats, lookups see the last one, as most parsers do.
    public private(set) var members: [Member]

    /// Where each key's last member is, once the object is large enough for a linear scan to cost more than
    /// hashing (`nil` for small objects). It is derived from `members`, so equality ignores it.
    private var index: [String: Int]?

    /// Objects with at least this many members get an ``index``.
    private static let indexThreshold = 24

    /// Creates an object from members in order.
    public init(_ members: [Member] = []) {
        self.members = members
        self.index = Self.makeIndex(members)
    }

    /// Creates an object from key-value pairs in order.
    public init(pairs: KeyValuePairs<String, JSONValue>) { self.init(pairs.map { Member($0.key, $0.value) }) }

    private static func makeIndex(_ members: [Member]) -> [String: Int]? {
        guard members.count >= indexThreshold else { return nil }
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { index[member.key] = position }
        return index
    }

    /// The position of the last member named `key`.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.lastIndex(where: { $0.key == key })
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The value for `key`; setting `nil` removes the member, setting a value replaces it in place or appends it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let newValue {
                if let position = position(of: key) {
                    members[position].value = newValue
                } else {
                    members.append(Member(key, newValue))
                    if index != nil {
                        index?[key] = members.count - 1
                    } else if members.count >= Self.indexThreshold {
                        index = Self.makeIndex(members)
                    }
                }
            } else {
                members.removeAll { $0.key == key }
                index = Self.makeIndex(members)
            }
        }
    }

    /// Appends `value` under `key` unless `value` is `nil`; used to build objects whose optional fields are omitted.
    public mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}

extension [JSONObject.Member] {
    /// Appends a member unless `value` is `nil`: members for a new object whose keys are known to be distinct, without
    /// ``JSONObject/set(_:_:)`` looking each earlier key up.
    public mutating func append(_ key: String, _ value: JSONValue?) {
        if let value { append(JSONObject.Member(key, value)) }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member($0.0, $0.1) })
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member($0.0, $0.1) }))
    }
}

// MARK: - Number text

/// Writes numbers the way the JSON output shows them.
public enum JSONNumberFormat {
    /// The shortest text that reads back as `value` (`4.0` is written `4`); non-finite values become `0`.
    public static func text(for value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The exact text of `value` in plain notation.
    public static func text(for value: Decimal) -> String {
        if let text = smallText(for: value) { return text }
        var copy = value
        return NSDecimalString(&copy, Locale(identifier: "en_US_POSIX"))
    }

    /// The text of a decimal whose digits fit in 53 bits and whose exponent is within ±18 (counts, prices, scores:
    /// nearly every decimal a result holds), written from an integer; `nil` for any other. `NSDecimalString` takes
    /// over a microsecond per value, which made it a tenth of an archive's conversion time. The same text as
    /// `NSDecimalString`: trailing fractional zeros dropped, no exponent (the differential test compares them).
    static func smallText(for value: Decimal) -> String? {
        if value.isZero { return "0" }
        guard value.isFinite else { return nil }
        let exponent = value.exponent
        guard exponent >= -18, exponent <= 18 else { return nil }
        let significand = value.significand
        // Exact for whole numbers below 2^53, and at least 2^53 above them; the equality check below makes the
        // text exact whatever the platform's conversion does.
        let approximate = NSDecimalNumber(decimal: significand).doubleValue
        guard approximate >= 1, approximate < 9_007_199_254_740_992 else { return nil }
        let digits = Int64(approximate)
        guard Decimal(digits) == significand else { return nil }
        var text = String(digits)
        if exponent > 0 {
            text += String(repeating: "0", count: exponent)
        } else if exponent < 0 {
            var scale = -exponent
            while scale > 0, text.utf8.last == UInt8(ascii: "0") {
                text.removeLast()
                scale -= 1
            }
            if scale > 0 {
                let count = text.utf8.count
                text = count > scale
                    ? "\(text.dropLast(scale)).\(text.suffix(scale))"
                    : "0.\(String(repeating: "0", count: scale - count))\(text)"
            }
        }
        return value.sign == .minus ? "-" + text : text
    }
}
