import AggregateJSON
import Foundation

/// A response body for the emulator, made from a schema: deterministic, in the schema's types, formats, enums and
/// bounds, with a few records in the list and distinct ids, titles, dates and addresses in each.
struct OpenAPISampleSynthesis {
    let document: OpenAPIDocument
    /// How many records a list gets.
    static let recordCount = 3
    /// How deep objects are filled; deeper ones are left out (a recursive schema ends there too).
    static let maxDepth = 5

    /// The whole body: `records` holds ``recordCount`` records, and `patches` are applied after.
    func body(_ records: OpenAPIRecords, patches: [(path: [String], value: JSONValue)]) -> JSONValue {
        var body = value(records.response, name: "", index: 0, depth: 0, recordsAt: records.path.isEmpty ? [] : records.path)
        for patch in patches { body = Self.setting(body, at: patch.path, to: patch.value) }
        return body
    }

    /// A value for `schema` of a field named `name` in the `index`-th record. `recordsAt` is the path, from here, to
    /// the list that gets several records (`[]` when this is it).
    func value(_ schema: OpenAPISchema, name: String, index: Int, depth: Int, recordsAt: [String]? = nil) -> JSONValue {
        switch schema.type {
        case "object":
            guard depth < Self.maxDepth else { return .object(JSONObject()) }
            var members: [JSONObject.Member] = []
            for (key, child) in schema.resolvedProperties(in: document) {
                let below = recordsAt.flatMap { $0.first == key ? Array($0.dropFirst()) : nil }
                members.append(.init(key, value(child, name: key, index: index, depth: depth + 1, recordsAt: below)))
            }
            return .object(JSONObject(members))
        case "array":
            guard depth < Self.maxDepth, let item = schema.itemSchema(in: document) else { return .array([]) }
            let count = recordsAt == [] ? Self.recordCount : 1
            return .array((0..<count).map { value(item, name: name, index: recordsAt == [] ? $0 : index, depth: depth + 1) })
        case "integer", "number":
            return number(schema, name: name, index: index)
        case "boolean":
            return schema.example?.bool.map(JSONValue.bool) ?? schema.defaultValue?.bool.map(JSONValue.bool) ?? .bool(index % 2 == 0)
        case "string":
            return .string(text(schema, name: name, index: index))
        default:
            return schema.nullable ? .null : .string(text(schema, name: name, index: index))
        }
    }

    private func number(_ schema: OpenAPISchema, name: String, index: Int) -> JSONValue {
        if let first = schema.enumValues.first, first.numberText != nil { return first }
        if !FieldWords.isIdentifierName(name), let example = schema.example, example.numberText != nil { return example }
        let low = schema.minimum ?? 1
        var number = low + Double(index)
        if let maximum = schema.maximum, number > maximum { number = max(low, maximum) }
        if FieldWords.isTimeName(name), schema.format == nil, schema.minimum == nil { number = 1_767_225_600 + Double(index) * 86_400 }
        return schema.type == "integer" || number == number.rounded() ? .int(Int(number)) : .double(number)
    }

    private func text(_ schema: OpenAPISchema, name: String, index: Int) -> String {
        let day = String(format: "%02d", index + 1)
        switch schema.format {
        case "date-time": return "2026-01-\(day)T12:00:00Z"
        case "date": return "2026-01-\(day)"
        case "uri", "url", "uri-reference": return "https://example.com/\(Self.slug(name))/\(index + 1)"
        case "email": return "user\(index + 1)@example.com"
        case "uuid": return "00000000-0000-4000-8000-\(String(format: "%012d", index + 1))"
        default: break
        }
        if let word = schema.enumValues.first?.string { return word }
        let key = FieldWords.key(name)
        if FieldWords.isIdentifierName(name) || key == "id" || key == "uuid" || key == "slug" || key == "key" {
            return "\(Self.slug(name))-\(index + 1)"
        }
        if let example = schema.example?.string, !example.isEmpty {
            return ItemMappingGuess.Role.url.names.contains(key) || FieldWords.isTimeName(name) ? example : "\(example) \(index + 1)"
        }
        if ItemMappingGuess.Role.url.names.contains(key) || key.hasSuffix("url") || key.hasSuffix("uri") {
            return "https://example.com/\(Self.slug(name))/\(index + 1)"
        }
        if FieldWords.isTimeName(name), key.hasSuffix("at") || key.contains("date") { return "2026-01-\(day)T12:00:00Z" }
        var words = "\(OpenAPINames.words(name).joined(separator: " ").capitalizedFirst) \(index + 1)"
        if let maxLength = schema.maxLength, words.count > maxLength { words = String(words.prefix(max(1, maxLength))) }
        return words
    }

    static func slug(_ name: String) -> String { OpenAPINames.identifier(OpenAPINames.words(name)) ?? "item" }

    /// `value` with the member at `path` set (created when missing, objects only).
    static func setting(_ value: JSONValue, at path: [String], to new: JSONValue) -> JSONValue {
        guard let key = path.first else { return new }
        var object = value.object ?? JSONObject()
        object[key] = setting(object[key] ?? .object(JSONObject()), at: Array(path.dropFirst()), to: new)
        return .object(object)
    }

    /// The value at `path` in `value`.
    static func value(_ value: JSONValue, at path: [String]) -> JSONValue? {
        path.reduce(Optional(value)) { current, key in current?[key] }
    }
}

extension String {
    /// The text with its first letter upper-cased: `created at` → `Created at`.
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
