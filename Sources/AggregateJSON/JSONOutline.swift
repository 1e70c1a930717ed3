import AggregateText
import Foundation

/// Text views of a JSON value for people and for grep: an indented outline and gron-like leaf paths.
///
/// Outline lines name each key (or `[index]`) with a short value: scalars as `name = "London French Meetup"`,
/// containers as `topics: array[3]` or `organizer: object{2}`, expanded below with two more spaces of indent down
/// to a depth. Traversal uses an explicit stack, so the deepest document the parser accepts is safe to print.
public enum JSONOutline {
    /// How an outline is laid out.
    public struct Options: Sendable, Equatable {
        /// How many levels below the node are listed; 1 lists only its own keys or elements.
        public var depth: Int
        /// The most keys or elements listed per container; the rest are summed up in one `… N more` line.
        public var maxChildren: Int
        /// Lines are cut to this many columns (`nil`: not cut).
        public var width: Int?

        /// Creates options.
        public init(depth: Int = 2, maxChildren: Int = 50, width: Int? = 80) {
            self.depth = max(1, depth)
            self.maxChildren = max(1, maxChildren)
            self.width = width
        }
    }

    /// The outline of `value`: its keys or elements (and theirs, down to `options.depth`), one per line.
    /// A scalar or an empty container is one line showing the value itself (`"text"`, `array[0]`).
    public static func lines(_ value: JSONValue, options: Options = Options()) -> [String] {
        lines(OutlineNode(value, expand: true, level: 0, options: options), options: options)
    }

    /// The lines of a skeleton (from a value or a stream): the one place the outline is laid out.
    static func lines(_ root: OutlineNode, options: Options) -> [String] {
        guard root.count > 0 else { return [fit(root.summary, options.width)] }
        var output: [String] = []
        // Each frame is one container being listed: its skeleton, the next child to list, and its level.
        var stack: [(node: OutlineNode, next: Int, level: Int)] = [(root, 0, 0)]
        while let (node, next, level) = stack.last {
            let indent = String(repeating: "  ", count: level)
            if next >= node.children.count {
                if next < node.count {
                    let rest = node.count - next
                    output.append(fit("\(indent)… \(rest) more \(node.isArray ? "element" : "key")\(rest == 1 ? "" : "s")", options.width))
                }
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let (label, child) = node.children[next]
            output.append(fit("\(indent)\(label)\(child.isContainer ? ":" : " =") \(child.summary)", options.width))
            if !child.children.isEmpty {
                stack.append((child, 0, level + 1))
            }
        }
        return output
    }

    /// Every leaf (scalar or empty container) below `value` as `path = json`, one per line, in document order,
    /// e.g. `results[0].topics[1].name = "Ruby"`. Values are complete JSON on one line (never cut).
    /// - Parameters:
    ///   - prefix: the path of `value` in its document, so printed paths can be given back to `--path`.
    ///   - emit: receives each line (without a newline), so huge documents need not be held as text.
    public static func paths(_ value: JSONValue, prefix: JSONPath = .root, emit: (String) -> Void) {
        var stack: [(value: JSONValue, path: JSONPath)] = [(value, prefix)]
        while let (node, path) = stack.popLast() {
            switch node {
            case .array(let elements) where !elements.isEmpty:
                for (index, element) in elements.enumerated().reversed() { stack.append((element, path.appending(.index(index)))) }
            case .object(let object) where !object.isEmpty:
                for member in object.members.reversed() { stack.append((member.value, path.appending(.key(member.key)))) }
            default:
                emit("\(path) = \(JSONWriter().string(node))")
            }
        }
    }

    /// All of ``paths(_:prefix:emit:)`` as an array.
    public static func paths(_ value: JSONValue, prefix: JSONPath = .root) -> [String] {
        var lines: [String] = []
        paths(value, prefix: prefix) { lines.append($0) }
        return lines
    }

    /// One outline line: `indent` + `label = value` for scalars, `label: array[3]` for containers.
    public static func line(label: String, value: JSONValue, indent: String = "") -> String {
        switch value {
        case .array, .object: return "\(indent)\(label): \(summary(value))"
        default: return "\(indent)\(label) = \(summary(value))"
        }
    }

    /// A short form of `value`: `array[3]`, `object{2}`, or the scalar as JSON (strings quoted, escapes kept so the
    /// value stays on one line).
    public static func summary(_ value: JSONValue) -> String {
        switch value {
        case .array(let elements): return "array[\(elements.count)]"
        case .object(let object): return "object{\(object.count)}"
        case .string(let text): return JSONWriter.quoted(text)
        case .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }

    /// How a key is shown in an outline: bare when it can be (see ``JSONPath/isBareKey(_:)``), else quoted.
    public static func label(forKey key: String) -> String {
        JSONPath.isBareKey(key) ? key : JSONWriter.quoted(key)
    }

    /// How an array index is shown in an outline: `[0]`.
    public static func label(forIndex index: Int) -> String { "[\(index)]" }

    private static func fit(_ line: String, _ width: Int?) -> String {
        guard let width else { return line }
        return TextLayout.truncate(line, to: width)
    }
}

/// The children of a container as (label, value) pairs, without copying them out.
public struct ChildList: Sendable {
    private let value: JSONValue

    /// The children of `value` (none for scalars).
    public init(_ value: JSONValue) { self.value = value }

    /// Whether the container is an array.
    public var isArray: Bool {
        if case .array = value { return true }
        return false
    }

    /// The number of children.
    public var count: Int { value.childCount }

    /// The label (`key` or `[index]`) and value of child number `position`.
    public subscript(position: Int) -> (label: String, value: JSONValue) {
        switch value {
        case .array(let elements): return (JSONOutline.label(forIndex: position), elements[position])
        case .object(let object):
            let member = object.members[position]
            return (JSONOutline.label(forKey: member.key), member.value)
        default: return (JSONOutline.label(forIndex: position), .null)  // a scalar has no children: its count is 0
        }
    }

    /// The path segment that leads to child number `position`.
    public func segment(_ position: Int) -> JSONPath.Segment {
        if case .object(let object) = value { return .key(object.members[position].key) }
        return .index(position)
    }
}

extension JSONValue {
    /// The number of keys or elements; 0 for scalars.
    public var childCount: Int {
        switch self {
        case .array(let elements): return elements.count
        case .object(let object): return object.count
        default: return 0
        }
    }
}
