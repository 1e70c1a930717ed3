package import Foundation

/// One RESP2 value, as a Redis server answers.
package enum RESPValue: Sendable, Equatable {
    /// `+OK`
    case simple(String)
    /// `-ERR ...`: the server refused the command (the connection stays usable).
    case error(String)
    /// `:42`
    case integer(Int64)
    /// `$5\r\nhello`, or `$-1` (`nil`).
    case bulk(Data?)
    /// `*2\r\n...`, or `*-1` (`nil`).
    case array([RESPValue]?)

    /// The value as text: a simple string, or a bulk string as UTF-8; `nil` otherwise.
    package var text: String? {
        switch self {
        case .simple(let text): return text
        case .bulk(let data?): return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }

    /// The value as bytes (a bulk or simple string); `nil` otherwise.
    package var data: Data? {
        switch self {
        case .simple(let text): return Data(text.utf8)
        case .bulk(let data): return data
        default: return nil
        }
    }

    /// The value as an integer: an integer reply, or a string holding one.
    package var integer: Int64? {
        switch self {
        case .integer(let value): return value
        default: return text.flatMap { Int64($0) }
        }
    }

    /// The elements of an array reply; `nil` otherwise (also for the null array).
    package var elements: [RESPValue]? {
        if case .array(let values?) = self { return values }
        return nil
    }
}

/// The bounds of what a reply may be, so a hostile or broken server gets a clear error rather than a crash, a hang
/// or an unbounded allocation.
package struct RESPLimits: Sendable, Equatable {
    /// The longest bulk string (the cache's entries are the largest values; 64 MiB by default).
    package var maxBulkBytes: Int
    /// The most elements of one array (nothing of ours reads more than the entries of one cache).
    package var maxArrayCount: Int
    /// The deepest nesting of arrays (our replies nest two deep).
    package var maxDepth: Int
    /// The longest line of a simple string, error or integer.
    package var maxLineBytes: Int
    /// The most bytes one reply may take in all (the read buffer never grows past this).
    package var maxReplyBytes: Int

    /// The defaults: 64 MiB bulks, a million elements, 16 levels, 64 KiB lines, 128 MiB per reply.
    package static let standard = RESPLimits(
        maxBulkBytes: 64 << 20, maxArrayCount: 1_000_000, maxDepth: 16, maxLineBytes: 64 << 10, maxReplyBytes: 128 << 20)

    /// Creates limits.
    package init(maxBulkBytes: Int, maxArrayCount: Int, maxDepth: Int, maxLineBytes: Int, maxReplyBytes: Int) {
        self.maxBulkBytes = maxBulkBytes
        self.maxArrayCount = maxArrayCount
        self.maxDepth = maxDepth
        self.maxLineBytes = maxLineBytes
        self.maxReplyBytes = maxReplyBytes
    }
}

/// Why bytes from the server are not RESP2 we accept.
package struct RESPProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `a bulk string of 2147483648 bytes is over the 67108864-byte limit`.
    package var reason: String
    /// The reason.
    package var description: String { reason }
    /// Creates an error.
    package init(_ reason: String) { self.reason = reason }
}

/// Reads RESP2 replies from bytes received so far: a whole reply, or "not yet" when it is cut short. It never reads
/// past what it was given, never allocates from a length the server announces before those bytes have arrived,
/// and checks every length, count and depth against ``RESPLimits``.
package struct RESPParser: Sendable {
    /// The bounds it enforces.
    package var limits: RESPLimits

    /// Creates a parser with `limits`.
    package init(limits: RESPLimits = .standard) { self.limits = limits }

    /// The first reply in `bytes[start...]` and the index just past it, or `nil` when the bytes end before it does.
    /// - Throws: ``RESPProtocolError`` for bytes that are not RESP2 or pass a limit.
    package func parse(_ bytes: [UInt8], from start: Int = 0) throws(RESPProtocolError) -> (value: RESPValue, end: Int)? {
        var index = start
        guard let value = try parseValue(bytes, &index, depth: 0) else { return nil }
        return (value, index)
    }

    private func parseValue(_ bytes: [UInt8], _ index: inout Int, depth: Int) throws(RESPProtocolError) -> RESPValue? {
        guard index < bytes.count else { return nil }
        let kind = bytes[index]
        var cursor = index + 1
        guard let line = try readLine(bytes, &cursor) else { return nil }
        switch kind {
        case UInt8(ascii: "+"):
            index = cursor
            return .simple(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"):
            index = cursor
            return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"):
            guard let number = Self.integer(line) else { throw RESPProtocolError("an integer reply is not a number") }
            index = cursor
            return .integer(number)
        case UInt8(ascii: "$"):
            guard let length = Self.integer(line), length >= -1 else { throw RESPProtocolError("a bulk string has no valid length") }
            if length == -1 {
                index = cursor
                return .bulk(nil)
            }
            guard length <= Int64(limits.maxBulkBytes) else {
                throw RESPProtocolError("a bulk string of \(length) bytes is over the \(limits.maxBulkBytes)-byte limit")
            }
            let count = Int(length)
            // The bytes and their CRLF must all be here before anything is allocated.
            guard bytes.count - cursor >= count + 2 else { return nil }
            guard bytes[cursor + count] == 13, bytes[cursor + count + 1] == 10 else {
                throw RESPProtocolError("a bulk string does not end where its length says")
            }
            let data = Data(bytes[cursor..<cursor + count])
            index = cursor + count + 2
            return .bulk(data)
        case UInt8(ascii: "*"):
            guard let count = Self.integer(line), count >= -1 else { throw RESPProtocolError("an array has no valid length") }
            if count == -1 {
                index = cursor
                return .array(nil)
            }
            guard count <= Int64(limits.maxArrayCount) else {
                throw RESPProtocolError("an array of \(count) elements is over the \(limits.maxArrayCount)-element limit")
            }
            guard depth < limits.maxDepth else { throw RESPProtocolError("arrays nest deeper than \(limits.maxDepth) levels") }
            // Every element takes at least 3 bytes: a count past what could have arrived is only waited for.
            guard Int64(bytes.count - cursor) >= count * 3 else { return nil }
            var values: [RESPValue] = []
            for _ in 0..<count {
                guard let value = try parseValue(bytes, &cursor, depth: depth + 1) else { return nil }
                values.append(value)
            }
            index = cursor
            return .array(values)
        default:
            throw RESPProtocolError("a reply starts with byte \(kind), not one of + - : $ *")
        }
    }

    /// The bytes up to the next CRLF, moving `cursor` past it; `nil` when no CRLF has arrived yet.
    private func readLine(_ bytes: [UInt8], _ cursor: inout Int) throws(RESPProtocolError) -> ArraySlice<UInt8>? {
        let start = cursor
        var position = start
        let end = min(bytes.count, start + limits.maxLineBytes + 2)
        while position < end {
            if bytes[position] == 10 {
                guard position > start, bytes[position - 1] == 13 else { throw RESPProtocolError("a line ends in LF without CR") }
                cursor = position + 1
                return bytes[start..<position - 1]
            }
            position += 1
        }
        if end - start >= limits.maxLineBytes + 2 { throw RESPProtocolError("a line is longer than \(limits.maxLineBytes) bytes") }
        return nil
    }

    /// A decimal integer of at most 19 digits and a sign, or `nil`.
    private static func integer(_ line: ArraySlice<UInt8>) -> Int64? {
        guard !line.isEmpty, line.count <= 20 else { return nil }
        return Int64(String(decoding: line, as: UTF8.self))
    }

    /// A command as RESP2 sends it: an array of bulk strings.
    package static func encode(_ arguments: [Data]) -> Data {
        var data = Data("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            data.append(contentsOf: Array("$\(argument.count)\r\n".utf8))
            data.append(argument)
            data.append(contentsOf: [13, 10])
        }
        return data
    }
}
