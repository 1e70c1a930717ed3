public import Foundation

/// Writes ``JSONValue``s as text: keys in their stored order, numbers as their literal text, so output is stable.
public struct JSONWriter: Sendable {
    /// Whether to write indented, multi-line JSON (two spaces per level).
    public var pretty: Bool

    /// Creates a writer.
    /// - Parameter pretty: `true` for indented output, `false` for one line.
    public init(pretty: Bool = false) { self.pretty = pretty }

    /// The text of `value`.
    public func string(_ value: JSONValue) -> String {
        var output = ""
        write(value, into: &output, indent: 0)
        return output
    }

    /// The UTF-8 bytes of `value`.
    public func data(_ value: JSONValue) -> Data { Data(string(value).utf8) }

    private func write(_ value: JSONValue, into output: inout String, indent: Int) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): JSONWriter.appendQuoted(text, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                newline(&output, indent: indent + 1)
                write(element, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output += "]"
        case .object(let object):
            guard !object.isEmpty else {
                output += "{}"
                return
            }
            output += "{"
            for (position, member) in object.members.enumerated() {
                if position > 0 { output += "," }
                newline(&output, indent: indent + 1)
                JSONWriter.appendQuoted(member.key, to: &output)
                output += pretty ? ": " : ":"
                write(member.value, into: &output, indent: indent + 1)
            }
            newline(&output, indent: indent)
            output += "}"
        }
    }

    private func newline(_ output: inout String, indent: Int) {
        guard pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        if !needsEscaping(text) {
            // Most strings have nothing to escape: copying them whole is far faster than scalar by scalar.
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{2028}": output += "\\u2028"
            case "\u{2029}": output += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    output += String(format: "\\u%04x", scalar.value)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    /// Whether `text` has a character ``appendQuoted(_:to:)`` escapes: `"`, `\\`, a control character, U+2028 or U+2029.
    private static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 {
                    return true
                }
                index += 1
            }
            return false
        }
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var output = ""
        appendQuoted(text, to: &output)
        return output
    }
}
