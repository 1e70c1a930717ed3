// AggregateYAML: YAML text in, `JSONValue` out — a small, strict reader for the YAML that API documents
// (OpenAPI, Swagger) use: one document, block and flow collections, every scalar style, anchors and aliases (with
// `<<` merges and a bound on alias expansion), core-schema tags. Anything outside that subset is an error with its
// line and column, never a guess. docs/yaml.md lists the subset, the errors and the limits. No HTTP, no providers.
// May import: AggregateText, AggregateJSON, Foundation
public import AggregateJSON
public import Foundation

/// Why a YAML document could not be read, and where: 1-based line and column (in characters) of the problem.
///
/// ``description`` is the one line a user sees, e.g. `line 12, column 5: a tab cannot indent a block`.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column of the problem, counted in characters.
    public var column: Int
    /// What is wrong, short and lower-case, e.g. `undefined alias *base`.
    public var reason: String

    /// Creates an error.
    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "line \(line), column \(column): \(reason)" }

    /// Document text as a reason shows it: at most `limit` characters, on one line. A key, scalar or name can hold
    /// line breaks (`"a\nb": 1`), and a reason is one line, so line breaks and other control characters are
    /// escaped (`\n`, `\t`, `\u{1B}`).
    static func excerpt(_ text: some StringProtocol, limit: Int = 60) -> String {
        var shown = ""
        for scalar in text.prefix(limit).unicodeScalars {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
                shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}

/// Reads one YAML document into a `JSONValue` (objects keep the document's key order; numbers keep JSON number text).
///
/// Scalars resolve by the YAML 1.2 core schema: `null`/`~`/empty are null, `true`/`false` booleans, decimal, `0x` and
/// `0o` integers and decimal floats numbers (written as JSON number text, so `0x1F` becomes `31` and `+1.` becomes
/// `1.0`); `.inf` and `.nan` have no JSON value and are an error (quote them to keep the text). Everything else is a
/// string. Keys that are not strings become their canonical text (`1`, `true`, `null`); a repeated key is an error.
public enum YAMLParser {
    /// Bounds that keep a hostile document from costing more than a real one.
    public struct Limits: Sendable, Equatable {
        /// How many nodes aliases may add in total when they are expanded (defeats "billion laughs" documents).
        public var aliasNodes: Int
        /// How deeply collections may nest.
        public var depth: Int

        /// Creates limits; the defaults are far above what any API document needs.
        public init(aliasNodes: Int = 1_000_000, depth: Int = 200) {
            self.aliasNodes = aliasNodes
            self.depth = depth
        }
    }

    /// Parses UTF-8 YAML bytes (a UTF-8 byte order mark is allowed).
    public static func parse(_ data: Data, limits: Limits = Limits()) throws(YAMLError) -> JSONValue {
        try parse([UInt8](data), limits: limits)
    }

    /// Parses YAML text.
    public static func parse(_ text: String, limits: Limits = Limits()) throws(YAMLError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    /// Parses UTF-8 YAML bytes (a UTF-8 byte order mark is allowed).
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(YAMLError) -> JSONValue {
        var reader = YAMLReader(bytes: try YAMLInput.prepare(bytes), limits: limits)
        return try reader.readStream()
    }
}
