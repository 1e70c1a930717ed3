import AggregateText
import Foundation

/// The byte-level scanning that the tree parser (``JSONParser``) and the streaming reader (``JSONEventReader``)
/// share, so both accept and refuse exactly the same documents with the same reasons.
///
/// Every scan works on a window of bytes. `final` says whether the window's end is the end of the input: when it is
/// not, a token that runs into the end answers ``Outcome/needMore`` and the caller refills and scans again.
enum JSONScan {
    /// How a scan ended.
    enum Outcome: Equatable {
        /// The token ends just before this offset.
        case complete(Int)
        /// The token runs past the window; scan again with more bytes.
        case needMore
        /// The token is invalid: the reason and the offset of the problem.
        case failure(String, Int)
    }

    /// What a string scan saw, so decoding can take the fastest route.
    struct StringShape {
        /// A backslash escape occurs.
        var escaped = false
        /// A byte above 0x7F occurs.
        var nonASCII = false
    }

    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")

    // MARK: Strings

    /// Scans a string whose opening quote is at `start`, checking escapes but not building the text.
    ///
    /// Runs of plain ASCII are skipped eight bytes at a time (``Words/skipPlain(_:from:)``); the byte-at-a-time
    /// original is kept as ``JSONSimpleScan/string(_:from:final:shape:checkUTF8:)``, the reference this must agree with.
    /// - Parameter checkUTF8: judge each multi-byte sequence as it is passed (the streaming reader's only UTF-8 check:
    ///   bytes above 0x7F are valid nowhere else). The tree parser's input is checked whole before, so it passes false.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer, from start: Int, final: Bool, shape: inout StringShape, checkUTF8: Bool = false) -> Outcome {
        let count = bytes.count
        var index = start + 1
        while true {
            // The common case: a run of plain ASCII, a word at a time, then what is left of it byte by byte.
            index = Words.skipPlain(bytes, from: index)
            guard index < count else { return final ? .failure("unterminated string", count) : .needMore }
            let byte = bytes[index]
            if byte == quote { return .complete(index + 1) }
            if byte >= 0x80 {
                shape.nonASCII = true
                if checkUTF8 {
                    // A run of letters beyond ASCII (a word in Cyrillic or Greek) is judged sequence by sequence
                    // without going back to the word-at-a-time scan between them.
                    repeat {
                        switch sequence(bytes, at: index) {
                        case .valid(let length): index += length
                        case .cut: return final ? .failure(notUTF8(bytes[index]), index) : .needMore
                        case .invalid: return .failure(notUTF8(bytes[index]), index)
                        }
                    } while index < count && bytes[index] >= 0x80
                    continue
                }
                // Continuation bytes (and further multi-byte characters) can be neither quotes nor escapes.
                index += 1
                while index < count, bytes[index] >= 0x80 { index += 1 }
                continue
            }
            if byte < 0x20 { return .failure("control character in a string (must be escaped)", index) }
            shape.escaped = true
            guard index + 1 < count else { return final ? .failure("unterminated string", count) : .needMore }
            switch bytes[index + 1] {
            case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                guard index + 6 <= count else {
                    return final ? .failure("incomplete \\u escape", index + 2) : .needMore
                }
                for offset in 2..<6 where HexDigit.value(bytes[index + offset]) == nil {
                    return .failure("invalid hex digit in \\u escape", index + offset)
                }
                index += 6
            default:
                return .failure("invalid escape \\\(describe(bytes[index + 1]))", index + 1)
            }
        }
    }

    /// The text of a string scanned by ``string(_:from:final:shape:)``: the bytes between its quotes, `start..<end`.
    /// A lone UTF-16 surrogate escape becomes U+FFFD and is counted in `repairs`.
    /// - Returns: `nil` when the bytes are not valid UTF-8.
    static func decode(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, shape: StringShape, repairs: inout Int) -> String? {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if !shape.escaped {
            if !shape.nonASCII { return text(slice) }
            return String(validating: typed(slice), as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(end - start)
        appendUnescaped(bytes, start, end, to: &output, repairs: &repairs)
        if !shape.nonASCII { return String(decoding: output, as: UTF8.self) }
        return String(validating: output, as: UTF8.self)
    }

    /// Appends the UTF-8 of the string between quotes at `start..<end` (scanned by ``string(_:from:final:shape:checkUTF8:)``,
    /// so every escape is complete and valid): runs without a backslash are copied whole, escapes are worked out.
    /// A lone UTF-16 surrogate escape becomes U+FFFD and is counted in `repairs`.
    static func appendUnescaped(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, to output: inout [UInt8], repairs: inout Int) {
        guard let base = bytes.baseAddress else { return }
        var index = start
        while index < end {
            let backslashAt = memchr(base + index, Int32(backslash), end - index).map { UnsafeRawPointer($0) - base } ?? end
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<backslashAt]))
            index = backslashAt
            guard index < end else { return }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 6 <= end, bytes[index] == backslash,
                    bytes[index + 1] == UInt8(ascii: "u"), case let low = hex4(bytes, index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else if (0xD800...0xDFFF).contains(scalar) {
                    // Truncated data (X cut surrogate pairs in half) must not sink the whole document.
                    scalar = 0xFFFD
                    repairs += 1
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escape)  // `"`, `\` and `/` stand for themselves
            }
        }
    }

    /// The bytes as `UInt8`s: the standard library's fast paths take typed buffers, not raw ones.
    @inline(__always)
    static func typed(_ bytes: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// Text from bytes already known to be UTF-8 (ASCII, or checked).
    @inline(__always)
    static func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: typed(bytes), as: UTF8.self) }

    private static func hex4(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(HexDigit.value(bytes[index + offset]) ?? 0) }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case ..<0x80: output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Numbers and literals

    /// Scans a number starting at `start` (a `-` or a digit) by the JSON grammar.
    @inline(__always)
    static func number(_ bytes: UnsafeRawBufferPointer, from start: Int, final: Bool) -> Outcome {
        let count = bytes.count
        var index = start
        // Past the window's end a number may go on, unless the window is the whole input.
        func atEnd() -> Bool { index >= count }
        func isDigit(_ at: Int) -> Bool { at < count && bytes[at] &- UInt8(ascii: "0") < 10 }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if atEnd() && !final { return .needMore }
        guard isDigit(index) else { return .failure("invalid number", index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { return .failure("invalid number (leading zero)", index) }
        } else {
            while isDigit(index) { index += 1 }
        }
        if atEnd() { return final ? .complete(index) : .needMore }
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            if atEnd() && !final { return .needMore }
            guard isDigit(index) else { return .failure("invalid number (digit expected after '.')", index) }
            while isDigit(index) { index += 1 }
            if atEnd() { return final ? .complete(index) : .needMore }
        }
        if bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if atEnd() && !final { return .needMore }
            guard isDigit(index) else { return .failure("invalid number (digit expected in exponent)", index) }
            while isDigit(index) { index += 1 }
            if atEnd() && !final { return .needMore }
        }
        return .complete(index)
    }

    /// Scans `true`, `false` or `null` at `start`.
    static func literal(_ bytes: UnsafeRawBufferPointer, from start: Int, _ literal: StaticString, final: Bool) -> Outcome {
        let length = literal.utf8CodeUnitCount
        let available = min(length, bytes.count - start)
        let matches = literal.withUTF8Buffer { expected in
            (0..<available).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        if matches && available == length { return .complete(start + length) }
        if matches && !final { return .needMore }
        return .failure("invalid literal, expected \(literal)", start)
    }

    /// The offset of the first byte at or after `index` that is not JSON whitespace.
    ///
    /// Most tokens follow their separator directly or after one space, so bytes are tested one by one first; a
    /// longer run (the indentation of pretty-printed JSON) is skipped a word at a time.
    @inline(__always)
    static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int {
        var index = index
        let count = bytes.count
        for _ in 0..<2 {
            guard index < count else { return index }
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return Words.skipWhitespace(bytes, from: index)
    }

    // MARK: Encoding

    /// `the input looks like UTF-16` (or UTF-32) when the first bytes say so, by a byte order mark or zero bytes.
    static func wideEncoding(head: [UInt8]) -> String? {
        let wide: String
        if head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            wide = "UTF-32"
        } else if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) {
            wide = "UTF-16"
        } else if head.count >= 2, head[0] == 0 || head[1] == 0 {
            wide = "UTF-16 or UTF-32"
        } else {
            return nil
        }
        return "the input looks like \(wide)"
    }

    /// Checks that `bytes[from...]` is UTF-8 (runs of ASCII a word at a time; ``JSONSimpleScan/checkUTF8(_:from:final:)``
    /// is the byte-at-a-time reference).
    /// - Returns: the offset of the first byte that does not belong to a valid sequence (or `nil`), and how far the
    ///   check got: when `final` is false, a sequence cut by the window's end is left for the next window.
    static func checkUTF8(_ bytes: UnsafeRawBufferPointer, from: Int, final: Bool) -> (invalid: Int?, checkedEnd: Int) {
        var index = from
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                // ASCII is checked 32 bytes at a time.
                index = Words.skipASCII(bytes, from: index + 1)
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

    /// What a multi-byte UTF-8 sequence starting at a byte above 0x7F is.
    enum Sequence: Equatable {
        /// A valid sequence of this many bytes.
        case valid(Int)
        /// The bytes end before the sequence does.
        case cut
        /// Not UTF-8: a bad lead or continuation byte, an overlong form, a surrogate, or past U+10FFFF.
        case invalid
    }

    /// Judges the multi-byte sequence whose lead byte (above 0x7F) is at `index`, from the lead byte's range and the
    /// few second bytes that make a sequence overlong, a surrogate or past U+10FFFF, without working out the scalar.
    /// ``JSONSimpleScan/sequence(_:at:)``, which does, is the reference it must agree with.
    @inline(__always)
    static func sequence(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Sequence {
        let lead = bytes[index]
        let count = bytes.count
        @inline(__always) func continues(_ offset: Int) -> Bool { bytes[index + offset] & 0xC0 == 0x80 }
        if lead < 0xE0 {
            guard lead >= 0xC2 else { return .invalid }  // a continuation byte, or an overlong lead
            guard index + 2 <= count else { return .cut }
            return continues(1) ? .valid(2) : .invalid
        }
        if lead < 0xF0 {
            guard index + 3 <= count else { return .cut }
            guard continues(1), continues(2) else { return .invalid }
            let second = bytes[index + 1]
            if lead == 0xE0 && second < 0xA0 { return .invalid }  // overlong
            if lead == 0xED && second >= 0xA0 { return .invalid }  // a UTF-16 surrogate
            return .valid(3)
        }
        guard lead <= 0xF4 else { return .invalid }
        guard index + 4 <= count else { return .cut }
        guard continues(1), continues(2), continues(3) else { return .invalid }
        let second = bytes[index + 1]
        if lead == 0xF0 && second < 0x90 { return .invalid }  // overlong
        if lead == 0xF4 && second >= 0x90 { return .invalid }  // past U+10FFFF
        return .valid(4)
    }

    // MARK: Errors

    /// The reason given for a byte that does not belong to a valid UTF-8 sequence.
    static func notUTF8(_ byte: UInt8) -> String { "not valid UTF-8: byte \(String(format: "0x%02X", byte))" }

    /// `'x'` for a printable ASCII byte, `0xNN` otherwise.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "0x%02X", byte)
    }

    /// The error for a problem at `position` in `bytes`.
    /// - Parameters:
    ///   - linesBefore: newlines in the input before `bytes` starts (for a window of a stream).
    ///   - lineStartBefore: when `bytes` holds no newline before `position`, the offset (relative to `bytes`, so
    ///     possibly negative) at which the current line started.
    static func error(
        _ reason: String, at position: Int, in bytes: UnsafeRawBufferPointer, linesBefore: Int = 0, lineStartBefore: Int = 0
    ) -> JSONParseError {
        let position = min(max(position, 0), bytes.count)
        let newlines = Words.newlines(UnsafeRawBufferPointer(rebasing: bytes[0..<position]))
        let line = 1 + linesBefore + newlines.count
        let lineStart = newlines.lineStart ?? lineStartBefore
        let column = position - lineStart + 1
        // An excerpt on one line around the problem.
        var lineEnd = position
        while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, lineEnd - position < 20 { lineEnd += 1 }
        let excerptStart = max(lineStart, position - 20, 0)
        let excerpt = text(UnsafeRawBufferPointer(rebasing: bytes[excerptStart..<lineEnd]))
            .replacingOccurrences(of: "\t", with: " ")
            .replacingOccurrences(of: "\r", with: " ")
        return JSONParseError(reason: reason, line: line, column: column, excerpt: excerpt)
    }
}
