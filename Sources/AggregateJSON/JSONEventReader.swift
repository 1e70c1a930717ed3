import AggregateText
public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One step of a JSON document read as a stream.
public enum JSONEvent: Sendable, Equatable {
    case objectStart
    case objectEnd
    case arrayStart
    case arrayEnd
    /// An object member's key; its value follows.
    case key(String)
    case string(String)
    /// A number, as its literal text.
    case number(String)
    case bool(Bool)
    case null
}

/// The kind of a token, without its text: what ``JSONEventReader/nextToken()`` returns, so that values the caller
/// does not need are never turned into strings.
public enum JSONToken: Sendable, Equatable {
    case objectStart, objectEnd, arrayStart, arrayEnd, key, string, number, `true`, `false`, null
}

/// Reads one JSON document as a stream of events, holding only a window of the input: memory is bounded by the
/// nesting depth and the longest single token, not by the document's size.
///
/// It accepts and refuses the same documents as ``JSONParser``, with the same reasons, lines and columns (both use
/// the same scanner), except for bytes that are not UTF-8: every byte is checked as it arrives, and the first bad one
/// fails with the reason `not valid UTF-8: byte 0xNN` (the tree parser names the string that holds it). A UTF-8 byte
/// order mark is skipped; UTF-16 and UTF-32 are recognised from the first bytes.
///
/// ```swift
/// let reader = JSONEventReader(handle: .standardInput)
/// while let event = try reader.next() { ... }
/// ```
public final class JSONEventReader {
    /// The deepest nesting accepted.
    public let maxDepth: Int
    /// What had to be repaired so far (lone surrogates in the strings that were decoded).
    public private(set) var notes = JSONParseNotes()
    /// How many bytes of input have been read so far (for progress reports).
    public private(set) var bytesRead = 0

    private enum Source {
        case data(Data, next: Int)
        case handle(FileHandle, pending: Data?)
    }

    /// What the reader expects next.
    private enum State {
        case firstValue, value, firstMemberOrEnd, firstElementOrEnd, key, afterValue, done
    }

    private var source: Source
    private let chunkSize: Int
    private var storage: UnsafeMutableRawBufferPointer
    /// Valid bytes are `0..<end`; `position` is the next unread one.
    private var end = 0
    private var position = 0
    private var checkedUTF8 = 0
    private var atEOF = false
    private var started = false
    private var state = State.firstValue
    /// For each open container: whether it is an object.
    private var containers: [Bool] = []
    /// Newlines in the bytes already dropped from the window, and where the current line started (relative).
    private var linesBefore = 0
    private var lineStartBefore = 0
    // The last key, string or number token: its bytes are `tokenStart..<tokenEnd` in the window.
    private var tokenStart = 0
    private var tokenEnd = 0
    private var tokenShape = JSONScan.StringShape()

    /// Reads from a file handle (a file, a pipe or standard input) in chunks.
    /// - Parameter prefix: bytes already read from `handle` that come first (e.g. after a header was looked for).
    public convenience init(handle: FileHandle, prefix: Data? = nil, maxDepth: Int = 512, chunkSize: Int = 1 << 20) {
        self.init(source: .handle(handle, pending: prefix), maxDepth: maxDepth, chunkSize: chunkSize)
    }

    /// Reads from bytes already in memory, a window at a time (as a stream would arrive).
    public convenience init(data: Data, maxDepth: Int = 512, chunkSize: Int = 1 << 20) {
        self.init(source: .data(data, next: 0), maxDepth: maxDepth, chunkSize: chunkSize)
    }

    private init(source: Source, maxDepth: Int, chunkSize: Int) {
        self.source = source
        self.maxDepth = maxDepth
        self.chunkSize = max(16, chunkSize)
        storage = .allocate(byteCount: self.chunkSize * 2, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The current nesting depth: 0 outside every container.
    public var depth: Int { containers.count }

    // MARK: Reading events

    /// The next event, with its text decoded; `nil` after the document's end (which is checked: nothing but
    /// whitespace may follow it).
    public func next() throws(JSONParseError) -> JSONEvent? {
        guard let token = try nextToken() else { return nil }
        switch token {
        case .objectStart: return .objectStart
        case .objectEnd: return .objectEnd
        case .arrayStart: return .arrayStart
        case .arrayEnd: return .arrayEnd
        case .key: return .key(try text())
        case .string: return .string(try text())
        case .number: return .number(try text())
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    /// The text of the last `key`, `string` or `number` token (decoded, without quotes). Valid until the next call
    /// that reads; only call it for tokens whose text you need.
    public func text() throws(JSONParseError) -> String {
        let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
        if tokenShape.escaped || tokenShape.nonASCII || window[tokenStart] == JSONScan.quote {
            guard let decoded = JSONScan.decode(window, tokenStart + 1, tokenEnd - 1, shape: tokenShape, repairs: &notes.replacedSurrogates) else {
                throw fail("invalid UTF-8 in a string", at: tokenEnd)
            }
            return decoded
        }
        return JSONScan.text(UnsafeRawBufferPointer(rebasing: window[tokenStart..<tokenEnd]))
    }

    /// Whether the last `key`, `string` or `number` token's bytes are its JSON text as ``JSONWriter`` writes it:
    /// a number, or a string of plain ASCII without escapes.
    public var tokenIsVerbatim: Bool { !tokenShape.escaped && !tokenShape.nonASCII }

    /// Whether the last `key` or `string` token holds no backslash escape: its bytes between the quotes are then its
    /// text, already checked to be UTF-8 as they arrived.
    var tokenIsUnescaped: Bool { !tokenShape.escaped }

    /// Calls `body` with the raw bytes of the last `key`, `string` or `number` token (strings with their quotes).
    public func withTokenBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[tokenStart..<tokenEnd]))
    }

    /// The next token's kind; `nil` after the document's end.
    public func nextToken() throws(JSONParseError) -> JSONToken? {
        // Tokens are rarely given back: test before popping, so the usual call does not touch the array.
        if !pushedBack.isEmpty {
            return pushedBack.removeLast()
        }
        if !started { try start() }
        switch state {
        case .done:
            return nil
        case .firstValue:
            try skipWhitespace()
            if position >= end {
                throw fail(bytesRead == 0 || (bytesRead == 3 && hadByteOrderMark) ? "empty input" : "no JSON value (only whitespace)")
            }
            return try value()
        case .value:
            try skipWhitespace()
            return try value()
        case .firstElementOrEnd:
            try skipWhitespace()
            if peek(UInt8(ascii: "]")) { return close() }
            return try value()
        case .firstMemberOrEnd:
            try skipWhitespace()
            if peek(UInt8(ascii: "}")) { return close() }
            return try key()
        case .key:
            try skipWhitespace()
            return try key()
        case .afterValue:
            try skipWhitespace()
            guard let isObject = containers.last else {
                if position < end { throw fail("unexpected text after the JSON value") }
                state = .done
                return nil
            }
            if peek(UInt8(ascii: ",")) {
                position += 1
                if isObject {
                    try skipWhitespace()
                    return try key()
                }
                try skipWhitespace()
                return try value()
            }
            if isObject {
                guard peek(UInt8(ascii: "}")) else {
                    throw fail(position < end ? "expected ',' or '}' after an object member" : "unexpected end of input inside an object")
                }
            } else {
                guard peek(UInt8(ascii: "]")) else {
                    throw fail(position < end ? "expected ',' or ']' in an array" : "unexpected end of input inside an array")
                }
            }
            return close()
        }
    }

    /// Gives back the token just returned by ``nextToken()``, so that the next call returns it again (once).
    /// Tokens given back are returned last in, first out.
    public func pushBack(_ token: JSONToken) {
        pushedBack.append(token)
    }

    /// Skips the next value whole (a scalar, or a container with everything in it) without decoding any text.
    public func skipValue() throws(JSONParseError) {
        guard let token = try nextToken() else { return }
        guard token == .objectStart || token == .arrayStart else { return }
        try skipRest()
    }

    /// After an `objectStart` or `arrayStart` token, skips to the end of that container.
    public func skipRest() throws(JSONParseError) {
        let target = depth - 1
        while depth > target {
            guard try nextToken() != nil else { return }
        }
    }

    /// Reads the next value whole into a ``JSONValue``.
    public func readValue() throws(JSONParseError) -> JSONValue {
        guard let token = try nextToken() else { throw fail("unexpected end of input, expected a value") }
        return try readValue(startingWith: token)
    }

    /// Reads the rest of the value whose first token was just returned by ``nextToken()``.
    public func readValue(startingWith token: JSONToken) throws(JSONParseError) -> JSONValue {
        // Finished values wait on one flat stack until their container closes, as in the tree parser.
        var values: [JSONValue] = []
        var keys: [String] = []
        var frames: [(isObject: Bool, firstValue: Int, firstKey: Int)] = []
        var token = token
        while true {
            var completed: JSONValue
            switch token {
            case .objectStart:
                frames.append((true, values.count, keys.count))
                token = try require()
                continue
            case .arrayStart:
                frames.append((false, values.count, keys.count))
                token = try require()
                continue
            case .key:
                keys.append(try text())
                token = try require()
                continue
            case .objectEnd:
                guard let frame = frames.popLast() else { throw fail("unbalanced object end") }
                var members: [JSONObject.Member] = []
                members.reserveCapacity(values.count - frame.firstValue)
                for (key, value) in zip(keys[frame.firstKey...], values[frame.firstValue...]) {
                    members.append(JSONObject.Member(key, value))
                }
                keys.removeSubrange(frame.firstKey...)
                values.removeSubrange(frame.firstValue...)
                completed = .object(JSONObject(members))
            case .arrayEnd:
                guard let frame = frames.popLast() else { throw fail("unbalanced array end") }
                completed = .array(Array(values[frame.firstValue...]))
                values.removeSubrange(frame.firstValue...)
            case .string: completed = .string(try text())
            case .number: completed = .number(try text())
            case .true: completed = .bool(true)
            case .false: completed = .bool(false)
            case .null: completed = .null
            }
            if frames.isEmpty { return completed }
            values.append(completed)
            token = try require()
        }
    }

    private func require() throws(JSONParseError) -> JSONToken {
        guard let token = try nextToken() else { throw fail("unexpected end of input, expected a value") }
        return token
    }

    // MARK: Tokens

    private var hadByteOrderMark = false
    private var pushedBack: [JSONToken] = []
    private var checkedHead = false

    private func start() throws(JSONParseError) {
        started = true
        try refill()
        while end < 4, !atEOF { try refill() }
        if end >= 3, storage[0] == 0xEF, storage[1] == 0xBB, storage[2] == 0xBF {
            hadByteOrderMark = true
            position = 3
            // Columns on the first line count from after the mark, as the tree parser's do.
            lineStartBefore = 3
        }
    }

    private func value() throws(JSONParseError) -> JSONToken {
        guard position < end else { throw fail("unexpected end of input, expected a value") }
        let byte = storage[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard containers.count < maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
            position += 1
            let isObject = byte == UInt8(ascii: "{")
            containers.append(isObject)
            state = isObject ? .firstMemberOrEnd : .firstElementOrEnd
            return isObject ? .objectStart : .arrayStart
        case JSONScan.quote:
            try scanString()
            state = .afterValue
            return .string
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            state = .afterValue
            return .true
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            state = .afterValue
            return .false
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            state = .afterValue
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scan { window, start, final in JSONScan.number(window, from: start, final: final) }
            tokenShape = JSONScan.StringShape()
            state = .afterValue
            return .number
        default:
            throw fail("unexpected character \(JSONScan.describe(byte)), expected a value")
        }
    }

    private func key() throws(JSONParseError) -> JSONToken {
        guard peek(JSONScan.quote) else {
            throw fail(position < end ? "expected a quoted key" : "unexpected end of input, expected a key")
        }
        try scanString()
        let keyStart = tokenStart
        try skipWhitespace(keeping: keyStart)
        guard peek(UInt8(ascii: ":")) else { throw fail("expected ':' after a key") }
        position += 1
        state = .value
        return .key
    }

    private func close() -> JSONToken {
        position += 1
        let isObject = containers.removeLast()
        state = .afterValue
        return isObject ? .objectEnd : .arrayEnd
    }

    private func scanString() throws(JSONParseError) {
        var shape = JSONScan.StringShape()
        try scan { window, start, final in
            shape = JSONScan.StringShape()
            return JSONScan.string(window, from: start, final: final, shape: &shape)
        }
        tokenShape = shape
    }

    private func scanLiteral(_ literal: StaticString) throws(JSONParseError) {
        // The whole literal in the window (the usual case): compared at once, without the scanner.
        let length = literal.utf8CodeUnitCount
        var matches = position + length <= end
        var offset = 0
        while matches, offset < length {
            matches = storage[position + offset] == literal.utf8Start[offset]
            offset += 1
        }
        if matches {
            tokenStart = position
            tokenEnd = position + length
            position += length
            return
        }
        try scan { window, start, final in JSONScan.literal(window, from: start, literal, final: final) }
    }

    /// Scans the token at `position`, refilling the window until it is complete, and records its range.
    private func scan(_ scanner: (UnsafeRawBufferPointer, Int, Bool) -> JSONScan.Outcome) throws(JSONParseError) {
        while true {
            let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
            switch scanner(window, position, atEOF) {
            case .complete(let tokenEnd):
                tokenStart = position
                self.tokenEnd = tokenEnd
                position = tokenEnd
                return
            case .failure(let reason, let at):
                throw fail(reason, at: at)
            case .needMore:
                try refill(keeping: position)
            }
        }
    }

    // MARK: The window

    private func peek(_ byte: UInt8) -> Bool { position < end && storage[position] == byte }

    /// Moves past whitespace, refilling as needed; afterwards `position < end` unless the input has ended.
    ///
    /// Compact JSON has no whitespace between most tokens: a byte above 0x20 is no whitespace, so that case is
    /// answered here, inline, and only the rest goes to ``skipWhitespaceRun(keeping:)``.
    /// - Parameter keeping: an earlier offset whose bytes must stay in the window (a key before its colon).
    @inline(__always)
    private func skipWhitespace(keeping: Int? = nil) throws(JSONParseError) {
        if position < end, storage[position] > 0x20 { return }
        try skipWhitespaceRun(keeping: keeping)
    }

    private func skipWhitespaceRun(keeping: Int?) throws(JSONParseError) {
        var keeping = keeping
        while true {
            let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
            position = JSONScan.skipWhitespace(window, position)
            if position < end || atEOF { return }
            let shift = try refill(keeping: keeping ?? position)
            // Everything kept moved by `shift`, the offset to keep included (whitespace can span several refills).
            if let kept = keeping {
                keeping = kept - shift
                tokenStart -= shift
                tokenEnd -= shift
            }
        }
    }

    /// Drops consumed bytes (all before `keeping`, less a little context for error excerpts) and reads more.
    /// - Returns: how far the kept bytes moved towards the start.
    @discardableResult
    private func refill(keeping: Int? = nil) throws(JSONParseError) -> Int {
        let keepFrom = max(0, (keeping ?? position) - 32)
        if keepFrom > 0 {
            // Lines are only ever needed for an error, but dropped bytes cannot be read again: they are counted as
            // they go, a word at a time.
            let dropped = JSONScan.Words.newlines(UnsafeRawBufferPointer(rebasing: storage[0..<keepFrom]))
            linesBefore += dropped.count
            if let lineStart = dropped.lineStart { lineStartBefore = lineStart }
            lineStartBefore -= keepFrom
            // The regions overlap; copyMemory moves them as memmove does.
            UnsafeMutableRawBufferPointer(rebasing: storage[0..<(end - keepFrom)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[keepFrom..<end]))
            end -= keepFrom
            position -= keepFrom
            checkedUTF8 -= keepFrom
        }
        let received: Int
        switch source {
        case .data(let data, let next):
            let upper = min(data.count, next + chunkSize)
            source = .data(data, next: upper)
            received = next < upper ? append(data[(data.startIndex + next)..<(data.startIndex + upper)]) : 0
        case .handle(let handle, let pending?):
            source = .handle(handle, pending: nil)
            received = append(pending.isEmpty ? Data([0x20]) : pending)  // a space keeps an empty prefix from reading as the end
        case .handle(let handle, nil):
            received = try readChunk(from: handle)
        }
        if received > 0 {
            bytesRead += received
        } else {
            atEOF = true
        }
        let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
        if !checkedHead {
            // UTF-16 and UTF-32 are told apart from UTF-8 by the first bytes, before any of them is judged.
            guard end >= 4 || atEOF else { return keepFrom }
            checkedHead = true
            if let wide = JSONScan.wideEncoding(head: Array(window.prefix(4))) {
                throw JSONScan.error(wide, at: 0, in: UnsafeRawBufferPointer(rebasing: window[0..<0]))
            }
        }
        let check = JSONScan.checkUTF8(window, from: checkedUTF8, final: atEOF)
        if let invalid = check.invalid {
            let reason = "not valid UTF-8: byte \(String(format: "0x%02X", storage[invalid]))"
            throw JSONScan.error(reason, at: invalid, in: window, linesBefore: linesBefore, lineStartBefore: lineStartBefore)
        }
        checkedUTF8 = check.checkedEnd
        return keepFrom
    }

    /// Room for `count` more bytes after `end`: only a token longer than the window (a long string) makes it grow.
    private func reserve(_ count: Int) {
        guard storage.count - end < count else { return }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(storage.count * 2, end + count), alignment: 16)
        UnsafeMutableRawBufferPointer(rebasing: larger[0..<end]).copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<end]))
        storage.deallocate()
        storage = larger
    }

    /// Copies `chunk` in after `end`; returns its size.
    private func append(_ chunk: Data) -> Int {
        reserve(chunk.count)
        chunk.withUnsafeBytes { bytes in
            UnsafeMutableRawBufferPointer(rebasing: storage[end..<(end + bytes.count)]).copyMemory(from: bytes)
        }
        end += chunk.count
        return chunk.count
    }

    /// Reads a chunk from `handle` straight into the window (`read(2)` where there is one, so no `Data` is made and
    /// copied per chunk); returns how many bytes came, 0 at the end of the input.
    ///
    /// Like `FileHandle.read(upToCount:)`, it reads until the chunk is full or the input ends, so a pipe is read in
    /// whole chunks and a writer is never left with bytes unread because the reader stopped after a short read.
    private func readChunk(from handle: FileHandle) throws(JSONParseError) -> Int {
        reserve(chunkSize)
        #if canImport(Glibc) || canImport(Darwin)
        var received = 0
        while received < chunkSize {
            let count = read(handle.fileDescriptor, storage.baseAddress.map { $0 + end }, chunkSize - received)
            if count > 0 {
                end += count
                received += count
                continue
            }
            if count == 0 { break }
            let code = errno
            if code == EINTR { continue }
            throw JSONParseError(reason: "cannot be read (\(FileSystemReason.describe(errno: code)))", line: 0, column: 0, excerpt: "")
        }
        return received
        #else
        do {
            return append(try handle.read(upToCount: chunkSize) ?? Data())
        } catch {
            throw JSONParseError(reason: "cannot be read (\(FileSystemReason.describe(error)))", line: 0, column: 0, excerpt: "")
        }
        #endif
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        // Read a little past the problem so the excerpt shows what follows it, as the tree parser's does.
        var at = offset ?? position
        while end - at < 20, !atEOF {
            guard let shift = try? refill(keeping: at) else { break }
            at -= shift
        }
        let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
        return JSONScan.error(reason, at: at, in: window, linesBefore: linesBefore, lineStartBefore: lineStartBefore)
    }
}
