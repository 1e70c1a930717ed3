import AggregateJSON

/// The core-schema tags a node may carry (`!!str`, ...); any other tag is outside the subset.
enum YAMLTag: Equatable {
    /// `!`: the node is what its kind says (a scalar is a string), whatever its text looks like.
    case nonSpecific
    case string, integer, float, boolean, null, mapping, sequence

    /// The tag for a resolved full name such as `tag:yaml.org,2002:str`.
    init?(fullName: String) {
        switch fullName {
        case "tag:yaml.org,2002:str": self = .string
        case "tag:yaml.org,2002:int": self = .integer
        case "tag:yaml.org,2002:float": self = .float
        case "tag:yaml.org,2002:bool": self = .boolean
        case "tag:yaml.org,2002:null": self = .null
        case "tag:yaml.org,2002:map": self = .mapping
        case "tag:yaml.org,2002:seq": self = .sequence
        default: return nil
        }
    }
}

/// What a scalar's text means under the YAML 1.2 core schema, as JSON.
enum YAMLScalar {
    /// Why a scalar cannot be read: the reason for a ``YAMLError``.
    struct Problem: Error { let reason: String }

    /// A plain (unquoted) scalar: null, a boolean, a number, or else a string.
    static func resolvePlain(_ text: ArraySlice<UInt8>) throws(Problem) -> JSONValue {
        if let value = try resolveNonString(text) { return value }
        return .string(String(decoding: text, as: UTF8.self))
    }

    /// A scalar whose tag says what it must be.
    static func resolve(_ text: ArraySlice<UInt8>, tag: YAMLTag, plain: Bool) throws(Problem) -> JSONValue {
        let shown = YAMLError.excerpt(String(decoding: text.prefix(40), as: UTF8.self))
        switch tag {
        case .nonSpecific, .string: return .string(String(decoding: text, as: UTF8.self))
        case .null:
            guard isNull(text) else { throw Problem(reason: "!!null cannot be '\(shown)'") }
            return .null
        case .boolean:
            guard let value = boolean(text) else { throw Problem(reason: "!!bool needs true or false, not '\(shown)'") }
            return .bool(value)
        case .integer:
            guard let number = integer(text) else { throw Problem(reason: "!!int needs an integer, not '\(shown)'") }
            return .number(number)
        case .float:
            if let number = integer(text) { return .number(number) }
            if let number = try float(text) { return .number(number) }
            throw Problem(reason: "!!float needs a number, not '\(shown)'")
        case .mapping, .sequence:
            throw Problem(reason: "a scalar cannot be tagged \(tag == .mapping ? "!!map" : "!!seq")")
        }
    }

    private static func resolveNonString(_ text: ArraySlice<UInt8>) throws(Problem) -> JSONValue? {
        guard let first = text.first else { return .null }
        switch first {
        case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"): return isNull(text) ? .null : nil
        case UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "f"), UInt8(ascii: "F"): return boolean(text).map(JSONValue.bool)
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            if let number = integer(text) { return .number(number) }
            return try float(text).map(JSONValue.number)
        default: return nil
        }
    }

    static func isNull(_ text: ArraySlice<UInt8>) -> Bool {
        text.isEmpty || text.elementsEqual("~".utf8) || text.elementsEqual("null".utf8) || text.elementsEqual("Null".utf8)
            || text.elementsEqual("NULL".utf8)
    }

    static func boolean(_ text: ArraySlice<UInt8>) -> Bool? {
        for word in ["true", "True", "TRUE"] where text.elementsEqual(word.utf8) { return true }
        for word in ["false", "False", "FALSE"] where text.elementsEqual(word.utf8) { return false }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// JSON number text for a core-schema integer: `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`.
    static func integer(_ text: ArraySlice<UInt8>) -> String? {
        var digits = text
        if digits.starts(with: "0x".utf8) || digits.starts(with: "0o".utf8) {
            let radix = digits[digits.index(after: digits.startIndex)] == UInt8(ascii: "x") ? 16 : 8
            digits = digits.dropFirst(2)
            guard !digits.isEmpty else { return nil }
            var values: [Int] = []
            for byte in digits {
                guard let value = digitValue(byte), value < radix else { return nil }
                values.append(value)
            }
            return decimalText(values, radix: radix)
        }
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        let body = significant.isEmpty ? "0" : String(decoding: significant, as: UTF8.self)
        return negative && body != "0" ? "-" + body : body
    }

    /// JSON number text for a core-schema float: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
    /// `.inf` and `.nan` are numbers in YAML but not in JSON, so they are a problem, not a string.
    static func float(_ text: ArraySlice<UInt8>) throws(Problem) -> String? {
        var rest = text
        var sign = ""
        if let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            if first == UInt8(ascii: "-") { sign = "-" }
            rest = rest.dropFirst()
        }
        for word in [".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"] where rest.elementsEqual(word.utf8) {
            if word.lowercased() == ".nan" && text.count != rest.count { return nil }  // the core schema has no signed NaN
            let shown = YAMLError.excerpt(String(decoding: text, as: UTF8.self))
            throw Problem(reason: "'\(shown)' has no JSON value; quote it to keep it as text")
        }
        let whole = rest.prefix(while: isDigit)
        rest = rest.dropFirst(whole.count)
        var fraction: ArraySlice<UInt8>?
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let digits = rest.prefix(while: isDigit)
            fraction = digits
            rest = rest.dropFirst(digits.count)
        }
        guard !whole.isEmpty || !(fraction?.isEmpty ?? true) else { return nil }
        var exponent = ""
        if let mark = rest.first, mark == UInt8(ascii: "e") || mark == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            var exponentSign = ""
            if let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                exponentSign = first == UInt8(ascii: "-") ? "-" : "+"
                rest = rest.dropFirst()
            }
            guard !rest.isEmpty, rest.allSatisfy(isDigit) else { return nil }
            exponent = "e" + exponentSign + String(decoding: rest, as: UTF8.self)
            rest = rest.dropFirst(rest.count)
        }
        guard rest.isEmpty else { return nil }
        let significantWhole = whole.drop { $0 == UInt8(ascii: "0") }
        let wholeText = significantWhole.isEmpty ? "0" : String(decoding: significantWhole, as: UTF8.self)
        let fractionText = fraction.map { $0.isEmpty ? ".0" : "." + String(decoding: $0, as: UTF8.self) } ?? ""
        return sign + wholeText + fractionText + exponent
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte) - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte) - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte) - 0x41 + 10
        default: return nil
        }
    }

    /// Decimal text of digits in another radix, at any length (a hexadecimal id may not fit 64 bits).
    private static func decimalText(_ digits: [Int], radix: Int) -> String {
        var decimal: [Int] = [0]  // least significant first
        for digit in digits {
            var carry = digit
            for index in decimal.indices {
                let value = decimal[index] * radix + carry
                decimal[index] = value % 10
                carry = value / 10
            }
            while carry > 0 {
                decimal.append(carry % 10)
                carry /= 10
            }
        }
        while decimal.count > 1, decimal.last == 0 { decimal.removeLast() }
        return String(decimal.reversed().map { Character(Unicode.Scalar(UInt8(0x30 + $0))) })
    }
}
