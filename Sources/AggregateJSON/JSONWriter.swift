public import Foundation

/// Writes ``JSONValue``s as text: keys in their stored order, numbers as their literal text, so output is stable.
///
/// Everything is written as UTF-8 bytes (``append(_:to:)``): escaping works on bytes, and text with nothing to
/// escape, non-ASCII included, is copied as it is. ``string(_:)`` and ``data(_:)`` are made from those bytes.
public struct JSONWriter: Sendable {
    /// Whether to write indented, multi-line JSON (two spaces per level).
    public var pretty: Bool

    /// Creates a writer.
    /// - Parameter pretty: `true` for indented output, `false` for one line.
    public init(pretty: Bool = false) { self.pretty = pretty }

    /// The text of `value`.
    public func string(_ value: JSONValue) -> String {
        var output: [UInt8] = []
        append(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// The UTF-8 bytes of `value`.
    public func data(_ value: JSONValue) -> Data {
        var output: [UInt8] = []
        append(value, to: &output)
        return Data(output)
    }

    /// Appends the UTF-8 bytes of `value` to `output` (for writers that batch many values, e.g. NDJSON lines).
    public func append(_ value: JSONValue, to output: inout [UInt8]) {
        write(value, into: &output, indent: 0)
    }

    private func write(_ value: JSONValue, into output: inout [UInt8], indent: Int) {
        switch value {
        case .null: Self.append("null", to: &output)
        case .bool(let flag): Self.append(flag ? "true" : "false", to: &output)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONWriter.appendQuoted(text, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                Self.append("[]", to: &output)
                return
            }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, indent: indent + 1)
                write(element, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else {
                Self.append("{}", to: &output)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, indent: indent + 1)
                JSONWriter.appendQuoted(member.key, to: &output)
                Self.append(pretty ? ": " : ":", to: &output)
                write(member.value, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ output: inout [UInt8], indent: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: 2 * indent))
    }

    private static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ text: String, to output: inout String) {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal in UTF-8: `"`, `\`, control characters, U+2028 and U+2029 are
    /// escaped; everything else, non-ASCII included, is copied in runs as it is.
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted(utf8: $0, to: &output) }
    }

    /// ``appendQuoted(_:to:)-([UInt8])`` for text that is UTF-8 bytes already.
    public static func appendQuoted(utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        // No reserveCapacity: it grows the array to exactly that size, and the next append then copies it all again.
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = bytes.count
        let raw = UnsafeRawBufferPointer(bytes)
        while true {
            // Bytes that need no escape are passed over a word at a time.
            index = JSONScan.Words.skipUnescaped(raw, from: index)
            guard index < count else { break }
            let byte = bytes[index]
            let escape: StaticString
            var length = 1
            switch byte {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0xE2 where index + 2 < count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                length = 3
            case ..<0x20: escape = "\\u00"
            default:
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            append(escape, to: &output)
            if byte < 0x20, escape.utf8CodeUnitCount == 4 {
                // `\u00` and two lowercase hex digits, as String(format: "\\u%04x") wrote them.
                let digits: StaticString = "0123456789abcdef"
                output.append(digits.utf8Start[Int(byte >> 4)])
                output.append(digits.utf8Start[Int(byte & 0x0F)])
            }
            index += length
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        output.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
