import Foundation

// Browse's views computed from a ``JSONEventReader``, without the document in memory.

extension JSONPath {
    /// Whether a segment counts from the end (`[-1]`), which a stream cannot know until the container ends.
    public var hasNegativeIndex: Bool {
        segments.contains { segment in
            switch segment {
            case .index(let index): return index < 0
            case .name(let name): return name.hasPrefix("-")
            case .key: return false
            }
        }
    }

    /// Reads `reader` up to the node this path leads to, so that the node is the reader's next value.
    ///
    /// Gives the same answers as ``normalized(in:)`` for paths without negative indices (check
    /// ``hasNegativeIndex`` first), except that a repeated key leads into its first member.
    /// - Returns: the concrete path, or the same lookup error ``resolve(in:)`` would give (the reader is then
    ///   somewhere inside the document: drain it to check the rest).
    public func seek(in reader: JSONEventReader) throws(JSONParseError) -> Result<JSONPath, JSONPathLookupError> {
        var walked = JSONPath.root
        var concrete = JSONPath.root
        for segment in segments {
            let here = walked
            walked = walked.appending(segment)
            let place = here.isRoot ? "the top level" : here.description
            func fail(_ reason: String) -> Result<JSONPath, JSONPathLookupError> {
                .failure(JSONPathLookupError(failedAt: walked, reason: reason))
            }
            guard let token = try reader.nextToken() else { return fail("the document ended") }
            switch token {
            case .objectStart:
                var firstKeys: [String] = []
                var count = 0
                let wanted: String?
                switch segment {
                case .key(let name), .name(let name): wanted = name
                case .index: wanted = nil
                }
                var found = false
                while let next = try reader.nextToken(), next == .key {
                    let key = try reader.text()
                    if let wanted, key == wanted {
                        found = true
                        break
                    }
                    if firstKeys.count < 20 { firstKeys.append(key) }
                    count += 1
                    try reader.skipValue()
                }
                if found {
                    concrete = concrete.appending(.key(wanted ?? ""))
                    continue
                }
                let keys = Self.keyList(firstKeys: firstKeys, count: count)
                if case .index(let index) = segment {
                    return fail("\(place) is an object, not an array, so [\(index)] does not apply; \(keys)")
                }
                return fail("no key \(JSONWriter.quoted(wanted ?? "")) in \(place); \(keys)")
            case .arrayStart:
                let wanted: Int?
                switch segment {
                case .index(let index): wanted = index
                case .name(let name): wanted = Int(name)
                case .key: wanted = nil
                }
                var count = 0
                var found = false
                while true {
                    if count == wanted {
                        // Only an element follows, or the array's end.
                        guard let next = try reader.nextToken() else { break }
                        if next == .arrayEnd { break }
                        found = true
                        reader.pushBack(next)
                        break
                    }
                    guard let next = try reader.nextToken(), next != .arrayEnd else { break }
                    if next == .objectStart || next == .arrayStart { try reader.skipRest() }
                    count += 1
                }
                if found {
                    concrete = concrete.appending(.index(count))
                    continue
                }
                let range = Self.indexRange(count)
                guard let wanted else {
                    if case .key(let key) = segment {
                        return fail("\(place) is an array, not an object, so the key \(JSONWriter.quoted(key)) does not apply; \(range)")
                    }
                    return fail("\(place) is an array, not an object; \(range)")
                }
                return fail("index \(wanted) is out of range in \(place); \(range)")
            default:
                let typeName: String
                switch token {
                case .string: typeName = "string"
                case .number: typeName = "number"
                case .true, .false: typeName = "bool"
                default: typeName = "null"
                }
                return fail("\(place) is a \(typeName), which has no keys or elements")
            }
        }
        return .success(concrete)
    }
}

/// An outline's skeleton: what ``JSONOutline`` prints of a node, down to the outline's depth and no further, so a
/// stream can be outlined without holding the document.
struct OutlineNode {
    /// `array[3]`, `object{2}` or the scalar as JSON.
    var summary: String
    var isContainer: Bool
    var isArray: Bool
    /// All children, listed or not.
    var count: Int
    /// The listed children (at most the outline's `maxChildren`; none beyond its depth).
    var children: [(label: String, node: OutlineNode)]

    static func scalar(_ summary: String) -> OutlineNode {
        OutlineNode(summary: summary, isContainer: false, isArray: false, count: 0, children: [])
    }

    static func container(isArray: Bool, count: Int, children: [(label: String, node: OutlineNode)]) -> OutlineNode {
        OutlineNode(summary: isArray ? "array[\(count)]" : "object{\(count)}", isContainer: true, isArray: isArray, count: count, children: children)
    }

    /// The skeleton of `value`; `expand` lists its children, which are at `level`.
    init(_ value: JSONValue, expand: Bool, level: Int, options: JSONOutline.Options) {
        guard expand, value.childCount > 0 else {
            switch value {
            case .array(let elements): self = .container(isArray: true, count: elements.count, children: [])
            case .object(let object): self = .container(isArray: false, count: object.count, children: [])
            default: self = .scalar(JSONOutline.summary(value))
            }
            return
        }
        let list = ChildList(value)
        let listed = (0..<min(list.count, options.maxChildren)).map { position in
            let (label, child) = list[position]
            return (label, OutlineNode(child, expand: level + 1 < options.depth, level: level + 1, options: options))
        }
        self = .container(isArray: list.isArray, count: list.count, children: listed)
    }

    private init(summary: String, isContainer: Bool, isArray: Bool, count: Int, children: [(label: String, node: OutlineNode)]) {
        self.summary = summary
        self.isContainer = isContainer
        self.isArray = isArray
        self.count = count
        self.children = children
    }

    /// The skeleton of the value that starts with `token`, read from `reader`.
    static func read(
        _ reader: JSONEventReader, startingWith token: JSONToken, expand: Bool, level: Int, options: JSONOutline.Options
    ) throws(JSONParseError) -> OutlineNode {
        switch token {
        case .objectStart, .arrayStart:
            let isArray = token == .arrayStart
            var count = 0
            var children: [(label: String, node: OutlineNode)] = []
            while var next = try reader.nextToken(), next != .objectEnd, next != .arrayEnd {
                var label = ""
                if next == .key {
                    if expand && count < options.maxChildren { label = JSONOutline.label(forKey: try reader.text()) }
                    guard let value = try reader.nextToken() else { break }
                    next = value
                } else if expand && count < options.maxChildren {
                    label = JSONOutline.label(forIndex: count)
                }
                if expand && count < options.maxChildren {
                    let child = try read(reader, startingWith: next, expand: level + 1 < options.depth, level: level + 1, options: options)
                    children.append((label, child))
                } else if next == .objectStart || next == .arrayStart {
                    try reader.skipRest()
                }
                count += 1
            }
            return .container(isArray: isArray, count: count, children: children)
        case .string:
            if reader.tokenIsVerbatim { return .scalar(reader.withTokenBytes { JSONScan.text($0) }) }
            return .scalar(JSONWriter.quoted(try reader.text()))
        case .number: return .scalar(try reader.text())
        case .true: return .scalar("true")
        case .false: return .scalar("false")
        case .null: return .scalar("null")
        case .key, .objectEnd, .arrayEnd: throw JSONParseError(reason: "a value was expected", line: 0, column: 0, excerpt: "")
        }
    }
}

/// ``JSONPath/isBareKey(_:)`` for a key of plain ASCII: its only letters are `A`–`Z` and `a`–`z`.
private func isBareASCIIKey(_ key: UnsafeRawBufferPointer) -> Bool {
    guard let first = key.first, first != UInt8(ascii: "-"), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return key.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "$"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: ":"):
            return true
        default: return false
        }
    }
}

extension JSONOutline {
    /// ``lines(_:options:)`` of the reader's next value, read as a stream: memory is bounded by what the outline
    /// shows, not by the document.
    public static func lines(from reader: JSONEventReader, options: Options = Options()) throws(JSONParseError) -> [String] {
        guard let token = try reader.nextToken() else { return [] }
        return lines(try OutlineNode.read(reader, startingWith: token, expand: true, level: 0, options: options), options: options)
    }

    /// ``paths(_:prefix:emit:)`` of the reader's next value, read as a stream. Lines are handed over in batches of
    /// UTF-8 bytes (each line ends with a newline), so a huge document costs no more memory than one batch.
    public static func paths(
        from reader: JSONEventReader, prefix: JSONPath = .root, batchBytes: Int = 1 << 16, write: ([UInt8]) -> Void
    ) throws(JSONParseError) {
        let output = JSONByteBuffer(capacity: batchBytes + 4096)
        let path = JSONByteBuffer(capacity: 256)
        if !prefix.isRoot { Array(prefix.description.utf8).withUnsafeBytes { path.append($0) } }
        // Each open container: whether it is an array, its next index, and the path length to cut back to.
        var frames: [(isArray: Bool, next: Int, base: Int)] = []

        func emit(_ value: UnsafeRawBufferPointer) {
            if path.isEmpty { output.append(UInt8(ascii: ".")) } else { output.append(path) }
            output.append(0x20)
            output.append(UInt8(ascii: "="))
            output.append(0x20)
            output.append(value)
            output.append(0x0A)
            if output.count >= batchBytes {
                write(output.array)
                output.removeAll()
            }
        }
        func emit(_ text: StaticString) { emit(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        // A value that is written quoted again: escapes are worked out on bytes, with no String made on the way.
        var quoted: [UInt8] = []
        var unescaped: [UInt8] = []
        func emitRequoted() {
            unescaped.removeAll(keepingCapacity: true)
            reader.appendTokenText(to: &unescaped)
            quoted.removeAll(keepingCapacity: true)
            unescaped.withUnsafeBufferPointer { JSONWriter.appendQuoted(utf8: $0, to: &quoted) }
            quoted.withUnsafeBytes { emit($0) }
        }
        func keySegment(_ key: String, first: Bool) -> [UInt8] {
            if JSONPath.isBareKey(key) { return first ? Array(key.utf8) : [UInt8(ascii: ".")] + Array(key.utf8) }
            return [UInt8(ascii: "[")] + Array(JSONWriter.quoted(key).utf8) + [UInt8(ascii: "]")]
        }

        guard var token = try reader.nextToken() else { return }
        while true {
            // A value inside an array gets its index segment.
            if let top = frames.last, top.isArray, token != .arrayEnd {
                path.truncate(to: top.base)
                path.append(UInt8(ascii: "["))
                path.appendDecimal(top.next)
                path.append(UInt8(ascii: "]"))
                frames[frames.count - 1].next += 1
            }
            switch token {
            case .objectStart, .arrayStart:
                guard let next = try reader.nextToken() else { return }
                if next == .objectEnd || next == .arrayEnd {
                    emit(next == .objectEnd ? "{}" : "[]")
                } else {
                    frames.append((token == .arrayStart, 0, path.count))
                    token = next
                    continue
                }
            case .objectEnd, .arrayEnd:
                let frame = frames.removeLast()
                path.truncate(to: frame.base)
            case .key:
                let base = frames[frames.count - 1].base
                path.truncate(to: base)
                let first = path.isEmpty
                if reader.tokenIsVerbatim {
                    // Plain ASCII without escapes: the segment is made from the key's bytes, with no text decoded.
                    reader.withTokenBytes { quoted in
                        let key = UnsafeRawBufferPointer(rebasing: quoted[1..<(quoted.count - 1)])
                        if isBareASCIIKey(key) {
                            if !first { path.append(UInt8(ascii: ".")) }
                            path.append(key)
                        } else {
                            path.append(UInt8(ascii: "["))
                            path.append(quoted)  // a verbatim key is its own JSON text
                            path.append(UInt8(ascii: "]"))
                        }
                    }
                } else {
                    keySegment(try reader.text(), first: first).withUnsafeBytes { path.append($0) }
                }
                guard let value = try reader.nextToken() else { return }
                token = value
                continue
            case .string:
                if reader.tokenIsVerbatim {
                    reader.withTokenBytes { emit($0) }
                } else if reader.tokenIsUnescaped {
                    // Non-ASCII without escapes: the bytes between the quotes are the text (checked UTF-8 already).
                    reader.withTokenBytes { token in
                        quoted.removeAll(keepingCapacity: true)
                        JSONWriter.appendQuoted(utf8: JSONScan.typed(UnsafeRawBufferPointer(rebasing: token[1..<(token.count - 1)])), to: &quoted)
                    }
                    quoted.withUnsafeBytes { emit($0) }
                } else {
                    emitRequoted()
                }
            case .number: reader.withTokenBytes { emit($0) }
            case .true: emit("true")
            case .false: emit("false")
            case .null: emit("null")
            }
            if frames.isEmpty { break }
            guard let next = try reader.nextToken() else { break }
            token = next
        }
        if !output.isEmpty { write(output.array) }
    }
}
