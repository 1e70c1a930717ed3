public import Foundation

/// Why a document is not valid JSON, with the position of the first problem.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ',' or '}' after an object member`.
    public var reason: String
    /// 1-based line of the first problem.
    public var line: Int
    /// 1-based column (in bytes) of the first problem.
    public var column: Int
    /// The text around the problem, on one line, at most 40 characters.
    public var excerpt: String

    public var description: String {
        excerpt.isEmpty
            ? "\(reason) at line \(line), column \(column)"
            : "\(reason) at line \(line), column \(column): \(excerpt)"
    }
}

/// A JSON parser that keeps key order and number text, needs no recursion, and bounds nesting depth.
///
/// Deep nesting is refused with an error instead of exhausting the stack; a UTF-8 byte order mark is skipped.
public struct JSONParser: Sendable {
    /// The deepest nesting accepted. Deeper documents fail with a clear error.
    public var maxDepth: Int

    /// Creates a parser.
    /// - Parameter maxDepth: the deepest nesting of arrays and objects accepted.
    public init(maxDepth: Int = 512) { self.maxDepth = maxDepth }

    /// Parses one JSON document.
    /// - Throws: ``JSONParseError`` for anything that is not exactly one valid JSON value.
    public func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        return try reader.parseDocument()
    }

    /// Parses one JSON document from a string.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Data(text.utf8))
    }
}

extension JSONValue {
    /// Parses `data` with the default ``JSONParser``.
    public init(parsing data: Data) throws(JSONParseError) {
        self = try JSONParser().parse(data)
    }
}

private struct Reader {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private enum Container {
        case array([JSONValue])
        case object([JSONObject.Member], pendingKey: String?)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        if index >= bytes.count { throw error(bytes.isEmpty ? "empty input" : "no JSON value (only whitespace)") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    /// Parses a value using an explicit stack of open containers.
    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var stack: [Container] = []
        while true {
            skipWhitespace()
            // Read the start of a value.
            var completed: JSONValue
            guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "}")) {
                    index += 1
                    completed = .object(JSONObject())
                } else {
                    let key = try parseKey()
                    stack.append(.object([], pendingKey: key))
                    continue
                }
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "]")) {
                    index += 1
                    completed = .array([])
                } else {
                    stack.append(.array([]))
                    continue
                }
            case UInt8(ascii: "\""):
                completed = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                completed = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                completed = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                completed = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                completed = .number(try parseNumber())
            default:
                throw error("unexpected character \(describeByte(bytes[index])), expected a value")
            }

            // Attach the completed value to its container, closing containers as they end.
            while true {
                guard var top = stack.popLast() else { return completed }
                skipWhitespace()
                switch top {
                case .array(var elements):
                    elements.append(completed)
                    if peek(UInt8(ascii: ",")) {
                        index += 1
                        stack.append(.array(elements))
                        break
                    } else if peek(UInt8(ascii: "]")) {
                        index += 1
                        completed = .array(elements)
                        continue
                    } else {
                        throw error(index < bytes.count ? "expected ',' or ']' in an array" : "unexpected end of input inside an array")
                    }
                case .object(var members, let key):
                    members.append(JSONObject.Member(key ?? "", completed))
                    if peek(UInt8(ascii: ",")) {
                        index += 1
                        skipWhitespace()
                        let next = try parseKey()
                        top = .object(members, pendingKey: next)
                        stack.append(top)
                        break
                    } else if peek(UInt8(ascii: "}")) {
                        index += 1
                        completed = .object(JSONObject(members))
                        continue
                    } else {
                        throw error(index < bytes.count ? "expected ',' or '}' after an object member" : "unexpected end of input inside an object")
                    }
                }
                break
            }
        }
    }

    private mutating func parseKey() throws(JSONParseError) -> String {
        guard peek(UInt8(ascii: "\"")) else {
            throw error(index < bytes.count ? "expected a quoted key" : "unexpected end of input, expected a key")
        }
        let key = try parseString()
        skipWhitespace()
        guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
        index += 1
        return key
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var buffer: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair in \\u escape") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    index -= 1
                    throw error("invalid escape \\\(describeByte(escape))")
                }
            case 0x00..<0x20:
                throw error("control character in a string (must be escaped)")
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default:
                index += offset
                throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
        }
        index += 4
        return value
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("invalid number (leading zero)") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected after '.')") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number (digit expected in exponent)") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("invalid literal, expected \(literal)")
        }
        index += expected.count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }
    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "0x%02X", byte)
    }

    private func error(_ reason: String) -> JSONParseError {
        let position = min(index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<position where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        let column = position - lineStart + 1
        // An excerpt on one line around the problem.
        var lineEnd = position
        while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, lineEnd - position < 20 { lineEnd += 1 }
        let excerptStart = max(lineStart, position - 20)
        let excerpt = String(decoding: bytes[excerptStart..<lineEnd], as: UTF8.self)
            .replacingOccurrences(of: "\t", with: " ")
            .replacingOccurrences(of: "\r", with: " ")
        return JSONParseError(reason: reason, line: line, column: column, excerpt: excerpt)
    }
}
