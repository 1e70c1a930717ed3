import AggregateJSON
import Foundation

private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let newline: UInt8 = 0x0A

/// Reads one YAML document by recursive descent over its bytes.
///
/// Block structure follows indentation: every block-level reader returns with the cursor at the start of a line
/// (or at the end), having looked at most at the next content line's indentation, so its parent decides what
/// that line belongs to. Numbers of lines and columns are kept as the cursor moves, for errors.
struct YAMLReader {
    private let bytes: [UInt8]
    private let limits: YAMLParser.Limits
    private var pos = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    /// Every node made so far, aliases counted with their whole expansion: an anchor's size is the difference.
    private var nodeCount = 0
    private var aliasNodes = 0
    private var anchors: [String: Anchored] = [:]
    private var tagPrefixes: [String: String] = ["!": "!", "!!": "tag:yaml.org,2002:"]

    private struct Anchored {
        var value: JSONValue
        var nodes: Int
    }

    /// A place in the input, for errors and for going back to a line's start.
    private struct Mark {
        var pos: Int
        var line: Int
        var lineStart: Int
    }

    /// A node's anchor and tag (`&name !!str`).
    private struct Properties {
        var anchor: String?
        var tag: YAMLTag?
        var mark: Mark?
        var isEmpty: Bool { anchor == nil && tag == nil }
    }

    /// Where a block node starts, which decides whether a collection may start on that same line.
    private enum Situation {
        case lineStart, afterDash, afterKey, afterExplicitIndicator, afterDocumentStart
        /// `- - a`, `- key: value` and `? - a` nest compactly; `key: - a`, `key: a: b` and `--- a: b` are errors.
        var mayStartCollection: Bool { self != .afterKey && self != .afterDocumentStart }
    }

    /// A scalar or an alias read where a mapping key may be.
    private enum InlinePiece {
        case alias(JSONValue)
        case text([UInt8], plain: Bool)
    }

    /// The first key of a block mapping, already read when the mapping was recognized by its `:`.
    private struct PendingKey {
        var key: String
        var isMerge: Bool
        var mark: Mark
    }

    init(bytes: [UInt8], limits: YAMLParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    // MARK: - Cursor

    private func peek(_ offset: Int = 0) -> UInt8 {
        let index = pos + offset
        return index < bytes.count ? bytes[index] : 0
    }

    private func byte(at index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private var atEnd: Bool { pos >= bytes.count }
    private var column: Int { pos - lineStart }
    private var mark: Mark { Mark(pos: pos, line: line, lineStart: lineStart) }

    private mutating func reset(to mark: Mark) {
        pos = mark.pos
        line = mark.line
        lineStart = mark.lineStart
    }

    /// Goes back to the start of the line `nextContentLine` looked at (at the end there is no such line).
    private mutating func rewindToLineStart() {
        if pos < bytes.count { pos = lineStart }
    }

    private mutating func consumeNewline() {
        pos += 1
        line += 1
        lineStart = pos
    }

    /// Space, tab, line break or the end (the input holds no NUL byte, so 0 means the end).
    private static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab || byte == newline || byte == 0 }

    private static func isFlowIndicator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "{")
            || byte == UInt8(ascii: "}")
    }

    private func error(_ reason: String, at place: Mark? = nil) -> YAMLError {
        let at = place ?? mark
        return YAMLError(
            line: at.line, column: YAMLInput.characterColumn(bytes, lineStart: at.lineStart, offset: at.pos), reason: reason)
    }

    /// The character at the cursor, quoted for an error.
    private var shownCharacter: String {
        guard !atEnd else { return "the end of the document" }
        var end = pos + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'" + YAMLError.excerpt(String(decoding: bytes[pos..<end], as: UTF8.self)) + "'"
    }

    private mutating func enter() throws(YAMLError) {
        depth += 1
        if depth > limits.depth { throw error("collections nest deeper than \(limits.depth) levels") }
    }

    private mutating func skipInlineSpace() {
        while peek() == space || peek() == tab { pos += 1 }
    }

    /// Whether the cursor, past spaces, is at a line break, a comment or the end.
    private mutating func atLineEndOrComment() -> Bool {
        skipInlineSpace()
        let next = peek()
        return next == newline || next == UInt8(ascii: "#") || atEnd
    }

    /// Ends the current line: spaces, an optional comment, then the line break (or the end).
    private mutating func finishLine() throws(YAMLError) {
        skipInlineSpace()
        if peek() == UInt8(ascii: "#") {
            if pos > lineStart, bytes[pos - 1] != space, bytes[pos - 1] != tab {
                throw error("a comment needs a space before '#'")
            }
            while !atEnd, peek() != newline { pos += 1 }
        }
        if atEnd { return }
        guard peek() == newline else { throw error("unexpected \(shownCharacter) after the value on this line") }
        consumeNewline()
    }

    /// Moves from a line's start past blank and comment lines to the next line's first non-space character and
    /// returns its indentation, or `nil` at the end.
    private mutating func nextContentLine() throws(YAMLError) -> Int? {
        while pos < bytes.count {
            var first = pos
            while byte(at: first) == space { first += 1 }
            var content = first
            while byte(at: content) == space || byte(at: content) == tab { content += 1 }
            let next = byte(at: content)
            if content >= bytes.count {
                pos = content
                return nil
            }
            if next == newline {
                pos = content
                consumeNewline()
                continue
            }
            if next == UInt8(ascii: "#") {
                pos = content
                while !atEnd, peek() != newline { pos += 1 }
                if !atEnd { consumeNewline() }
                continue
            }
            if content != first {
                pos = first
                throw error("a tab cannot indent a block; use spaces")
            }
            pos = first
            return first - lineStart
        }
        return nil
    }

    /// `---` or `...` at the start of a line, followed by a space, a line break or the end.
    private func isDocumentMarker(at index: Int, _ marker: UInt8) -> Bool {
        byte(at: index) == marker && byte(at: index + 1) == marker
            && byte(at: index + 2) == marker && Self.isBlank(byte(at: index + 3))
    }

    private var atDocumentMarker: Bool {
        column == 0 && (isDocumentMarker(at: pos, UInt8(ascii: "-")) || isDocumentMarker(at: pos, UInt8(ascii: ".")))
    }

    // MARK: - Stream and directives

    /// Reads the stream's one document (a stream without one reads as null).
    mutating func readStream() throws(YAMLError) -> JSONValue {
        var sawDirective = false
        var sawYAMLDirective = false
        var indent = try nextContentLine()
        while indent == 0, peek() == UInt8(ascii: "%") {
            try readDirective(sawYAMLDirective: &sawYAMLDirective)
            sawDirective = true
            indent = try nextContentLine()
        }
        var value: JSONValue = .null
        if indent != nil, column == 0, isDocumentMarker(at: pos, UInt8(ascii: "-")) {
            pos += 3
            value = try parseNode(parentIndent: -1, situation: .afterDocumentStart)
        } else if sawDirective {
            throw error("directives must be followed by '---'")
        } else if indent != nil, !(column == 0 && isDocumentMarker(at: pos, UInt8(ascii: "."))) {
            value = try parseNode(parentIndent: -1, situation: .lineStart)
        }
        try finishStream()
        return value
    }

    private mutating func finishStream() throws(YAMLError) {
        var indent = try nextContentLine()
        var ended = false
        if indent != nil, column == 0, isDocumentMarker(at: pos, UInt8(ascii: ".")) {
            pos += 3
            try finishLine()
            ended = true
            indent = try nextContentLine()
        }
        guard indent != nil else { return }
        if ended || atDocumentMarker || (column == 0 && peek() == UInt8(ascii: "%")) {
            throw error("a second document: only one YAML document per file is supported")
        }
        throw error("unexpected content after the document's root node (check its indentation)")
    }

    private mutating func readWord() -> String {
        let start = pos
        while !Self.isBlank(peek()) { pos += 1 }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    private mutating func readDirective(sawYAMLDirective: inout Bool) throws(YAMLError) {
        let start = mark
        pos += 1
        let name = readWord()
        skipInlineSpace()
        switch name {
        case "YAML":
            if sawYAMLDirective { throw error("a second %YAML directive", at: start) }
            sawYAMLDirective = true
            let versionMark = mark
            let version = readWord()
            let parts = version.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil }) else {
                throw error("%YAML needs a version such as 1.2, not '\(YAMLError.excerpt(version))'", at: versionMark)
            }
            guard parts[0] == "1" else {
                throw error("YAML \(YAMLError.excerpt(version)) is not supported (only 1.x)", at: versionMark)
            }
        case "TAG":
            let handleMark = mark
            let handle = readWord()
            guard handle.hasPrefix("!"), handle.hasSuffix("!") else {
                throw error("%TAG needs a handle such as !e!, not '\(YAMLError.excerpt(handle))'", at: handleMark)
            }
            skipInlineSpace()
            let prefix = readWord()
            guard !prefix.isEmpty else { throw error("%TAG \(YAMLError.excerpt(handle)) needs a prefix") }
            tagPrefixes[handle] = prefix
        default:
            // Reserved directives are ignored, as the specification asks.
            while !atEnd, peek() != newline { pos += 1 }
        }
        try finishLine()
    }

    // MARK: - Properties, aliases, scalars

    private mutating func readName() -> String {
        let start = pos
        while !Self.isBlank(peek()), !Self.isFlowIndicator(peek()) { pos += 1 }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    private mutating func readProperties(flow: Bool) throws(YAMLError) -> Properties {
        var properties = Properties()
        while peek() == UInt8(ascii: "&") || peek() == UInt8(ascii: "!") {
            let start = mark
            if peek() == UInt8(ascii: "&") {
                if properties.anchor != nil { throw error("a node can have only one anchor") }
                pos += 1
                let name = readName()
                if name.isEmpty { throw error("an anchor needs a name after '&'", at: start) }
                properties.anchor = name
            } else {
                if properties.tag != nil { throw error("a node can have only one tag") }
                properties.tag = try readTag()
            }
            if properties.mark == nil { properties.mark = start }
            guard Self.isBlank(peek()) || (flow && Self.isFlowIndicator(peek())) else {
                throw error("expected a space after the anchor or tag")
            }
            skipInlineSpace()
        }
        return properties
    }

    private mutating func readTag() throws(YAMLError) -> YAMLTag {
        let start = mark
        pos += 1
        let fullName: String
        var shown: String
        if peek() == UInt8(ascii: "<") {
            pos += 1
            let nameStart = pos
            while !Self.isBlank(peek()), peek() != UInt8(ascii: ">") { pos += 1 }
            guard peek() == UInt8(ascii: ">") else { throw error("a verbatim tag needs a closing '>'", at: start) }
            fullName = String(decoding: bytes[nameStart..<pos], as: UTF8.self)
            pos += 1
            shown = "!<\(fullName)>"
        } else {
            let nameStart = pos
            while !Self.isBlank(peek()), !Self.isFlowIndicator(peek()) { pos += 1 }
            let rest = String(decoding: bytes[nameStart..<pos], as: UTF8.self)
            shown = "!" + rest
            if rest.isEmpty { return .nonSpecific }
            var handle = "!"
            var suffix = Substring(rest)
            if let bang = rest.firstIndex(of: "!") {
                handle = "!" + rest[...bang]
                suffix = rest[rest.index(after: bang)...]
            }
            guard let prefix = tagPrefixes[handle] else {
                throw error("undefined tag handle \(YAMLError.excerpt(handle))", at: start)
            }
            fullName = prefix + (suffix.removingPercentEncoding ?? String(suffix))
        }
        if fullName == "!" { return .nonSpecific }
        guard let tag = YAMLTag(fullName: fullName) else {
            shown = YAMLError.excerpt(shown)
            throw error(
                "unsupported tag \(shown): only the core schema's !!str, !!int, !!float, !!bool, !!null, !!map and !!seq",
                at: start)
        }
        return tag
    }

    private mutating func register(_ value: JSONValue, _ properties: Properties, since startCount: Int) {
        if let anchor = properties.anchor { anchors[anchor] = Anchored(value: value, nodes: nodeCount - startCount) }
    }

    private mutating func readAlias(_ properties: Properties) throws(YAMLError) -> JSONValue {
        let start = mark
        if !properties.isEmpty { throw error("an alias cannot have an anchor or a tag", at: properties.mark) }
        pos += 1
        let name = readName()
        if name.isEmpty { throw error("an alias needs a name after '*'", at: start) }
        guard let anchored = anchors[name] else { throw error("undefined alias *\(YAMLError.excerpt(name))", at: start) }
        aliasNodes += anchored.nodes
        nodeCount += anchored.nodes
        if aliasNodes > limits.aliasNodes {
            throw error("aliases expand to more than \(limits.aliasNodes) nodes (a \"billion laughs\" document?)", at: start)
        }
        return anchored.value
    }

    /// A scalar node from its text: plain text resolves by the core schema, quoted and block text is a string,
    /// unless a tag says otherwise.
    private mutating func makeScalar(_ text: [UInt8], plain: Bool, _ properties: Properties, at start: Mark) throws(YAMLError)
        -> JSONValue
    {
        let startCount = nodeCount
        nodeCount += 1
        let value: JSONValue
        do throws(YAMLScalar.Problem) {
            if properties.tag == .mapping || properties.tag == .sequence, text.isEmpty, plain {
                value = properties.tag == .mapping ? .object(JSONObject()) : .array([])
            } else if let tag = properties.tag {
                value = try YAMLScalar.resolve(text[...], tag: tag, plain: plain)
            } else if plain {
                value = try YAMLScalar.resolvePlain(text[...])
            } else {
                value = .string(String(decoding: text, as: UTF8.self))
            }
        } catch {
            throw self.error(error.reason, at: properties.mark ?? start)
        }
        register(value, properties, since: startCount)
        return value
    }

    /// A node with no content (`key:` with nothing after it): null, or what its tag makes of empty text.
    private mutating func emptyNode(_ properties: Properties) throws(YAMLError) -> JSONValue {
        try makeScalar([], plain: true, properties, at: properties.mark ?? mark)
    }

    private func keyText(_ value: JSONValue, at place: Mark) throws(YAMLError) -> String {
        guard let text = value.scalarText else {
            throw error("a mapping or sequence as a mapping key is not supported", at: place)
        }
        return text
    }

    private mutating func checkCollectionTag(_ properties: Properties, mapping: Bool) throws(YAMLError) {
        guard let tag = properties.tag, tag != .nonSpecific else { return }
        if mapping, tag == .mapping { return }
        if !mapping, tag == .sequence { return }
        throw error("a \(mapping ? "mapping" : "sequence") cannot have this tag", at: properties.mark)
    }

    // MARK: - Block nodes

    /// Reads the node after an indicator (`- `, `key:`, `? `, `---`) or at a line's start; `parentIndent` is the
    /// indentation of the collection it belongs to, which its lines must exceed.
    private mutating func parseNode(parentIndent: Int, situation: Situation) throws(YAMLError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        skipInlineSpace()
        let nodeColumn = column
        let properties = try readProperties(flow: false)
        guard atLineEndOrComment() else {
            return try parseContent(
                parentIndent: parentIndent, column: nodeColumn, situation: situation, outer: Properties(), inline: properties)
        }
        try finishLine()
        guard let indent = try nextContentLine(), !atDocumentMarker else {
            rewindToLineStart()
            return try emptyNode(properties)
        }
        if indent > parentIndent {
            let inline = try readProperties(flow: false)
            return try parseContent(
                parentIndent: parentIndent, column: indent, situation: .lineStart, outer: properties, inline: inline)
        }
        if indent == parentIndent, situation == .afterKey, peek() == UInt8(ascii: "-"), Self.isBlank(peek(1)) {
            return try parseSequence(indent: indent, properties)
        }
        rewindToLineStart()
        return try emptyNode(properties)
    }

    /// One node's properties, when a collection's (`outer`, on the line before) and a scalar's may not both be set.
    private func single(_ outer: Properties, _ inline: Properties) throws(YAMLError) -> Properties {
        if outer.isEmpty { return inline }
        if inline.isEmpty { return outer }
        throw error("a node cannot have two anchors or tags", at: inline.mark)
    }

    /// The node at the cursor, past its properties; `indent` is the column where the node (with its properties)
    /// starts, the indentation of a collection it starts.
    private mutating func parseContent(
        parentIndent: Int, column indent: Int, situation: Situation, outer: Properties, inline: Properties
    ) throws(YAMLError) -> JSONValue {
        let first = peek()
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "?"), Self.isBlank(peek(1)) {
            guard situation.mayStartCollection else {
                throw error(
                    first == UInt8(ascii: "-")
                        ? "a block sequence cannot start on the same line as its key" : "an explicit key cannot start here")
            }
            if !inline.isEmpty {
                throw error("an anchor or tag must be on the line before the block collection it belongs to", at: inline.mark)
            }
            if first == UInt8(ascii: "-") { return try parseSequence(indent: indent, outer) }
            return try parseMapping(indent: indent, outer, first: nil)
        }
        if first == UInt8(ascii: "|") || first == UInt8(ascii: ">") {
            return try parseBlockScalar(parentIndent: parentIndent, try single(outer, inline))
        }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            let start = mark
            let value = try parseFlowCollection(minIndent: parentIndent + 1, try single(outer, inline))
            skipInlineSpace()
            if peek() == UInt8(ascii: ":"), Self.isBlank(peek(1)) {
                throw error("a flow collection as a mapping key is not supported", at: start)
            }
            try finishLine()
            return value
        }
        let start = mark
        let (piece, isKey) = try readInlinePiece(parentIndent: parentIndent, keyOnly: false)
        if isKey {
            guard situation.mayStartCollection else {
                throw error("a mapping cannot start on the same line as its key; quote the value if it holds ': '", at: start)
            }
            let key = try keyFrom(piece, inline, at: start)
            return try parseMapping(indent: indent, outer, first: key)
        }
        let value: JSONValue
        switch piece {
        case .alias(let aliased):
            let properties = try single(outer, inline)
            if !properties.isEmpty { throw error("an alias cannot have an anchor or a tag", at: properties.mark) }
            value = aliased
        case .text(let text, let plain):
            value = try makeScalar(text, plain: plain, try single(outer, inline), at: start)
        }
        try finishLine()
        return value
    }

    private mutating func keyFrom(_ piece: InlinePiece, _ properties: Properties, at start: Mark) throws(YAMLError)
        -> PendingKey
    {
        switch piece {
        case .alias(let value):
            if !properties.isEmpty { throw error("an alias cannot have an anchor or a tag", at: properties.mark) }
            return PendingKey(key: try keyText(value, at: start), isMerge: false, mark: start)
        case .text(let text, let plain):
            let value = try makeScalar(text, plain: plain, properties, at: start)
            let isMerge = plain && properties.tag == nil && text == [UInt8(ascii: "<"), UInt8(ascii: "<")]
            return PendingKey(key: try keyText(value, at: start), isMerge: isMerge, mark: start)
        }
    }

    /// Reads an alias, a quoted scalar or a plain scalar in a block, and says whether `: ` follows it on its line
    /// (then it is a key and the cursor is on the `:`). `keyOnly` stops a plain scalar after its first line.
    private mutating func readInlinePiece(parentIndent: Int, keyOnly: Bool) throws(YAMLError) -> (InlinePiece, Bool) {
        let first = peek()
        let startLine = line
        if first == UInt8(ascii: "*") {
            let value = try readAlias(Properties())
            skipInlineSpace()
            return (.alias(value), peek() == UInt8(ascii: ":") && Self.isBlank(peek(1)))
        }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            let start = mark
            let text = try readQuoted(minIndent: parentIndent + 1)
            skipInlineSpace()
            let isKey = peek() == UInt8(ascii: ":") && Self.isBlank(peek(1))
            if isKey, line != startLine { throw error("an implicit key must be on one line", at: start) }
            return (.text(text, plain: false), isKey)
        }
        try checkPlainStart(flow: false)
        var (range, stop) = scanPlainLine(flow: false)
        var text = Array(bytes[range])
        if stop == .valueIndicator || keyOnly { return (.text(text, plain: true), stop == .valueIndicator) }
        if stop == .lineEnd { stop = try continuePlain(&text, minIndent: parentIndent + 1, flow: false) }
        if stop == .valueIndicator {
            throw error("': ' inside a multi-line plain scalar; quote the text, or put a key on one line")
        }
        return (.text(text, plain: true), false)
    }

    private mutating func parseSequence(indent: Int, _ properties: Properties) throws(YAMLError) -> JSONValue {
        try checkCollectionTag(properties, mapping: false)
        let startCount = nodeCount
        nodeCount += 1
        var items: [JSONValue] = []
        while true {
            pos += 1
            items.append(try parseNode(parentIndent: indent, situation: .afterDash))
            guard let next = try nextContentLine(), !atDocumentMarker, next >= indent else {
                rewindToLineStart()
                break
            }
            if next > indent { throw error("bad indentation: this line is indented more than the '-' entries above it") }
            guard peek() == UInt8(ascii: "-"), Self.isBlank(peek(1)) else {
                rewindToLineStart()
                break
            }
        }
        let value = JSONValue.array(items)
        register(value, properties, since: startCount)
        return value
    }

    private mutating func parseMapping(indent: Int, _ properties: Properties, first: PendingKey?) throws(YAMLError)
        -> JSONValue
    {
        try checkCollectionTag(properties, mapping: true)
        let startCount = nodeCount
        nodeCount += 1
        var builder = YAMLMappingBuilder()
        var pending = first
        while true {
            let key: PendingKey
            let value: JSONValue
            if let known = pending {
                pending = nil
                key = known
                pos += 1
                value = try parseNode(parentIndent: indent, situation: .afterKey)
            } else if peek() == UInt8(ascii: "?"), Self.isBlank(peek(1)) {
                let start = mark
                pos += 1
                let keyValue = try parseNode(parentIndent: indent, situation: .afterExplicitIndicator)
                key = PendingKey(key: try keyText(keyValue, at: start), isMerge: false, mark: start)
                if let next = try nextContentLine(), !atDocumentMarker, next == indent, peek() == UInt8(ascii: ":"),
                    Self.isBlank(peek(1))
                {
                    pos += 1
                    value = try parseNode(parentIndent: indent, situation: .afterExplicitIndicator)
                } else {
                    rewindToLineStart()
                    value = .null
                }
            } else if peek() == UInt8(ascii: "-"), Self.isBlank(peek(1)) {
                throw error("expected a mapping key, found a sequence entry '- '")
            } else {
                let start = mark
                let keyProperties = try readProperties(flow: false)
                let keyStart = mark
                if peek() == UInt8(ascii: "[") || peek() == UInt8(ascii: "{") {
                    throw error("a flow collection as a mapping key is not supported")
                }
                let (piece, isKey) = try readInlinePiece(parentIndent: indent, keyOnly: true)
                guard isKey else { throw error("expected 'key: value' in this mapping", at: start) }
                key = try keyFrom(piece, keyProperties, at: keyStart)
                pos += 1
                value = try parseNode(parentIndent: indent, situation: .afterKey)
            }
            try add(key, value, to: &builder)
            guard let next = try nextContentLine(), !atDocumentMarker, next >= indent else {
                rewindToLineStart()
                break
            }
            if next > indent { throw error("bad indentation: this line is indented more than the keys above it") }
        }
        let value = JSONValue.object(builder.object)
        register(value, properties, since: startCount)
        return value
    }

    private func add(_ key: PendingKey, _ value: JSONValue, to builder: inout YAMLMappingBuilder) throws(YAMLError) {
        if key.isMerge {
            guard builder.merge(value) else {
                throw error("'<<' merges a mapping or a list of mappings", at: key.mark)
            }
        } else if !builder.add(key.key, value) {
            throw error("duplicate key '\(YAMLError.excerpt(key.key))'", at: key.mark)
        }
    }

    // MARK: - Plain scalars

    private enum PlainStop { case lineEnd, comment, valueIndicator, flowIndicator }

    private func checkPlainStart(flow: Bool) throws(YAMLError) {
        let first = peek()
        switch first {
        case UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":"):
            let next = peek(1)
            if Self.isBlank(next) || (flow && Self.isFlowIndicator(next)) {
                throw error("unexpected \(shownCharacter) here")
            }
        case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ","),
            UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"), UInt8(ascii: "|"),
            UInt8(ascii: ">"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "%"), UInt8(ascii: "@"),
            UInt8(ascii: "`"):
            throw error("\(shownCharacter) cannot start a plain scalar here; quote the text")
        case newline, 0:
            throw error("expected a value, found \(atEnd ? "the end of the document" : "the end of the line")")
        default: return
        }
    }

    /// One line of a plain scalar from the cursor: its text without trailing spaces, and why it stopped (the cursor
    /// is left on the line break, the `#`, the `:` or the flow indicator).
    private mutating func scanPlainLine(flow: Bool) -> (Range<Int>, PlainStop) {
        let start = pos
        var end = pos
        while true {
            let current = peek()
            if atEnd || current == newline { return (start..<end, .lineEnd) }
            if current == UInt8(ascii: ":") {
                let next = peek(1)
                if Self.isBlank(next) || (flow && Self.isFlowIndicator(next)) { return (start..<end, .valueIndicator) }
            }
            if current == UInt8(ascii: "#"), pos > start, bytes[pos - 1] == space || bytes[pos - 1] == tab {
                return (start..<end, .comment)
            }
            if flow, Self.isFlowIndicator(current) { return (start..<end, .flowIndicator) }
            pos += 1
            if current != space, current != tab { end = pos }
        }
    }

    /// Folds the lines that continue a plain scalar (more indented than `minIndent - 1`, not comments) into `text`.
    private mutating func continuePlain(_ text: inout [UInt8], minIndent: Int, flow: Bool) throws(YAMLError) -> PlainStop {
        while !atEnd {
            let before = mark
            var breaks = 0
            consumeNewline()
            var content = pos
            while true {
                var first = pos
                while byte(at: first) == space { first += 1 }
                content = first
                while byte(at: content) == space || byte(at: content) == tab { content += 1 }
                guard byte(at: content) == newline else { break }
                breaks += 1
                pos = content
                consumeNewline()
            }
            let indent = {
                var first = pos
                while byte(at: first) == space { first += 1 }
                return first - pos
            }()
            let next = byte(at: content)
            let ends =
                content >= bytes.count || indent < minIndent || next == UInt8(ascii: "#")
                || (indent == 0 && (isDocumentMarker(at: pos, UInt8(ascii: "-")) || isDocumentMarker(at: pos, UInt8(ascii: "."))))
                || (flow && (Self.isFlowIndicator(next)
                    || (next == UInt8(ascii: ":") && (Self.isBlank(byte(at: content + 1)) || Self.isFlowIndicator(byte(at: content + 1))))))
                || (!flow && next == UInt8(ascii: ":") && Self.isBlank(byte(at: content + 1)))
            if ends {
                reset(to: before)
                return .lineEnd
            }
            if breaks == 0 {
                text.append(space)
            } else {
                text.append(contentsOf: repeatElement(newline, count: breaks))
            }
            pos = content
            let (range, stop) = scanPlainLine(flow: flow)
            text.append(contentsOf: bytes[range])
            if stop != .lineEnd { return stop }
        }
        return .lineEnd
    }

    // MARK: - Quoted scalars

    /// Reads a single- or double-quoted scalar from its opening quote; its continuation lines must be indented at
    /// least `minIndent`.
    private mutating func readQuoted(minIndent: Int) throws(YAMLError) -> [UInt8] {
        let open = mark
        let double = peek() == UInt8(ascii: "\"")
        let kind = double ? "double-quoted" : "single-quoted"
        pos += 1
        var text: [UInt8] = []
        var kept = 0  // text up to here survives the trimming before a line break
        while true {
            if atEnd { throw error("unterminated \(kind) scalar", at: open) }
            let current = peek()
            if !double, current == UInt8(ascii: "'") {
                if peek(1) == UInt8(ascii: "'") {
                    text.append(current)
                    pos += 2
                    kept = text.count
                    continue
                }
                pos += 1
                return text
            }
            if double, current == UInt8(ascii: "\"") {
                pos += 1
                return text
            }
            if double, current == UInt8(ascii: "\\") {
                if peek(1) == newline {
                    pos += 1
                    kept = text.count
                    let breaks = try skipQuotedBreak(minIndent: minIndent, open: open, kind: kind)
                    text.append(contentsOf: repeatElement(newline, count: breaks - 1))
                    kept = text.count
                    continue
                }
                try readEscape(into: &text)
                kept = text.count
                continue
            }
            if current == newline {
                text.removeSubrange(kept..<text.count)
                let breaks = try skipQuotedBreak(minIndent: minIndent, open: open, kind: kind)
                if breaks == 1 {
                    text.append(space)
                } else {
                    text.append(contentsOf: repeatElement(newline, count: breaks - 1))
                }
                kept = text.count
                continue
            }
            text.append(current)
            pos += 1
            if current != space, current != tab { kept = text.count }
        }
    }

    /// Moves past the line break at the cursor, blank lines and the next line's leading spaces; returns how many
    /// line breaks it crossed.
    private mutating func skipQuotedBreak(minIndent: Int, open: Mark, kind: String) throws(YAMLError) -> Int {
        var breaks = 0
        while peek() == newline {
            consumeNewline()
            breaks += 1
            if atDocumentMarker { throw error("a document marker inside a \(kind) scalar", at: open) }
            var first = pos
            while byte(at: first) == space { first += 1 }
            var content = first
            while byte(at: content) == space || byte(at: content) == tab { content += 1 }
            if content >= bytes.count { throw error("unterminated \(kind) scalar", at: open) }
            if byte(at: content) != newline, first - pos < minIndent {
                pos = first
                throw error("this line of a \(kind) scalar must be indented more than its parent")
            }
            pos = content
        }
        return breaks
    }

    private mutating func readEscape(into text: inout [UInt8]) throws(YAMLError) {
        let start = mark
        pos += 1
        let code = peek()
        pos += 1
        let simple: [UInt8: UInt32] = [
            UInt8(ascii: "0"): 0, UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, tab: 9,
            UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11, UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13,
            UInt8(ascii: "e"): 0x1B, space: 0x20, UInt8(ascii: "\""): 0x22, UInt8(ascii: "/"): 0x2F,
            UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "N"): 0x85, UInt8(ascii: "_"): 0xA0, UInt8(ascii: "L"): 0x2028,
            UInt8(ascii: "P"): 0x2029,
        ]
        var scalar: UInt32
        if let known = simple[code] {
            scalar = known
        } else {
            let digits: Int
            switch code {
            case UInt8(ascii: "x"): digits = 2
            case UInt8(ascii: "u"): digits = 4
            case UInt8(ascii: "U"): digits = 8
            default:
                pos -= 1
                throw error("unknown escape '\\\(atEnd ? "" : shownCharacter.dropFirst().dropLast())' in a double-quoted scalar", at: start)
            }
            scalar = try readHex(digits, escapeStart: start)
            if (0xD800...0xDBFF).contains(scalar), peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") {
                pos += 2
                let low = try readHex(4, escapeStart: start)
                guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone UTF-16 surrogate escape", at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw error("the escape names no Unicode character (a lone surrogate or past U+10FFFF)", at: start)
        }
        text.append(contentsOf: String(Character(unicode)).utf8)
    }

    private mutating func readHex(_ count: Int, escapeStart: Mark) throws(YAMLError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            let digit = peek()
            let number: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): number = digit - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): number = digit - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): number = digit - 0x41 + 10
            default: throw error("an escape needs \(count) hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | UInt32(number)
            pos += 1
        }
        return value
    }

    // MARK: - Block scalars

    private enum Chomping { case strip, clip, keep }

    /// Reads a `|` or `>` scalar: its header, then every line indented at least as its first non-blank line.
    private mutating func parseBlockScalar(parentIndent: Int, _ properties: Properties) throws(YAMLError) -> JSONValue {
        let start = mark
        let literal = peek() == UInt8(ascii: "|")
        pos += 1
        var chomping: Chomping?
        var explicit: Int?
        for _ in 0..<2 {
            let indicator = peek()
            if indicator == UInt8(ascii: "-") || indicator == UInt8(ascii: "+") {
                if chomping != nil { throw error("a block scalar has one chomping indicator") }
                chomping = indicator == UInt8(ascii: "-") ? .strip : .keep
                pos += 1
            } else if indicator >= UInt8(ascii: "1"), indicator <= UInt8(ascii: "9") {
                if explicit != nil { throw error("a block scalar has one indentation indicator") }
                explicit = Int(indicator - UInt8(ascii: "0"))
                pos += 1
            } else if indicator == UInt8(ascii: "0") {
                throw error("a block scalar's indentation indicator is 1 to 9")
            }
        }
        guard Self.isBlank(peek()) else { throw error("unexpected \(shownCharacter) after the block scalar's indicator") }
        try finishLine()
        let indent: Int
        if let explicit {
            indent = max(parentIndent, 0) + explicit
        } else {
            indent = try detectIndent(parentIndent: parentIndent)
        }
        // Each line's text (after the indentation) and whether a line break ends it.
        var lines: [(range: Range<Int>, broken: Bool)] = []
        while pos < bytes.count {
            if indent == 0, atDocumentMarker { break }
            var spaces = 0
            while spaces < indent, peek(spaces) == space { spaces += 1 }
            if spaces < indent {
                let after = pos + spaces
                if byte(at: after) == newline {
                    lines.append((after..<after, true))
                    pos = after
                    consumeNewline()
                    continue
                }
                if after >= bytes.count { pos = after }
                break
            }
            let textStart = pos + indent
            var end = textStart
            while end < bytes.count, bytes[end] != newline { end += 1 }
            lines.append((textStart..<end, end < bytes.count))
            pos = end
            if !atEnd { consumeNewline() }
        }
        var text: [UInt8] = []
        if let last = lines.lastIndex(where: { !$0.range.isEmpty }) {
            if literal {
                for index in 0...last {
                    if index > 0 { text.append(newline) }
                    text.append(contentsOf: bytes[lines[index].range])
                }
            } else {
                fold(lines[0...last].map(\.range), into: &text)
            }
            let trailing = lines[(last + 1)...].filter(\.broken).count
            switch chomping ?? .clip {
            case .strip: break
            case .clip: if lines[last].broken { text.append(newline) }
            case .keep:
                if lines[last].broken { text.append(newline) }
                text.append(contentsOf: repeatElement(newline, count: trailing))
            }
        } else if chomping == .keep {
            text.append(contentsOf: repeatElement(newline, count: lines.filter(\.broken).count))
        }
        return try makeScalar(text, plain: false, properties, at: start)
    }

    /// The indentation of a block scalar's first non-blank line; leading blank lines may not be indented more.
    private func detectIndent(parentIndent: Int) throws(YAMLError) -> Int {
        var lineAt = pos
        var widestBlank = 0
        var blankLine = line
        while lineAt < bytes.count {
            var first = lineAt
            while byte(at: first) == space { first += 1 }
            if byte(at: first) == newline {
                widestBlank = max(widestBlank, first - lineAt)
                lineAt = first + 1
                blankLine += 1
                continue
            }
            let indent = first - lineAt
            if first >= bytes.count || indent <= parentIndent { break }
            if widestBlank > indent {
                throw YAMLError(
                    line: blankLine, column: 1,
                    reason: "a leading blank line of a block scalar has more spaces than its first line")
            }
            return indent
        }
        return max(widestBlank, parentIndent + 1)
    }

    /// Folds a `>` scalar's lines: a single break between two lines that start with text becomes a space; blank
    /// lines, and breaks next to more-indented lines, are kept.
    private func fold(_ lines: [Range<Int>], into text: inout [UInt8]) {
        var pendingBreaks = 0
        var previousMoreIndented = false
        var isFirst = true
        for range in lines {
            if range.isEmpty {
                pendingBreaks += 1
                continue
            }
            let moreIndented = bytes[range.lowerBound] == space || bytes[range.lowerBound] == tab
            if isFirst {
                text.append(contentsOf: repeatElement(newline, count: pendingBreaks))
            } else if !previousMoreIndented, !moreIndented {
                if pendingBreaks == 0 {
                    text.append(space)
                } else {
                    text.append(contentsOf: repeatElement(newline, count: pendingBreaks))
                }
            } else {
                text.append(contentsOf: repeatElement(newline, count: pendingBreaks + 1))
            }
            text.append(contentsOf: bytes[range])
            pendingBreaks = 0
            previousMoreIndented = moreIndented
            isFirst = false
        }
    }

    // MARK: - Flow collections

    /// Skips spaces, comments and line breaks inside a flow collection; a line's content must be indented at least
    /// `minIndent`.
    private mutating func skipFlowSpace(minIndent: Int, open: Mark) throws(YAMLError) {
        while true {
            let current = peek()
            if current == space || current == tab {
                pos += 1
            } else if current == UInt8(ascii: "#"), pos == lineStart || bytes[pos - 1] == space || bytes[pos - 1] == tab {
                while !atEnd, peek() != newline { pos += 1 }
            } else if current == newline {
                consumeNewline()
                if atDocumentMarker { throw error("a document marker inside a flow collection", at: open) }
                var first = pos
                while byte(at: first) == space { first += 1 }
                var content = first
                while byte(at: content) == space || byte(at: content) == tab { content += 1 }
                let next = byte(at: content)
                if content < bytes.count, next != newline, next != UInt8(ascii: "#"), first - pos < minIndent {
                    pos = first
                    throw error("this line of a flow collection must be indented more than its parent")
                }
                pos = content
            } else {
                if atEnd {
                    throw error("unterminated flow \(bytes[open.pos] == UInt8(ascii: "[") ? "sequence" : "mapping")", at: open)
                }
                return
            }
        }
    }

    private mutating func parseFlowCollection(minIndent: Int, _ properties: Properties) throws(YAMLError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        let open = mark
        let isSequence = peek() == UInt8(ascii: "[")
        try checkCollectionTag(properties, mapping: !isSequence)
        let close = isSequence ? UInt8(ascii: "]") : UInt8(ascii: "}")
        pos += 1
        let startCount = nodeCount
        nodeCount += 1
        var items: [JSONValue] = []
        var builder = YAMLMappingBuilder()
        while true {
            try skipFlowSpace(minIndent: minIndent, open: open)
            if peek() == close {
                pos += 1
                break
            }
            let entryStart = mark
            let (key, value) = try parseFlowEntry(minIndent: minIndent, open: open, inSequence: isSequence)
            if isSequence {
                if let key {
                    var pair = YAMLMappingBuilder()
                    try add(key, value, to: &pair)
                    items.append(.object(pair.object))
                    nodeCount += 1
                } else {
                    items.append(value)
                }
            } else {
                try add(key ?? PendingKey(key: "", isMerge: false, mark: entryStart), value, to: &builder)
            }
            try skipFlowSpace(minIndent: minIndent, open: open)
            if peek() == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if peek() == close {
                pos += 1
                break
            }
            throw error("expected ',' or '\(isSequence ? "]" : "}")' in a flow \(isSequence ? "sequence" : "mapping"), found \(shownCharacter)")
        }
        let value: JSONValue = isSequence ? .array(items) : .object(builder.object)
        register(value, properties, since: startCount)
        return value
    }

    private func atFlowEntryEnd() -> Bool {
        let current = peek()
        return current == UInt8(ascii: ",") || current == UInt8(ascii: "]") || current == UInt8(ascii: "}")
    }

    /// One entry: a node, or `key: value` (`key` is nil for a plain node in a sequence; in a mapping a lone node is a
    /// key with a null value).
    private mutating func parseFlowEntry(minIndent: Int, open: Mark, inSequence: Bool) throws(YAMLError)
        -> (PendingKey?, JSONValue)
    {
        let start = mark
        var explicit = false
        if peek() == UInt8(ascii: "?"), Self.isBlank(peek(1)) {
            explicit = true
            pos += 1
            try skipFlowSpace(minIndent: minIndent, open: open)
        }
        if peek() == UInt8(ascii: ":"), Self.isBlank(peek(1)) || Self.isFlowIndicator(peek(1)) {
            throw error("a mapping key cannot be empty")
        }
        let keyStart = mark
        let (node, jsonLike, isMerge) = try parseFlowNode(minIndent: minIndent, open: open)
        let keyLine = line
        try skipFlowSpace(minIndent: minIndent, open: open)
        let hasValue =
            peek() == UInt8(ascii: ":") && (jsonLike || Self.isBlank(peek(1)) || Self.isFlowIndicator(peek(1)))
        if hasValue, inSequence, !explicit, line != keyLine {
            throw error("the key of a 'key: value' pair in a flow sequence must be on the line of its ':'")
        }
        if !hasValue {
            if inSequence, !explicit { return (nil, node) }
            return (PendingKey(key: try keyText(node, at: keyStart), isMerge: isMerge, mark: start), .null)
        }
        pos += 1
        let key = PendingKey(key: try keyText(node, at: keyStart), isMerge: isMerge, mark: keyStart)
        try skipFlowSpace(minIndent: minIndent, open: open)
        if atFlowEntryEnd() { return (key, .null) }
        let (value, _, _) = try parseFlowNode(minIndent: minIndent, open: open)
        return (key, value)
    }

    /// A node inside a flow collection; says whether it is JSON-like (quoted or a collection, after which `:` needs
    /// no space) and whether it is the merge key `<<`.
    private mutating func parseFlowNode(minIndent: Int, open: Mark) throws(YAMLError) -> (JSONValue, Bool, Bool) {
        let start = mark
        let properties = try readProperties(flow: true)
        if !properties.isEmpty { try skipFlowSpace(minIndent: minIndent, open: open) }
        let first = peek()
        if atFlowEntryEnd() || (first == UInt8(ascii: ":") && (Self.isBlank(peek(1)) || Self.isFlowIndicator(peek(1)))) {
            guard !properties.isEmpty else { throw error("an empty entry in a flow collection") }
            return (try emptyNode(properties), false, false)
        }
        switch first {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return (try parseFlowCollection(minIndent: minIndent, properties), true, false)
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            let text = try readQuoted(minIndent: minIndent)
            return (try makeScalar(text, plain: false, properties, at: start), true, false)
        case UInt8(ascii: "*"):
            return (try readAlias(properties), false, false)
        case UInt8(ascii: "|"), UInt8(ascii: ">"):
            throw error("a block scalar cannot be inside a flow collection")
        default:
            try checkPlainStart(flow: true)
            var (range, stop) = scanPlainLine(flow: true)
            var text = Array(bytes[range])
            if stop == .lineEnd { stop = try continuePlain(&text, minIndent: minIndent, flow: true) }
            let isMerge = properties.tag == nil && text == [UInt8(ascii: "<"), UInt8(ascii: "<")]
            return (try makeScalar(text, plain: true, properties, at: start), false, isMerge)
        }
    }
}

/// A mapping's members in document order: a key written twice is refused; keys merged by `<<` yield to the
/// mapping's own keys and to keys merged before them.
struct YAMLMappingBuilder {
    private var members: [JSONObject.Member] = []
    private var positions: [String: Int] = [:]
    private var ownKeys: Set<String> = []

    var object: JSONObject { JSONObject(members) }

    /// Adds the mapping's own `key`; `false` when the mapping already has it.
    mutating func add(_ key: String, _ value: JSONValue) -> Bool {
        guard ownKeys.insert(key).inserted else { return false }
        if let position = positions[key] {
            members[position].value = value
        } else {
            positions[key] = members.count
            members.append(JSONObject.Member(key, value))
        }
        return true
    }

    /// Merges a mapping or a list of mappings (`<<: *base`); `false` when `value` is neither.
    mutating func merge(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            for member in object.members where positions[member.key] == nil {
                positions[member.key] = members.count
                members.append(member)
            }
            return true
        case .array(let elements):
            guard elements.allSatisfy({ $0.object != nil }) else { return false }
            for element in elements { _ = merge(element) }
            return true
        default: return false
        }
    }
}
