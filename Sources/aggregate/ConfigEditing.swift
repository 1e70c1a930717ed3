import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// A dotted key of the config file, such as `providers.tmdb.limit`, as `config set`, `unset` and `get` take it.
struct ConfigKey: Sendable, Equatable {
    /// The deepest setting the file has, `profiles.NAME.providers.PROVIDER.credentials.VARIABLE.env`, has 7 parts:
    /// a longer key names nothing, and refusing it up front keeps the editing (and the file) shallow.
    static let maxParts = 7

    /// The key as given.
    let text: String
    /// Its parts, 1 to ``maxParts``, none empty.
    let parts: [String]

    /// - Throws: a `usage` error (exit 64), one line naming the key, for an empty part or more than ``maxParts``.
    init(_ text: String) throws(AggregateError) {
        // At most one split more than allowed: a key of a million parts is refused without making a million strings.
        let parts = text.split(separator: ".", maxSplits: Self.maxParts, omittingEmptySubsequences: false)
        guard parts.count <= Self.maxParts else {
            let count = text.utf8.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
            throw AggregateError(.usage, "config: the key '\(Self.shown(text))' has \(count) parts, but a setting has at most \(Self.maxParts) (as in profiles.NAME.providers.tmdb.credentials.TMDB_ACCESS_TOKEN.env)")
        }
        guard !parts.contains(where: \.isEmpty) else {
            throw AggregateError(.usage, "config: '\(Self.shown(text))' is not a dotted key such as providers.tmdb.limit")
        }
        self.text = text
        self.parts = parts.map(String.init)
    }

    /// The key as an error line shows it: control characters escaped, and only its start when it is long.
    static func shown(_ text: String) -> String {
        let limit = 60
        let start = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return String(start.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined())
    }
}

/// The edits `config set`, `unset` and `get` make, on a document in memory (``ConfigFile/update`` reads and writes
/// the file around them, and checks the result as the file would be read).
enum ConfigEditor {
    /// The document with `key` set to the typed value of `text`; objects on the way are made as needed.
    /// - Throws: a `usage` error for a value of the wrong type for its setting.
    static func set(_ key: ConfigKey, to text: String, in document: JSONObject) throws(AggregateError) -> JSONObject {
        var result = document
        set(&result, key.parts[...], try value(for: key.parts, text: text))
        return result
    }

    /// The document without `key`, and without the objects that removing it left empty; `nil` when it is not there.
    static func unset(_ key: ConfigKey, in document: JSONObject) -> JSONObject? {
        var result = document
        return remove(&result, key.parts[...]) ? result : nil
    }

    /// The value at `key`, or `nil` when the document has none.
    static func value(at key: ConfigKey, in document: JSONObject) -> JSONValue? {
        var value: JSONValue = .object(document)
        for part in key.parts {
            guard let inner = value.object?[part] else { return nil }
            value = inner
        }
        return value
    }

    /// The typed JSON value for a setting: numbers for limit and timeout, booleans for allowHTTP, text otherwise.
    static func value(for path: [String], text: String) throws(AggregateError) -> JSONValue {
        let name = path.last ?? ""
        switch name {
        case "limit", "timeout", "cacheTTL":
            // Plain decimal only, as on the command line: other text (0x10, nan) is not a JSON number either.
            // Ranges are checked with the rest of the file, which names the file and the key.
            guard let value = DecimalText.number(text) else {
                throw AggregateError(.usage, "config: \(ConfigKey.shown(path.joined(separator: "."))) must be a number, not '\(ConfigKey.shown(text))'")
            }
            // Written in JSON's form: `+5`, `.25` and `3.` are decimal to a user but not JSON numbers.
            return .number(JSONNumberFormat.text(for: value))
        case "allowHTTP", "cache":
            guard let flag = Bool(text.lowercased()) else { throw AggregateError(.usage, "config: \(name) must be true or false, not '\(ConfigKey.shown(text))'") }
            return .bool(flag)
        default:
            return .string(text)
        }
    }

    /// Sets `path` in `object` (at most ``ConfigKey/maxParts`` deep, so the recursion is shallow).
    private static func set(_ object: inout JSONObject, _ path: ArraySlice<String>, _ value: JSONValue) {
        guard let key = path.first else { return }
        if path.count == 1 {
            object[key] = value
            return
        }
        // A credential given as a value becomes a reference when `.env` is set below it: a value that is not an
        // object is replaced by one.
        var inner = object[key]?.object ?? JSONObject()
        set(&inner, path.dropFirst(), value)
        object[key] = .object(inner)
    }

    private static func remove(_ object: inout JSONObject, _ path: ArraySlice<String>) -> Bool {
        guard let key = path.first, object[key] != nil else { return false }
        if path.count == 1 {
            object[key] = nil
            return true
        }
        guard case .object(var inner)? = object[key], remove(&inner, path.dropFirst()) else { return false }
        object[key] = inner.isEmpty ? nil : .object(inner)
        return true
    }
}
