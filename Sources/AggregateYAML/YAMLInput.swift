/// The checks made once over the whole input before reading, so the reader can trust every byte it sees: valid
/// UTF-8, no control characters YAML forbids (a NUL byte then also marks the end for the reader), `\n` line breaks.
enum YAMLInput {
    /// The bytes without a UTF-8 byte order mark and with `\r\n` and `\r` read as `\n`.
    static func prepare(_ input: [UInt8]) throws(YAMLError) -> [UInt8] {
        var bytes = input
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || (bytes.count > 1 && bytes[0] == 0) {
            throw YAMLError(line: 1, column: 1, reason: "the document is UTF-16 or UTF-32; only UTF-8 is supported")
        }
        try validate(bytes)
        guard bytes.contains(0x0D) else { return bytes }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0D {
                normalized.append(0x0A)
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
            } else {
                normalized.append(byte)
            }
            index += 1
        }
        return normalized
    }

    private static func validate(_ bytes: [UInt8]) throws(YAMLError) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                if (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F {
                    throw error(at: index, in: bytes, "control character U+00\(hex(byte)) is not allowed in YAML")
                }
                index += 1
                continue
            }
            let length: Int
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF: length = 2; scalar = UInt32(byte & 0x1F)
            case 0xE0...0xEF: length = 3; scalar = UInt32(byte & 0x0F)
            case 0xF0...0xF4: length = 4; scalar = UInt32(byte & 0x07)
            default: throw error(at: index, in: bytes, "the document is not valid UTF-8")
            }
            guard index + length <= bytes.count else { throw error(at: index, in: bytes, "the document is not valid UTF-8") }
            for offset in 1..<length {
                let next = bytes[index + offset]
                guard next & 0xC0 == 0x80 else { throw error(at: index, in: bytes, "the document is not valid UTF-8") }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
            guard scalar >= smallest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
                throw error(at: index, in: bytes, "the document is not valid UTF-8")
            }
            index += length
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// An error at a byte offset, with the line and character column counted from the start.
    static func error(at offset: Int, in bytes: [UInt8], _ reason: String) -> YAMLError {
        var line = 1
        var lineStart = 0
        var index = 0
        while index < offset, index < bytes.count {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return YAMLError(line: line, column: characterColumn(bytes, lineStart: lineStart, offset: offset), reason: reason)
    }

    /// The 1-based column of `offset` in characters (UTF-8 continuation bytes do not count).
    static func characterColumn(_ bytes: [UInt8], lineStart: Int, offset: Int) -> Int {
        var column = 1
        var index = lineStart
        while index < offset, index < bytes.count {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return column
    }
}
