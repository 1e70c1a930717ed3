import AggregateCore

/// A key the explorer understands, decoded from the bytes a terminal sends in raw mode.
enum Key: Equatable, Sendable {
    case up, down, left, right, enter, backspace, escape, pageUp, pageDown, home, end
    /// Ctrl-C (in raw mode it arrives as a byte, not as SIGINT).
    case interrupt
    /// Ctrl-L: draw the screen again.
    case redraw
    /// A printable character (any script).
    case character(Character)
}

/// Turns terminal input bytes into keys, keeping an incomplete escape sequence or UTF-8 character for the next read.
///
/// Understands the sequences of xterm, tmux and the Linux console: `ESC [ A`…`D` and `ESC O A`…`D` (arrows),
/// `ESC [ H` / `ESC [ F` / `ESC [ 1 ~` / `ESC [ 4 ~` / `ESC [ 7 ~` / `ESC [ 8 ~` (Home, End), `ESC [ 5 ~` / `ESC [ 6 ~`
/// (Page Up, Page Down). Other sequences are consumed and ignored. A lone ESC is only known to be the Escape key
/// when no more bytes follow soon, so the caller waits briefly and then calls ``flush()``.
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// Whether bytes are waiting for the rest of a sequence.
    var hasPending: Bool { !pending.isEmpty }

    /// Decodes `bytes` (after anything pending) into the keys they complete.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.decode(pending[index...]) else { break }
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// Ends what is pending: a lone ESC becomes ``Key/escape``; an incomplete sequence is dropped.
    mutating func flush() -> [Key] {
        defer { pending = [] }
        return pending.first == 0x1B ? [.escape] : []
    }

    /// The key at the start of `bytes` and how many bytes it used, `(nil, n)` for ignored input, or `nil` when
    /// more bytes are needed.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        let first = bytes[start]
        switch first {
        case 0x1B:
            return decodeEscape(bytes)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x03: return (.interrupt, 1)
        case 0x0C: return (.redraw, 1)
        case 0x00..<0x20: return (nil, 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(first))), 1)
        default:
            let length: Int
            switch first {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return (nil, 1)
            }
            guard bytes.count >= length else { return nil }
            guard let text = String(validating: bytes.prefix(length), as: UTF8.self), let character = text.first else { return (nil, 1) }
            return (.character(character), length)
        }
    }

    private static func decodeEscape(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O") {
            guard bytes.count >= 3 else { return nil }
            return (cursorKey(bytes[start + 2]), 3)
        }
        guard introducer == UInt8(ascii: "[") else {
            // ESC followed by another key (Alt+key): the key alone, ESC dropped.
            return (nil, 1)
        }
        // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, then one final byte 0x40–0x7E.
        var index = start + 2
        while index < bytes.endIndex, (0x20...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return nil }
        let final = bytes[index]
        let length = index - start + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length) }
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        if final == UInt8(ascii: "~") {
            switch parameters.split(separator: ";").first ?? "" {
            case "1", "7": return (.home, length)
            case "4", "8": return (.end, length)
            case "5": return (.pageUp, length)
            case "6": return (.pageDown, length)
            default: return (nil, length)
            }
        }
        return (cursorKey(final), length)
    }

    private static func cursorKey(_ byte: UInt8) -> Key? {
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        default: return nil
        }
    }
}
