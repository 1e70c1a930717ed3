import Foundation

/// A path to a node inside a JSON document, such as `results[0].topics` or `results.0."urls.raw"`.
///
/// Syntax (what `aggregate browse --path` accepts):
/// - keys separated by dots: `results.topics`; an optional leading dot (`.results`) is allowed, and `""` or `.`
///   alone is the root;
/// - an index in brackets: `results[0]`, or as a dotted segment: `results.0`; a negative index counts from the end
///   (`[-1]` is the last element);
/// - a key with dots, brackets, spaces or quotes is quoted: `"a.b"`, `'a.b'`, `["a.b"]` or `['a.b']`;
///   double-quoted keys take JSON escapes (`"tab\there"`), single-quoted ones `\'` and `\\`.
///
/// A bare segment made of digits (`0`, `-1`) is an index when the node is an array and a key when it is an object,
/// so `results.0` works on arrays and `{"0": ...}` objects alike. A bracketed number is always an index and a quoted
/// segment always a key. ``description`` writes the canonical form that ``init(parsing:)`` reads back.
public struct JSONPath: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Segment: Sendable, Equatable, Hashable {
        /// A key of an object (written quoted, or bare when it is not a number).
        case key(String)
        /// An element of an array, negative from the end (written in brackets).
        case index(Int)
        /// A bare segment that is a number: an index in an array, a key in an object.
        case name(String)
    }

    /// The steps from the root.
    public var segments: [Segment]

    /// The root path.
    public static let root = JSONPath([])

    /// Creates a path from segments.
    public init(_ segments: [Segment] = []) { self.segments = segments }

    /// Reads a path written in the syntax above.
    /// - Throws: ``JSONPathSyntaxError`` naming the column of the first problem.
    public init(parsing text: String) throws(JSONPathSyntaxError) {
        var reader = PathReader(text)
        self.segments = try reader.read()
    }

    /// This path with `segment` appended.
    public func appending(_ segment: Segment) -> JSONPath { JSONPath(segments + [segment]) }

    /// Whether this is the root.
    public var isRoot: Bool { segments.isEmpty }

    /// The canonical text: `results[0].topics`, `["a.b"][-1]`, and `.` for the root.
    public var description: String {
        guard !segments.isEmpty else { return "." }
        var text = ""
        for segment in segments {
            switch segment {
            case .index(let index):
                text += "[\(index)]"
            case .name(let name):
                text += text.isEmpty ? name : ".\(name)"
            case .key(let key):
                if Self.isBareKey(key) {
                    text += text.isEmpty ? key : ".\(key)"
                } else {
                    text += "[\(JSONWriter.quoted(key))]"
                }
            }
        }
        return text
    }

    /// Whether `key` can be written without quotes and read back as the same key: it is not empty, does not start
    /// with a digit or `-` (those read as indices), and has only letters, digits, `_`, `-`, `$`, `@`, `/` and `:`.
    public static func isBareKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first != "-", !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-$@/:".unicodeScalars.contains(scalar)
        }
    }
}

/// Why a path's text could not be read.
public struct JSONPathSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The 1-based column (in characters) of the problem.
    public var column: Int

    public var description: String { "\(reason) at column \(column)" }
}

/// Why a path does not lead to a node in a document: the first segment that failed and what was there instead.
public struct JSONPathLookupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path up to and including the segment that failed.
    public var failedAt: JSONPath
    /// One sentence on what was there instead, e.g. `no key "topcs"; keys there: id, name, topics`.
    public var reason: String

    public var description: String { "\(failedAt): \(reason)" }
}

extension JSONPath {
    /// Follows the path from `root`.
    /// - Throws: ``JSONPathLookupError`` naming the first segment that does not exist and the keys or the index
    ///   range available there.
    public func resolve(in root: JSONValue) throws(JSONPathLookupError) -> JSONValue {
        try walk(root).value
    }

    /// The concrete path this path leads to in `root`: keys as keys, indices counted from the start, so
    /// `results.-1` in a three-element array becomes `results[2]`.
    /// - Throws: ``JSONPathLookupError`` as ``resolve(in:)`` does.
    public func normalized(in root: JSONValue) throws(JSONPathLookupError) -> JSONPath {
        try walk(root).path
    }

    private func walk(_ root: JSONValue) throws(JSONPathLookupError) -> (value: JSONValue, path: JSONPath) {
        var node = root
        var walked = JSONPath.root
        var concrete = JSONPath.root
        for segment in segments {
            let here = walked
            walked = walked.appending(segment)
            let (next, step) = try Self.step(into: node, segment, at: here, failing: walked)
            node = next
            concrete = concrete.appending(step)
        }
        return (node, concrete)
    }

    private static func integer(_ segment: Segment) -> Int? {
        switch segment {
        case .index(let index): return index
        case .name(let name): return Int(name)
        case .key: return nil
        }
    }

    private static func step(
        into node: JSONValue, _ segment: Segment, at here: JSONPath, failing: JSONPath
    ) throws(JSONPathLookupError) -> (JSONValue, Segment) {
        func fail(_ reason: String) -> JSONPathLookupError { JSONPathLookupError(failedAt: failing, reason: reason) }
        let place = here.isRoot ? "the top level" : here.description
        switch node {
        case .object(let object):
            let key: String
            switch segment {
            case .key(let name), .name(let name): key = name
            case .index(let index):
                throw fail("\(place) is an object, not an array, so [\(index)] does not apply; \(keyList(object))")
            }
            guard let value = object[key] else {
                throw fail("no key \(JSONWriter.quoted(key)) in \(place); \(keyList(object))")
            }
            return (value, .key(key))
        case .array(let elements):
            guard let index = integer(segment) else {
                if case .key(let key) = segment {
                    throw fail("\(place) is an array, not an object, so the key \(JSONWriter.quoted(key)) does not apply; \(indexRange(elements.count))")
                }
                throw fail("\(place) is an array, not an object; \(indexRange(elements.count))")
            }
            let position = index < 0 ? elements.count + index : index
            guard elements.indices.contains(position) else {
                throw fail("index \(index) is out of range in \(place); \(indexRange(elements.count))")
            }
            return (elements[position], .index(position))
        default:
            throw fail("\(place) is a \(node.typeName), which has no keys or elements")
        }
    }

    /// `keys there: a, b, c` (the first 20), or `it has no keys`.
    private static func keyList(_ object: JSONObject) -> String {
        keyList(firstKeys: object.keys.prefix(20), count: object.count)
    }

    /// ``keyList(_:)`` from the first keys and the count, for a reader that streams past the object.
    static func keyList(firstKeys: some Collection<String>, count: Int) -> String {
        guard count > 0 else { return "it has no keys" }
        let shown = firstKeys.prefix(20).map { isBareKey($0) ? $0 : JSONWriter.quoted($0) }
        let more = count > 20 ? " and \(count - 20) more" : ""
        return "keys there: \(shown.joined(separator: ", "))\(more)"
    }

    /// `it has 3 elements: indices 0...2 (or -3...-1)`, or `it is empty`.
    static func indexRange(_ count: Int) -> String {
        guard count > 0 else { return "it is empty" }
        return "it has \(count) element\(count == 1 ? "" : "s"): indices 0...\(count - 1) (or -\(count)...-1)"
    }
}

/// Reads the path syntax one Unicode scalar at a time: not by `Character`, because a key that starts with a
/// combining or prepended mark would merge with the quote or dot before it into one grapheme cluster and never
/// match the syntax, so a path `--paths` printed could not be read back.
private struct PathReader {
    let characters: [Unicode.Scalar]
    var position = 0

    init(_ text: String) { characters = Array(text.unicodeScalars) }

    private func text(_ range: Range<Int>) -> String {
        var result = ""
        result.unicodeScalars.append(contentsOf: characters[range])
        return result
    }

    mutating func read() throws(JSONPathSyntaxError) -> [JSONPath.Segment] {
        var segments: [JSONPath.Segment] = []
        if characters.isEmpty || characters == ["."] { return [] }
        if characters.first == "." { position = 1 }
        var expectSegment = true  // at the start or after a dot
        while position < characters.count {
            let character = characters[position]
            switch character {
            case "[":
                segments.append(try readBracket())
                expectSegment = false
            case "." where !expectSegment:
                position += 1
                expectSegment = true
                if position == characters.count { throw fail("the path ends with '.'; a key or index must follow") }
            case "." :
                throw fail("empty segment ('..'); write a key or an index between the dots")
            case "\"", "'":
                guard expectSegment else { throw fail("unexpected quote; separate segments with '.'") }
                segments.append(.key(try readQuoted()))
                expectSegment = false
            case "]":
                throw fail("unexpected ']' without '['")
            default:
                guard expectSegment else { throw fail("unexpected \(describe(character)); separate segments with '.'") }
                let start = position
                while position < characters.count, !".[]\"'".unicodeScalars.contains(characters[position]) {
                    position += 1
                }
                let bare = text(start..<position)
                if bare.allSatisfy(\.isWhitespace) {
                    position = start
                    throw fail("a key with spaces must be quoted")
                }
                segments.append(Self.isInteger(bare) ? .name(bare) : .key(bare))
                expectSegment = false
            }
        }
        return segments
    }

    private static func isInteger(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber } && Int(text) != nil
    }

    private mutating func readBracket() throws(JSONPathSyntaxError) -> JSONPath.Segment {
        position += 1  // [
        guard position < characters.count else { throw fail("unterminated '['") }
        let segment: JSONPath.Segment
        if characters[position] == "\"" || characters[position] == "'" {
            segment = .key(try readQuoted())
        } else {
            let start = position
            while position < characters.count, characters[position] != "]" { position += 1 }
            let text = self.text(start..<position).trimmingCharacters(in: .whitespaces)
            guard Self.isInteger(text), let index = Int(text) else {
                position = start
                throw fail(text.isEmpty
                    ? "empty brackets; write an index such as [0] or a quoted key such as [\"name\"]"
                    : "[\(text)] is not an index; write a number such as [0], or quote a key: [\"\(text)\"]")
            }
            segment = .index(index)
        }
        guard position < characters.count, characters[position] == "]" else { throw fail("expected ']'") }
        position += 1
        return segment
    }

    /// A quoted key; double quotes take JSON escapes, single quotes `\'` and `\\`.
    private mutating func readQuoted() throws(JSONPathSyntaxError) -> String {
        let quote = characters[position]
        let start = position
        position += 1
        var raw = ""
        while position < characters.count, characters[position] != quote {
            if characters[position] == "\\" {
                raw.append("\\")
                position += 1
                guard position < characters.count else { break }
            }
            raw.unicodeScalars.append(characters[position])
            position += 1
        }
        guard position < characters.count else {
            position = start
            throw fail("unterminated quoted key")
        }
        position += 1  // closing quote
        if quote == "\"" {
            let parsed: JSONValue
            do {
                parsed = try JSONParser().parse("\"\(raw)\"")
            } catch {
                position = start
                throw fail("invalid quoted key (\(error.reason))")
            }
            return parsed.string ?? raw
        }
        var key = ""
        var escaped = false
        for character in raw.unicodeScalars {
            if escaped || character != "\\" {
                key.unicodeScalars.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return key
    }

    private func describe(_ character: Unicode.Scalar) -> String { "'\(character)'" }

    private func fail(_ reason: String) -> JSONPathSyntaxError {
        JSONPathSyntaxError(reason: reason, column: min(position, characters.count) + 1)
    }
}
