import AggregateJSON
import Foundation

/// Where the records are in a response: the array of objects in its schema, at most two objects down.
struct OpenAPIRecords {
    /// The keys from the body to the array; empty when the body is the array.
    var path: [String]
    /// One record's schema.
    var record: OpenAPISchema
    /// The response's schema, for the paging fields beside the records and for the samples.
    var response: OpenAPISchema

    /// The definition's `records`: `.` for the body itself, else the keys joined.
    var jsonPath: String { path.isEmpty ? "." : RecordField(path: path, type: .array, pointer: "").jsonPath }

    /// Names of arrays that hold the records, best first; any other array of objects comes after them.
    static let listNames = ["data", "items", "results", "records", "docs", "entries", "hits", "list", "values", "rows", "elements", "nodes", "content"]

    /// The records of `response`, or `nil` when it holds no array of objects (one record, or not JSON objects).
    /// Among the arrays of objects in the body and one wrapper down, the first of: records with a title, named
    /// as the operation is (`topics` for `listLatestTopics`, beside its `users`), a usual list name, nearest the top.
    static func find(in response: OpenAPISchema, hint: Set<String> = [], document: OpenAPIDocument) -> OpenAPIRecords? {
        if response.type == "array" {
            guard let record = response.itemSchema(in: document), record.type == "object" else { return nil }
            return OpenAPIRecords(path: [], record: record, response: response)
        }
        guard response.type == "object", !isRecord(response) else { return nil }
        var candidates = arrays(in: response, document: document).map { (path: [$0.name], record: $0.record) }
        for (name, child) in response.resolvedProperties(in: document) where child.type == "object" && !isRecord(child) {
            candidates += arrays(in: child, document: document).map { (path: [name, $0.name], record: $0.record) }
        }
        func singular(_ word: String) -> String { word.hasSuffix("s") ? String(word.dropLast()) : word }
        let hinted = Set(hint.map(singular))
        func rank(_ path: [String], _ record: OpenAPISchema) -> [Int] {
            let name = path.last ?? ""
            let titled = ItemMappingGuess.Role.title.candidates(fields(of: record, in: document)).isEmpty ? 1 : 0
            let named = OpenAPINames.words(name).contains { hinted.contains(singular($0)) } ? 0 : 1
            return [titled, named, listNames.firstIndex(of: FieldWords.key(name)) ?? listNames.count, path.count]
        }
        let ranked = candidates.enumerated().map { (rank: rank($0.element.path, $0.element.record) + [$0.offset], candidate: $0.element) }
        guard let best = ranked.min(by: { $0.rank.lexicographicallyPrecedes($1.rank) }) else { return nil }
        return OpenAPIRecords(path: best.candidate.path, record: best.candidate.record, response: response)
    }

    /// The arrays of objects among `object`'s properties.
    private static func arrays(in object: OpenAPISchema, document: OpenAPIDocument) -> [(name: String, record: OpenAPISchema)] {
        object.resolvedProperties(in: document).compactMap { name, schema -> (String, OpenAPISchema)? in
            guard schema.type == "array", let record = schema.itemSchema(in: document), record.type == "object", !record.properties.isEmpty else { return nil }
            return (name, record)
        }
    }

    /// Whether an object is one record rather than a wrapper around a list: it has an id of its own (a single
    /// anime's `{"data": {"mal_id": 1, "titles": [...]}}` is one record whose `titles` are not the records).
    static func isRecord(_ object: OpenAPISchema) -> Bool {
        object.properties.contains { property in
            // Only the record's own id: `seen_notification_id` beside a list of notifications is not one.
            let key = FieldWords.key(property.name)
            return ["id", "uuid", "guid", "malid", "objectid"].contains(key)
        }
    }

    /// The record's fields, two levels of objects down, as ``ItemMappingGuess`` reads them.
    func fields(in document: OpenAPIDocument) -> [RecordField] { Self.fields(of: record, in: document) }

    static func fields(of record: OpenAPISchema, in document: OpenAPIDocument) -> [RecordField] {
        var fields: [RecordField] = []
        for (name, schema) in record.resolvedProperties(in: document) {
            fields.append(RecordField(path: [name], type: valueType(schema), format: schema.format, pointer: schema.pointer))
            guard schema.type == "object" else { continue }
            for (child, nested) in schema.resolvedProperties(in: document) {
                fields.append(RecordField(path: [name, child], type: valueType(nested), format: nested.format, pointer: nested.pointer))
            }
        }
        return fields
    }

    static func valueType(_ schema: OpenAPISchema) -> RecordField.ValueType {
        schema.type.flatMap(RecordField.ValueType.init(rawValue:)) ?? .null
    }
}
