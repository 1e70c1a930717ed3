import Foundation

/// The byte-at-a-time string, UTF-8 and quoting scans that ``JSONScan`` and ``JSONWriter`` replaced with
/// word-at-a-time ones, kept as the reference they are checked against: the differential tests and the `json-scan`
/// and `json-quote` fuzzers require the same outcome from both on every input. The word-at-a-time scans finish the last few bytes of a window (less than a word) with
/// these.
enum JSONSimpleScan {
    /// ``JSONScan/string(_:from:final:shape:checkUTF8:)``, one byte at a time.
    static func string(
        _ bytes: UnsafeRawBufferPointer, from start: Int, final: Bool, shape: inout JSONScan.StringShape, checkUTF8: Bool = false
    ) -> JSONScan.Outcome {
        let count = bytes.count
        var index = start + 1
        while true {
            index = firstSpecial(bytes, from: index)
            guard index < count else { return final ? .failure("unterminated string", count) : .needMore }
            let byte = bytes[index]
            if byte == JSONScan.quote { return .complete(index + 1) }
            if byte >= 0x80 {
                shape.nonASCII = true
                guard checkUTF8 else {
                    index += 1
                    continue
                }
                switch sequence(bytes, at: index) {
                case .valid(let length): index += length
                case .cut: return final ? .failure(JSONScan.notUTF8(byte), index) : .needMore
                case .invalid: return .failure(JSONScan.notUTF8(byte), index)
                }
                continue
            }
            if byte < 0x20 { return .failure("control character in a string (must be escaped)", index) }
            shape.escaped = true
            guard index + 1 < count else { return final ? .failure("unterminated string", count) : .needMore }
            switch bytes[index + 1] {
            case JSONScan.quote, JSONScan.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                guard index + 6 <= count else {
                    return final ? .failure("incomplete \\u escape", index + 2) : .needMore
                }
                for offset in 2..<6 where !isHexDigit(bytes[index + offset]) {
                    return .failure("invalid hex digit in \\u escape", index + offset)
                }
                index += 6
            default:
                return .failure("invalid escape \\\(JSONScan.describe(bytes[index + 1]))", index + 1)
            }
        }
    }

    /// ``JSONScan/Words/skipPlain(_:from:)``, one byte at a time.
    static func firstSpecial(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        var index = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == JSONScan.quote || byte == JSONScan.backslash || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return index
    }

    /// ``JSONWriter/appendQuoted(utf8:to:)``'s quoting rules, one byte at a time, as it was written before the
    /// word-at-a-time escape search: the reference the tests and the `json-quote` fuzzer hold the writer to.
    static func quoted(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x22]
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x22: output += Array(#"\""#.utf8)
            case 0x5C: output += Array(#"\\"#.utf8)
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0x0D: output += Array(#"\r"#.utf8)
            case 0x09: output += Array(#"\t"#.utf8)
            case 0x08: output += Array(#"\b"#.utf8)
            case 0x0C: output += Array(#"\f"#.utf8)
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                output += Array((bytes[index + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8)
                index += 3
                continue
            case ..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
            index += 1
        }
        return output + [0x22]
    }

    /// ``JSONScan/Words/skipUnescaped(_:from:)``, one byte at a time: the first `"`, `\`, control byte or 0xE2.
    static func firstToEscape(_ bytes: UnsafeRawBufferPointer, from index: Int) -> Int {
        var index = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == JSONScan.quote || byte == JSONScan.backslash || byte < 0x20 || byte == 0xE2 { break }
            index += 1
        }
        return index
    }

    /// ``JSONScan/checkUTF8(_:from:final:)`` with ASCII passed one byte at a time and multi-byte sequences judged
    /// by ``sequence(_:at:)``.
    static func checkUTF8(_ bytes: UnsafeRawBufferPointer, from: Int, final: Bool) -> (invalid: Int?, checkedEnd: Int) {
        var index = from
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            switch sequence(bytes, at: index) {
            case .valid(let length): index += length
            case .cut: return final ? (index, index) : (nil, index)
            case .invalid: return (index, index)
            }
        }
        return (nil, index)
    }

    /// ``JSONScan/sequence(_:at:)`` by working out the scalar: the sequence's length from its lead byte, then the
    /// scalar checked against the least one of that length, the surrogates and U+10FFFF.
    static func sequence(_ bytes: UnsafeRawBufferPointer, at index: Int) -> JSONScan.Sequence {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80
        case 0xE0...0xEF: length = 3; minimum = 0x800
        case 0xF0...0xF4: length = 4; minimum = 0x10000
        default: return .invalid
        }
        guard index + length <= bytes.count else { return .cut }
        var scalar = UInt32(lead) & (0xFF >> (length + 1))
        for offset in 1..<length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return .invalid }
            scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return .invalid }
        return .valid(length)
    }

    /// ``JSONScan/skipWhitespace(_:_:)``, one byte at a time.
    static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    /// How many newlines `bytes` holds, and the offset just after the last one (`nil` without any).
    static func newlines(_ bytes: UnsafeRawBufferPointer) -> (count: Int, lineStart: Int?) {
        var count = 0
        var lineStart: Int?
        for offset in 0..<bytes.count where bytes[offset] == 0x0A {
            count += 1
            lineStart = offset + 1
        }
        return (count, lineStart)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return true
        default: return false
        }
    }
}
