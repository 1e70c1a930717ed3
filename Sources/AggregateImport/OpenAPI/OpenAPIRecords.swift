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
    static func find(in response: OpenAPISchema, document: OpenAPIDocument) -> OpenAPIRecords? {
        if response.type == "array" {
            guard let record = response.itemSchema(in: document), record.type == "object" else { return nil }
            return OpenAPIRecords(path: [], record: record, response: response)
        }
        guard response.type == "object", !isRecord(response) else { return nil }
        if let found = bestArray(in: response, document: document) {
            return OpenAPIRecords(path: [found.name], record: found.record, response: response)
        }
        for (name, child) in response.resolvedProperties(in: document) where child.type == "object" && !isRecord(child) {
            if let found = bestArray(in: child, document: document) {
                return OpenAPIRecords(path: [name, found.name], record: found.record, response: response)
            }
        }
        return nil
    }

    /// Whether an object is one record rather than a wrapper around a list: it has an id of its own (a single
    /// anime's `{"data": {"mal_id": 1, "titles": [...]}}` is one record whose `titles` are not the records).
    static func isRecord(_ object: OpenAPISchema) -> Bool {
        object.properties.contains { property in
            let key = FieldWords.key(property.name)
            return FieldWords.isIdentifierName(property.name) || ["id", "uuid", "guid", "malid", "objectid"].contains(key)
        }
    }

    /// The array of objects among `object`'s properties with the best name, ties in document order.
    private static func bestArray(in object: OpenAPISchema, document: OpenAPIDocument) -> (name: String, record: OpenAPISchema)? {
        let arrays = object.resolvedProperties(in: document).compactMap { name, schema -> (String, OpenAPISchema)? in
            guard schema.type == "array", let record = schema.itemSchema(in: document), record.type == "object", !record.properties.isEmpty else { return nil }
            return (name, record)
        }
        func rank(_ name: String) -> Int { listNames.firstIndex(of: FieldWords.key(name)) ?? listNames.count }
        return arrays.enumerated().min { (rank($0.element.0), $0.offset) < (rank($1.element.0), $1.offset) }.map { ($0.element.0, $0.element.1) }
    }

    /// The record's fields, two levels of objects down, as ``ItemMappingGuess`` reads them.
    func fields(in document: OpenAPIDocument) -> [RecordField] {
        var fields: [RecordField] = []
        for (name, schema) in record.resolvedProperties(in: document) {
            fields.append(RecordField(path: [name], type: Self.valueType(schema), format: schema.format, pointer: schema.pointer))
            guard schema.type == "object" else { continue }
            for (child, nested) in schema.resolvedProperties(in: document) {
                fields.append(RecordField(path: [name, child], type: Self.valueType(nested), format: nested.format, pointer: nested.pointer))
            }
        }
        return fields
    }

    static func valueType(_ schema: OpenAPISchema) -> RecordField.ValueType {
        schema.type.flatMap(RecordField.ValueType.init(rawValue:)) ?? .null
    }
}
