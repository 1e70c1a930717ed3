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
/// the same scanner), except for bytes that are not UTF-8: each is judged when the reader reaches it (inside a string,
/// as the string is scanned; anywhere else it is an error anyway), and a bad one fails with the reason
/// `not valid UTF-8: byte 0xNN` (the tree parser names the string that holds it). A UTF-8 byte order mark is
/// skipped; UTF-16 and UTF-32 are recognised from the first bytes.
///
/// Tokens that lie whole in the window are read by one fast function without refills or error wording; anything
/// else (a token cut by the window's end, the first value, the end of the document, any error) goes to the reference
/// grammar, which has every error message. Both give the same tokens: the tests and the `json` fuzzer read every input
/// with the fast path on and off.
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
    private var atEOF = false
    private var started = false
    private var state = State.firstValue
    /// Whether the tokens that lie whole in the window are read by ``fastToken()`` (off only to test it against the
    /// reference grammar).
    private let fastPath: Bool
    /// For each open container (`0..<openCount`): whether it is an object. Grown by doubling, as deep as the input.
    private var containers: UnsafeMutablePointer<Bool>
    private var containerCapacity = 64
    private var openCount = 0
    /// How many bytes have been dropped from the front of the window: the window's first byte is input byte `dropped`.
    private var dropped = 0
    /// The lines of dropped bytes, for error positions: counted as they are dropped when the input cannot be read
    /// again (a pipe), else counted from the input when an error needs them.
    private var lineCounting: LineCounting
    /// Newlines in the bytes already dropped from the window, and where the current line started (relative), when
    /// ``lineCounting`` is ``LineCounting/asDropped``.
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

    private init(source: Source, maxDepth: Int, chunkSize: Int, fastPath: Bool = true) {
        self.source = source
        self.maxDepth = maxDepth
        self.chunkSize = max(16, chunkSize)
        self.fastPath = fastPath
        storage = .allocate(byteCount: self.chunkSize * 2, alignment: 16)
        containers = .allocate(capacity: containerCapacity)
        lineCounting = LineCounting.choose(for: source)
    }

    /// Reads `data` with the fast path on or off, for tests that compare the two.
    convenience init(data: Data, chunkSize: Int, fastPath: Bool) {
        self.init(source: .data(data, next: 0), maxDepth: 512, chunkSize: chunkSize, fastPath: fastPath)
    }

    /// Every token of `data` with its text and depth, then how reading ended (the error with its position and
    /// excerpt): what the tests and the `json` fuzzer compare between the fast path and the reference grammar.
    /// - Parameter skipDepth: containers opened at this depth are skipped with ``skipRest()`` (each one's trace is
    ///   where skipping ended).
    static func tokenTrace(_ data: Data, chunkSize: Int, fastPath: Bool, skipDepth: Int? = nil) -> [String] {
        let reader = JSONEventReader(data: data, chunkSize: chunkSize, fastPath: fastPath)
        var trace: [String] = []
        do throws(JSONParseError) {
            while let token = try reader.nextToken() {
                if token == .objectStart || token == .arrayStart, reader.depth == skipDepth {
                    try reader.skipRest()
                    trace.append("skipped \(token) to depth \(reader.depth)")
                    continue
                }
                switch token {
                case .key, .string, .number: trace.append("\(token) \(try reader.text()) at depth \(reader.depth)")
                default: trace.append("\(token) at depth \(reader.depth)")
                }
            }
            trace.append("end")
        } catch {
            trace.append("error \(error.reason) at \(error.line):\(error.column): \(error.excerpt)")
        }
        return trace
    }

    /// How reading `data` ends when `tokens` tokens are read and then the rest: skipped by ``skipToEnd()`` on the
    /// fast path, read token by token by the reference grammar without it. The tests and the `json` fuzzer compare
    /// the two.
    static func endingTrace(_ data: Data, chunkSize: Int, after tokens: Int, fastPath: Bool) -> String {
        let reader = JSONEventReader(data: data, chunkSize: chunkSize, fastPath: fastPath)
        do throws(JSONParseError) {
            for _ in 0..<tokens where try reader.nextToken() == nil { return "ended early" }
            if fastPath {
                try reader.skipToEnd()
            } else {
                while try reader.nextToken() != nil {}
            }
            return "end after \(reader.bytesRead) bytes"
        } catch {
            return "error \(error.reason) at \(error.line):\(error.column): \(error.excerpt)"
        }
    }

    deinit {
        storage.deallocate()
        containers.deallocate()
    }

    /// The current nesting depth: 0 outside every container.
    public var depth: Int { openCount }

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

    /// Appends the UTF-8 of the last `key` or `string` token's text (decoded, without quotes) to `output`, with no
    /// `String` made: its bytes were checked to be UTF-8 as they were scanned, and escapes decode to UTF-8.
    func appendTokenText(to output: inout [UInt8]) {
        let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
        JSONScan.appendUnescaped(window, tokenStart + 1, tokenEnd - 1, to: &output, repairs: &notes.replacedSurrogates)
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
        if fastPath, let token = fastToken() { return token }
        return try referenceToken()
    }

    /// The next token by the reference grammar: refills, the document's first value and end, and every error.
    private func referenceToken() throws(JSONParseError) -> JSONToken? {
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
            if peek(UInt8(ascii: "]")) { return close(at: position) }
            return try value()
        case .firstMemberOrEnd:
            try skipWhitespace()
            if peek(UInt8(ascii: "}")) { return close(at: position) }
            return try key()
        case .key:
            try skipWhitespace()
            return try key()
        case .afterValue:
            try skipWhitespace()
            guard openCount > 0 else {
                if position < end { throw fail("unexpected text after the JSON value") }
                state = .done
                return nil
            }
            let isObject = containers[openCount - 1]
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
            return close(at: position)
        }
    }

    /// The next token when it lies whole in the window and is well-formed, read with the window's bounds and the
    /// state in locals; `nil`, with nothing changed, for anything else, which ``referenceToken()`` then reads: a token
    /// cut by the window's end, the first value and what follows the last, and every error (so the wording of errors
    /// has one place).
    @inline(__always)
    private func fastToken() -> JSONToken? {
        guard let whole = WholeTokens(storage, end: end) else { return nil }
        let end = self.end
        let bytes = whole.bytes

        @inline(__always) func scalar(_ token: JSONToken, _ start: Int, _ after: Int, _ shape: JSONScan.StringShape) -> JSONToken {
            tokenStart = start
            tokenEnd = after
            tokenShape = shape
            position = after
            state = .afterValue
            return token
        }
        @inline(__always) func literal(_ token: JSONToken, _ text: StaticString, at index: Int) -> JSONToken? {
            guard let after = whole.literal(text, at: index) else { return nil }
            return scalar(token, index, after, JSONScan.StringShape())
        }
        @inline(__always) func value(at index: Int) -> JSONToken? {
            switch bytes[index] {
            case JSONScan.quote:
                var shape = JSONScan.StringShape()
                guard let after = whole.string(at: index, shape: &shape) else { return nil }
                return scalar(.string, index, after, shape)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard openCount < maxDepth else { return nil }
                let isObject = bytes[index] == UInt8(ascii: "{")
                open(isObject: isObject)
                position = index + 1
                state = isObject ? .firstMemberOrEnd : .firstElementOrEnd
                return isObject ? .objectStart : .arrayStart
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let after = whole.number(at: index) else { return nil }
                return scalar(.number, index, after, JSONScan.StringShape())
            case UInt8(ascii: "t"): return literal(.true, "true", at: index)
            case UInt8(ascii: "f"): return literal(.false, "false", at: index)
            case UInt8(ascii: "n"): return literal(.null, "null", at: index)
            default: return nil
            }
        }
        @inline(__always) func key(at index: Int) -> JSONToken? {
            var shape = JSONScan.StringShape()
            guard let (after, value) = whole.key(at: index, shape: &shape) else { return nil }
            tokenStart = index
            tokenEnd = after
            tokenShape = shape
            position = value
            state = .value
            return .key
        }
        let index = whole.skipBlank(position)
        guard index < end else { return nil }
        switch state {
        case .afterValue:
            guard openCount > 0 else { return nil }
            let isObject = containers[openCount - 1]
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") {
                let next = whole.skipBlank(index + 1)
                guard next < end else { return nil }
                return isObject ? key(at: next) : value(at: next)
            }
            guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
            return close(at: index)
        case .value:
            return value(at: index)
        case .key:
            return key(at: index)
        case .firstMemberOrEnd:
            return bytes[index] == UInt8(ascii: "}") ? close(at: index) : key(at: index)
        case .firstElementOrEnd:
            return bytes[index] == UInt8(ascii: "]") ? close(at: index) : value(at: index)
        case .firstValue, .done:
            return nil
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
        let target = openCount - 1
        while openCount > target {
            // Whole windows go by ``skipInWindow(downTo:)``; each token it leaves (a refill, an error) is read as
            // nextToken reads it.
            if fastPath, pushedBack.isEmpty, skipInWindow(downTo: target) { return }
            guard try nextToken() != nil else { return }
        }
    }

    /// Reads the rest of the document without decoding anything, so that it is known to be well-formed to its end
    /// (or the error is thrown): containers are skipped whole, as ``skipRest()`` skips them.
    public func skipToEnd() throws(JSONParseError) {
        while true {
            if openCount > 0 {
                try skipRest()
                continue
            }
            guard try nextToken() != nil else { return }
        }
    }

    /// Skips the tokens that lie whole in the window and are well-formed, as ``fastToken()`` reads them one by
    /// one, until only `target` containers are open; it stops before the first token that needs the reference grammar
    /// (one cut by the window's end, an error, nesting deeper than the container stack holds).
    ///
    /// The position, state and depth live in locals and are stored once, on the way out, where the per-token path
    /// stores them for every token: that, and not dispatching on the state per token, made skipping a densely nested
    /// document 1.7 times as fast.
    /// - Returns: whether the container closed (only `target` are open).
    private func skipInWindow(downTo target: Int) -> Bool {
        guard let whole = WholeTokens(storage, end: end) else { return false }
        let end = self.end
        let bytes = whole.bytes
        let containers = self.containers
        let deepest = min(maxDepth, containerCapacity)
        var depth = openCount
        var state = self.state
        // Every byte before `index` is consumed, and `state` says what may follow: the reference grammar can take
        // over from here at any point.
        var index = position
        defer {
            position = index
            self.state = state
            openCount = depth
        }
        /// The offset after the colon of the key at `at`, or `nil`.
        @inline(__always) func key(at: Int) -> Int? {
            var shape = JSONScan.StringShape()
            return whole.key(at: at, shape: &shape)?.value
        }
        /// Closes the innermost container at the `}` or `]` at `at`.
        @inline(__always) func close(at: Int) {
            depth -= 1
            index = at + 1
            state = .afterValue
        }

        // The state decides only where to start; from there, which token may come next is known by where the code is,
        // so no state is dispatched per token (mispredicted jumps were most of what was left).
        switch state {
        case .afterValue, .value:
            break
        case .firstMemberOrEnd, .firstElementOrEnd, .key:
            let at = whole.skipBlank(index)
            guard at < end else { return false }
            if state != .key, bytes[at] == (state == .firstMemberOrEnd ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                close(at: at)
                if depth == target { return true }
            } else if state == .firstElementOrEnd {
                state = .value
            } else {
                guard let after = key(at: at) else { return false }
                index = after
                state = .value
            }
        case .firstValue, .done:
            return false
        }
        while true {
            if state == .value {
                // A value.
                let at = whole.skipBlank(index)
                guard at < end else { return false }
                let byte = bytes[at]
                var after: Int?
                switch byte {
                case JSONScan.quote:
                    var shape = JSONScan.StringShape()
                    after = whole.string(at: at, shape: &shape)
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < deepest else { return false }
                    let isObject = byte == UInt8(ascii: "{")
                    containers[depth] = isObject
                    depth += 1
                    index = at + 1
                    state = isObject ? .firstMemberOrEnd : .firstElementOrEnd
                    let first = whole.skipBlank(index)
                    guard first < end else { return false }
                    if bytes[first] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        // Empty: closed at once, and what follows comes after a value.
                        close(at: first)
                        if depth == target { return true }
                    } else if isObject {
                        guard let afterKey = key(at: first) else { return false }
                        index = afterKey
                        state = .value
                        continue
                    } else {
                        state = .value
                        continue
                    }
                case UInt8(ascii: "1")...UInt8(ascii: "9"):
                    // A plain integer, the usual number, inline: its digits, then anything but a fraction or an
                    // exponent (the grammar judges what follows). Anything else is scanned in full.
                    var digit = at + 1
                    while digit < end, bytes[digit] &- UInt8(ascii: "0") < 10 { digit += 1 }
                    let plain = digit < end && bytes[digit] != UInt8(ascii: ".") && bytes[digit] | 0x20 != UInt8(ascii: "e")
                    after = plain ? digit : whole.number(at: at)
                case UInt8(ascii: "-"), UInt8(ascii: "0"): after = whole.number(at: at)
                case UInt8(ascii: "t"): after = whole.literal("true", at: at)
                case UInt8(ascii: "f"): after = whole.literal("false", at: at)
                case UInt8(ascii: "n"): after = whole.literal("null", at: at)
                default: after = nil
                }
                if state == .value {  // a scalar (an empty container is already closed)
                    guard let after else { return false }
                    index = after
                    state = .afterValue
                }
            }
            // After a value: a comma and the next member or element, or the container's end.
            while true {
                guard depth > 0 else { return false }  // the document's end: the reference grammar checks what follows
                let at = whole.skipBlank(index)
                guard at < end else { return false }
                let byte = bytes[at]
                let isObject = containers[depth - 1]
                if byte == UInt8(ascii: ",") {
                    index = at + 1
                    if isObject {
                        state = .key
                        guard let after = key(at: whole.skipBlank(index)) else { return false }
                        index = after
                    }
                    state = .value
                    break
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                close(at: at)
                if depth == target { return true }
            }
        }
    }

    /// Reads the next value whole into a ``JSONValue``.
    public func readValue() throws(JSONParseError) -> JSONValue {
        guard let token = try nextToken() else { throw fail("unexpected end of input, expected a value") }
        return try readValue(startingWith: token)
    }

    /// Reads the rest of the value whose first token was just returned by ``nextToken()``.
    public func readValue(startingWith token: JSONToken) throws(JSONParseError) -> JSONValue {
        try readValue(startingWith: token, selecting: nil)
    }

    /// Reads the rest of the value whose first token was just returned by ``nextToken()``, keeping of its objects
    /// only the members that `selection` names (all of them where it is `nil`); the others are skipped unread. The
    /// value's own syntax is checked as a whole either way.
    public func readValue(startingWith token: JSONToken, selecting selection: JSONSelection?) throws(JSONParseError) -> JSONValue {
        // Finished values wait on flat stacks until their container closes, as in the tree parser: an object's
        // members (each made when its value completes, from the key waiting for it) and an array's elements. They are
        // moved into the container, and the stacks are the reader's, kept between calls: a caller reading many
        // records would otherwise grow three arrays and count references for every value, twice.
        let stacks = valueStacks
        var frames = valueFrames
        valueFrames = []
        defer {
            stacks.elements.removeAll()
            stacks.members.removeAll()
            stacks.keys.removeAll()
            frames.removeAll(keepingCapacity: true)
            valueFrames = frames
        }
        // What the next container keeps: the member's selection in an object, the array's own in an array. Unowned:
        // the caller's selection holds every selection inside it for the whole call.
        var next = selection.map { Unmanaged.passUnretained($0) }
        var token = token
        while true {
            var completed: JSONValue
            switch token {
            case .objectStart:
                frames.append(ValueFrame(isObject: true, first: stacks.members.count, selection: next))
                token = try require()
                continue
            case .arrayStart:
                frames.append(ValueFrame(isObject: false, first: stacks.elements.count, selection: next))
                token = try require()
                continue
            case .key:
                if let kept = frames[frames.count - 1].selection {
                    guard let member = try selectedMember(of: kept.takeUnretainedValue()) else {
                        try skipValue()
                        token = try require()
                        continue
                    }
                    switch member {
                    case .whole: next = nil
                    case .inner(let inner): next = inner
                    case .same: next = kept
                    }
                } else {
                    next = nil
                }
                stacks.keys.push(try text())
                token = try require()
                continue
            case .objectEnd:
                guard let frame = frames.popLast() else { throw fail("unbalanced object end") }
                completed = .object(JSONObject(stacks.members.popArray(from: frame.first)))
            case .arrayEnd:
                guard let frame = frames.popLast() else { throw fail("unbalanced array end") }
                completed = .array(stacks.elements.popArray(from: frame.first))
            case .string: completed = .string(try text())
            case .number: completed = .number(try text())
            case .true: completed = .bool(true)
            case .false: completed = .bool(false)
            case .null: completed = .null
            }
            guard let top = frames.last else { return completed }
            if top.isObject {
                stacks.members.push(JSONObject.Member(stacks.keys.pop(), consume completed))
            } else {
                stacks.elements.push(consume completed)
                next = top.selection
            }
            token = try require()
        }
    }

    /// An open container of ``readValue(startingWith:selecting:)``: where its members or elements start on their
    /// stack, and what it keeps.
    private struct ValueFrame {
        var isObject: Bool
        var first: Int
        var selection: Unmanaged<JSONSelection>?
    }

    /// The stacks of ``readValue(startingWith:selecting:)``, empty between calls.
    private final class ValueStacks {
        let elements = MovingStack<JSONValue>()
        let members = MovingStack<JSONObject.Member>()
        /// The key of each open object's member whose value is being read.
        let keys = MovingStack<String>()
    }

    private let valueStacks = ValueStacks()
    private var valueFrames: [ValueFrame] = []

    /// What `selection` keeps of the member whose key was just read; `nil` to skip it.
    private func selectedMember(of selection: JSONSelection) throws(JSONParseError) -> JSONSelection.Kept? {
        if !tokenShape.escaped, !tokenShape.nonASCII {
            let key = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[(tokenStart + 1)..<(tokenEnd - 1)])
            let found = selection.kept(asciiKey: key)
            if found.decided { return found.kept }
        }
        return selection.members[try text()].map(JSONSelection.Kept.init)
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
            lineStartBefore = 3  // used when lines are counted as they are dropped; linesDropped() knows it otherwise
        }
    }

    private func value() throws(JSONParseError) -> JSONToken {
        guard position < end else { throw fail("unexpected end of input, expected a value") }
        let byte = storage[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard openCount < maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
            position += 1
            let isObject = byte == UInt8(ascii: "{")
            open(isObject: isObject)
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

    /// Closes the innermost container at the `}` or `]` at `index`: the fast path's and the reference grammar's.
    @inline(__always)
    private func close(at index: Int) -> JSONToken {
        openCount -= 1
        position = index + 1
        state = .afterValue
        return containers[openCount] ? .objectEnd : .arrayEnd
    }

    @inline(__always)
    private func open(isObject: Bool) {
        if openCount == containerCapacity { containers = doubled(containers, count: openCount, capacity: &containerCapacity) }
        containers[openCount] = isObject
        openCount += 1
    }

    private func scanString() throws(JSONParseError) {
        var shape = JSONScan.StringShape()
        try scan { window, start, final in
            shape = JSONScan.StringShape()
            return JSONScan.string(window, from: start, final: final, shape: &shape, checkUTF8: true)
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
            if case .asDropped = lineCounting {
                // Lines are only ever needed for an error, but these bytes cannot be read again: they are counted
                // as they go, a word at a time.
                let lines = JSONScan.Words.newlines(UnsafeRawBufferPointer(rebasing: storage[0..<keepFrom]))
                linesBefore += lines.count
                if let lineStart = lines.lineStart { lineStartBefore = lineStart }
                lineStartBefore -= keepFrom
            }
            // The regions overlap; copyMemory moves them as memmove does.
            UnsafeMutableRawBufferPointer(rebasing: storage[0..<(end - keepFrom)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[keepFrom..<end]))
            end -= keepFrom
            position -= keepFrom
            dropped += keepFrom
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
        if !checkedHead {
            // UTF-16 and UTF-32 are told apart from UTF-8 by the first bytes, before any of them is judged.
            guard end >= 4 || atEOF else { return keepFrom }
            checkedHead = true
            let window = UnsafeRawBufferPointer(start: storage.baseAddress, count: end)
            if let wide = JSONScan.wideEncoding(head: Array(window.prefix(4))) {
                throw JSONScan.error(wide, at: 0, in: UnsafeRawBufferPointer(rebasing: window[0..<0]))
            }
        }
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
        var reason = reason
        // Outside strings bytes above 0x7F are never valid JSON; one that is not UTF-8 either is named as such.
        if at < end, window[at] >= 0x80 {
            switch JSONScan.sequence(window, at: at) {
            case .valid: break
            case .cut where !atEOF: break
            case .cut, .invalid: reason = JSONScan.notUTF8(window[at])
            }
        }
        let lines = linesDropped()
        return JSONScan.error(reason, at: at, in: window, linesBefore: lines.count, lineStartBefore: lines.lineStartBefore)
    }

    // MARK: Lines, for errors

    /// How the newlines in bytes dropped from the window are known.
    private enum LineCounting {
        /// Counted as they are dropped: the input cannot be read again.
        case asDropped
        /// Counted from the input when an error needs them: the source's data, or a regular file read again with
        /// `pread` from this offset (where the reader started).
        case fromSource(fileOffset: Int64?)

        static func choose(for source: Source) -> LineCounting {
            switch source {
            case .data: return .fromSource(fileOffset: nil)
            case .handle(let handle, let prefix):
                #if canImport(Glibc) || canImport(Darwin)
                var status = stat()
                guard fstat(handle.fileDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .asDropped }
                let offset = Int64(lseek(handle.fileDescriptor, 0, SEEK_CUR)) - Int64(prefix?.count ?? 0)
                guard offset >= 0 else { return .asDropped }
                // A prefix was read from the file just before (an archive's `window.YTD… =` line): the reader starts
                // where it starts, if the file holds it there.
                if let prefix, !prefix.isEmpty {
                    var stored = [UInt8](repeating: 0, count: prefix.count)
                    let got = stored.withUnsafeMutableBytes { pread(handle.fileDescriptor, $0.baseAddress, prefix.count, off_t(offset)) }
                    guard got == prefix.count, stored.elementsEqual(prefix) else { return .asDropped }
                }
                return .fromSource(fileOffset: offset)
                #else
                return .asDropped
                #endif
            }
        }
    }

    /// The newlines in the bytes dropped so far, and where the line at the window's start began (relative to the
    /// window, so zero or negative): what ``JSONScan/error(_:at:in:linesBefore:lineStartBefore:)`` needs.
    private func linesDropped() -> (count: Int, lineStartBefore: Int) {
        // Columns on the first line count from after a byte order mark, as the tree parser's do.
        let firstLineStart = hadByteOrderMark ? 3 : 0
        switch (lineCounting, source) {
        case (.asDropped, _):
            return (linesBefore, lineStartBefore)
        case (.fromSource, .data(let data, _)):
            let lines = data.withUnsafeBytes { JSONScan.Words.newlines(UnsafeRawBufferPointer(rebasing: $0[0..<dropped])) }
            return (lines.count, (lines.lineStart ?? firstLineStart) - dropped)
        case (.fromSource(let fileOffset), .handle(let handle, _)):
            var count = 0
            var lineStart: Int?
            #if canImport(Glibc) || canImport(Darwin)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { chunk.deallocate() }
            var done = 0
            while done < dropped {
                let wanted = min(chunk.count, dropped - done)
                let got = pread(handle.fileDescriptor, chunk.baseAddress, wanted, off_t((fileOffset ?? 0) + Int64(done)))
                if got < 0, errno == EINTR { continue }
                // A file cut short since it was read gives what is left; the position is then the best known.
                guard got > 0 else { break }
                let lines = JSONScan.Words.newlines(UnsafeRawBufferPointer(rebasing: chunk[0..<got]))
                count += lines.count
                if let start = lines.lineStart { lineStart = done + start }
                done += got
            }
            #endif
            return (count, (lineStart ?? firstLineStart) - dropped)
        }
    }
}

/// The scans of a token that lies whole in the reader's window, shared by its two fast paths (``JSONEventReader``'s
/// `fastToken()` and `skipInWindow(downTo:)`): each gives the offset just after the token, or `nil` when the token is
/// cut by the window's end or is not well-formed, for the reference grammar to read and word.
private struct WholeTokens {
    let bytes: UnsafeMutablePointer<UInt8>
    let window: UnsafeRawBufferPointer

    /// The window `storage[0..<end]`; `nil` without storage.
    @inline(__always)
    init?(_ storage: UnsafeMutableRawBufferPointer, end: Int) {
        guard let base = storage.baseAddress else { return nil }
        bytes = base.assumingMemoryBound(to: UInt8.self)
        window = UnsafeRawBufferPointer(start: base, count: end)
    }

    /// The first byte at or after `index` that is not whitespace; compact JSON has none, which is answered inline.
    @inline(__always)
    func skipBlank(_ index: Int) -> Int {
        if index < window.count, bytes[index] > 0x20 { return index }
        return JSONScan.skipWhitespace(window, index)
    }

    /// A string whose opening quote is at `index`, its UTF-8 checked.
    @inline(__always)
    func string(at index: Int, shape: inout JSONScan.StringShape) -> Int? {
        guard case .complete(let after) = JSONScan.string(window, from: index, final: false, shape: &shape, checkUTF8: true) else { return nil }
        return after
    }

    /// A key at `index` and its colon: where the key's string ends, and where its value may start.
    @inline(__always)
    func key(at index: Int, shape: inout JSONScan.StringShape) -> (end: Int, value: Int)? {
        guard index < window.count, bytes[index] == JSONScan.quote, let after = string(at: index, shape: &shape) else { return nil }
        let colon = skipBlank(after)
        guard colon < window.count, bytes[colon] == UInt8(ascii: ":") else { return nil }
        return (after, colon + 1)
    }

    /// A number starting at `index` (a `-` or a digit).
    @inline(__always)
    func number(at index: Int) -> Int? {
        guard case .complete(let after) = JSONScan.number(window, from: index, final: false) else { return nil }
        return after
    }

    /// `true`, `false` or `null` (`text`) at `index`.
    @inline(__always)
    func literal(_ text: StaticString, at index: Int) -> Int? {
        let length = text.utf8CodeUnitCount
        guard index + length <= window.count, memcmp(bytes + index, text.utf8Start, length) == 0 else { return nil }
        return index + length
    }
}
