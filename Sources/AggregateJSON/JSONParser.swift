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

    /// Creates an error.
    public init(reason: String, line: Int, column: Int, excerpt: String) {
        self.reason = reason
        self.line = line
        self.column = column
        self.excerpt = excerpt
    }

    public var description: String {
        excerpt.isEmpty
            ? "\(reason) at line \(line), column \(column)"
            : "\(reason) at line \(line), column \(column): \(excerpt)"
    }
}

/// What a parse had to repair to read the document. Nothing in it makes the document invalid; `--verbose` reports it.
public struct JSONParseNotes: Sendable, Equatable {
    /// How many lone UTF-16 surrogate escapes (such as `"\ud800"`) were read as U+FFFD.
    public var replacedSurrogates = 0

    /// Creates empty notes.
    public init() {}

    /// One sentence for `--verbose`, or `nil` when nothing was repaired.
    public var summary: String? {
        guard replacedSurrogates > 0 else { return nil }
        let count = replacedSurrogates == 1 ? "1 lone UTF-16 surrogate escape" : "\(replacedSurrogates) lone UTF-16 surrogate escapes"
        return "\(count) (e.g. \\ud800, from text cut inside a surrogate pair) read as U+FFFD"
    }
}

extension JSONParseNotes {
    /// Runs `read` (a normalizer reading one response) and returns what parsing the response's body with
    /// `HTTPResponse.json()` had to repair: counted where the page is parsed, so no one keeps the body to parse
    /// it again. Parsing the body twice does not count its repairs twice.
    public static func collecting<T>(_ read: () throws -> T) rethrows -> (value: T, notes: JSONParseNotes) {
        let sink = Sink()
        let value = try $sink.withValue(sink, operation: read)
        return (value, sink.notes)
    }

    /// Hands `notes` to the ``collecting(_:)`` running around this call, if any: what `HTTPResponse.json()` does
    /// after parsing a body.
    public static func report(_ notes: JSONParseNotes) { sink?.notes = notes }

    /// Where ``report(_:)`` leaves its notes while ``collecting(_:)`` runs.
    @TaskLocal static var sink: Sink?

    /// The notes of the latest parse.
    final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var latest = JSONParseNotes()

        var notes: JSONParseNotes {
            get {
                lock.lock()
                defer { lock.unlock() }
                return latest
            }
            set {
                lock.lock()
                defer { lock.unlock() }
                latest = newValue
            }
        }
    }
}

/// A JSON parser that keeps key order and number text, needs no recursion, and bounds nesting depth.
///
/// It reads straight from the input's bytes in one pass (linear time); deep nesting is refused with an error instead
/// of exhausting the stack; a UTF-8 byte order mark is skipped; a lone UTF-16 surrogate escape reads as U+FFFD.
/// For documents too large to hold, ``JSONEventReader`` reads the same grammar as a stream of events.
public struct JSONParser: Sendable {
    /// The deepest nesting accepted. Deeper documents fail with a clear error.
    public var maxDepth: Int

    /// Creates a parser.
    /// - Parameter maxDepth: the deepest nesting of arrays and objects accepted.
    public init(maxDepth: Int = 512) { self.maxDepth = maxDepth }

    /// Parses one JSON document.
    /// - Throws: ``JSONParseError`` for anything that is not exactly one valid JSON value.
    public func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var notes = JSONParseNotes()
        return try parse(data, notes: &notes)
    }

    /// Parses one JSON document and tells in `notes` what had to be repaired (lone surrogates).
    /// - Throws: ``JSONParseError`` for anything that is not exactly one valid JSON value.
    public func parse(_ data: Data, notes: inout JSONParseNotes) throws(JSONParseError) -> JSONValue {
        let maxDepth = self.maxDepth
        let result: Result<(JSONValue, Int), JSONParseError> = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var bytes = raw
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                bytes = UnsafeRawBufferPointer(rebasing: raw[3...])
            }
            var builder = TreeBuilder(bytes: bytes, maxDepth: maxDepth)
            do throws(JSONParseError) {
                let value = try builder.parseDocument()
                return .success((value, builder.repairs))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let (value, repairs)):
            notes.replacedSurrogates += repairs
            return value
        case .failure(let error): throw error
        }
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

/// Builds the tree with an explicit stack: finished values wait on one flat stack until their container closes, so
/// each value is moved once and no container is copied while it grows.
private struct TreeBuilder {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0
    var repairs = 0
    private var values: [JSONValue] = []
    private var keys: [String] = []
    /// The open containers: whether each is an object, and where its values (and keys) start on the stacks.
    private var frames: [(isObject: Bool, firstValue: Int, firstKey: Int)] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        index = JSONScan.skipWhitespace(bytes, index)
        if index >= bytes.count { throw error(bytes.isEmpty ? "empty input" : "no JSON value (only whitespace)") }
        let value = try parseValue()
        index = JSONScan.skipWhitespace(bytes, index)
        if index < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        while true {
            index = JSONScan.skipWhitespace(bytes, index)
            guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
            var completed: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard frames.count < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
                index = JSONScan.skipWhitespace(bytes, index + 1)
                if peek(UInt8(ascii: "}")) {
                    index += 1
                    completed = .object(JSONObject())
                } else {
                    frames.append((true, values.count, keys.count))
                    keys.append(try parseKey())
                    continue
                }
            case UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
                index = JSONScan.skipWhitespace(bytes, index + 1)
                if peek(UInt8(ascii: "]")) {
                    index += 1
                    completed = .array([])
                } else {
                    frames.append((false, values.count, keys.count))
                    continue
                }
            case JSONScan.quote:
                completed = .string(try parseString())
            case UInt8(ascii: "t"):
                try literal("true")
                completed = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                completed = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                completed = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                switch JSONScan.number(bytes, from: start, final: true) {
                case .complete(let end): index = end
                case .failure(let reason, let at): throw error(reason, at: at)
                case .needMore: throw error("invalid number")
                }
                completed = .number(JSONScan.text(UnsafeRawBufferPointer(rebasing: bytes[start..<index])))
            default:
                throw error("unexpected character \(JSONScan.describe(bytes[index])), expected a value")
            }

            // Attach the completed value to its container, closing containers as they end.
            while true {
                guard let frame = frames.last else { return completed }
                values.append(completed)
                index = JSONScan.skipWhitespace(bytes, index)
                if peek(UInt8(ascii: ",")) {
                    index += 1
                    if frame.isObject {
                        index = JSONScan.skipWhitespace(bytes, index)
                        keys.append(try parseKey())
                    }
                    break
                }
                if frame.isObject {
                    guard peek(UInt8(ascii: "}")) else {
                        throw error(index < bytes.count ? "expected ',' or '}' after an object member" : "unexpected end of input inside an object")
                    }
                    var members: [JSONObject.Member] = []
                    members.reserveCapacity(values.count - frame.firstValue)
                    for (key, value) in zip(keys[frame.firstKey...], values[frame.firstValue...]) {
                        members.append(JSONObject.Member(key, value))
                    }
                    keys.removeSubrange(frame.firstKey...)
                    completed = .object(JSONObject(members))
                } else {
                    guard peek(UInt8(ascii: "]")) else {
                        throw error(index < bytes.count ? "expected ',' or ']' in an array" : "unexpected end of input inside an array")
                    }
                    completed = .array(Array(values[frame.firstValue...]))
                }
                index += 1
                values.removeSubrange(frame.firstValue...)
                frames.removeLast()
            }
        }
    }

    private mutating func parseKey() throws(JSONParseError) -> String {
        guard peek(JSONScan.quote) else {
            throw error(index < bytes.count ? "expected a quoted key" : "unexpected end of input, expected a key")
        }
        let key = try parseString()
        index = JSONScan.skipWhitespace(bytes, index)
        guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
        index += 1
        return key
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        var shape = JSONScan.StringShape()
        let start = index
        switch JSONScan.string(bytes, from: start, final: true, shape: &shape) {
        case .complete(let end):
            index = end
            guard let text = JSONScan.decode(bytes, start + 1, end - 1, shape: shape, repairs: &repairs) else {
                throw error("invalid UTF-8 in a string")
            }
            return text
        case .failure(let reason, let at): throw error(reason, at: at)
        case .needMore: throw error("unterminated string", at: bytes.count)
        }
    }

    private mutating func literal(_ text: StaticString) throws(JSONParseError) {
        switch JSONScan.literal(bytes, from: index, text, final: true) {
        case .complete(let end): index = end
        case .failure(let reason, let at): throw error(reason, at: at)
        case .needMore: throw error("invalid literal, expected \(text)")
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func error(_ reason: String, at position: Int? = nil) -> JSONParseError {
        JSONScan.error(reason, at: position ?? index, in: bytes)
    }
}
