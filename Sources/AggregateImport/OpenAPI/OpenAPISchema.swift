import AggregateJSON
import Foundation

/// One schema with its `$ref`s followed and its `allOf` merged (and the first non-null `oneOf`/`anyOf` taken):
/// what the importer needs to read a response's records, a parameter's type and a sample's values. Properties and
/// items stay unresolved until someone descends into them, so a large document is only read where it is used.
struct OpenAPISchema {
    var pointer: String
    /// `object`, `array`, `string`, `integer`, `number`, `boolean`; `null` is ``nullable`` instead.
    var types: [String] = []
    var nullable = false
    var format: String?
    var properties: [(name: String, value: JSONValue, pointer: String)] = []
    var items: (value: JSONValue, pointer: String)?
    var enumValues: [JSONValue] = []
    var example: JSONValue?
    var defaultValue: JSONValue?
    var minimum: Double?
    var maximum: Double?
    var maxLength: Int?
    /// The name of the last component it was reached through (`anime` for `#/components/schemas/anime`).
    var referenceName: String?
    /// The `$ref`s followed from the response down to here: one seen again is a recursion, not followed.
    var references: [String] = []

    /// The type that decides its shape: the declared one, else what its keywords imply.
    var type: String? {
        if let first = types.first { return first }
        if !properties.isEmpty { return "object" }
        if items != nil { return "array" }
        if let value = enumValues.first ?? example { return OpenAPISchema.typeName(of: value) }
        return nil
    }

    static func typeName(of value: JSONValue) -> String? {
        switch value {
        case .string: "string"
        case .number(let text): text.contains(".") ? "number" : "integer"
        case .bool: "boolean"
        case .array: "array"
        case .object: "object"
        case .null: nil
        }
    }

    /// The property named `name`, resolved.
    func property(_ name: String, in document: OpenAPIDocument) -> OpenAPISchema? {
        guard let found = properties.first(where: { $0.name == name }) else { return nil }
        return OpenAPISchema.read(found.value, pointer: found.pointer, in: document, references: references)
    }

    /// The array's item schema, resolved.
    func itemSchema(in document: OpenAPIDocument) -> OpenAPISchema? {
        guard let items else { return nil }
        return OpenAPISchema.read(items.value, pointer: items.pointer, in: document, references: references)
    }

    /// Every property, resolved (a recursive one is left out).
    func resolvedProperties(in document: OpenAPIDocument) -> [(name: String, schema: OpenAPISchema)] {
        properties.compactMap { property in
            OpenAPISchema.read(property.value, pointer: property.pointer, in: document, references: references).map { (property.name, $0) }
        }
    }

    /// The most `allOf`/`oneOf` levels merged into one schema, and the most `$ref`s on one path from the response.
    static let maxDepth = 24

    /// Reads `value` (found at `pointer`), or `nil` when it is a recursion, a reference to nowhere, or not a schema.
    static func read(_ value: JSONValue, pointer: String, in document: OpenAPIDocument, references: [String] = [], depth: Int = 0) -> OpenAPISchema? {
        guard depth < maxDepth, references.count < maxDepth else { return nil }
        var references = references
        var current = (value: value, pointer: pointer)
        var name: String? = nil
        while let reference = current.value["$ref"]?.string {
            guard !references.contains(reference), let target = document.resolve(["$ref": .string(reference)], pointer: current.pointer) else { return nil }
            references.append(reference)
            name = OpenAPIDocument.referenceName(current.value)
            current = target
        }
        guard let object = current.value.object else { return nil }
        var schema = OpenAPISchema(pointer: current.pointer, referenceName: name, references: references)
        schema.take(object)
        if let members = object["allOf"]?.array {
            for (index, member) in members.enumerated() {
                if let part = read(member, pointer: current.pointer + "/allOf/\(index)", in: document, references: references, depth: depth + 1) {
                    schema.merge(part)
                }
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            guard let members = object[keyword]?.array else { continue }
            let parts = members.enumerated().compactMap { index, member in
                read(member, pointer: current.pointer + "/\(keyword)/\(index)", in: document, references: references, depth: depth + 1)
            }
            if parts.contains(where: { $0.types.isEmpty && $0.nullable }) { schema.nullable = true }
            if let chosen = parts.first(where: { $0.type != nil }) { schema.merge(chosen) }
        }
        return schema
    }

    /// The keywords of one schema object.
    private mutating func take(_ object: JSONObject) {
        switch object["type"] {
        case .string(let type)?: types = type == "null" ? [] : [type]; nullable = nullable || type == "null"
        case .array(let list)?:
            let names = list.compactMap(\.string)
            types = names.filter { $0 != "null" }
            nullable = nullable || names.contains("null")
        default: break
        }
        if object["nullable"]?.bool == true || object["x-nullable"]?.bool == true { nullable = true }
        format = object["format"]?.string ?? format
        // Generated documents often say a string is a date only in words ("Date ISO8601").
        if format == nil, object["type"]?.string == "string", let words = object["description"]?.string?.lowercased(),
           words.contains("iso8601") || words.contains("iso 8601") {
            format = "date-time"
        }
        if let members = object["properties"]?.object?.members {
            properties += members.map { ($0.key, $0.value, OpenAPIDocument.pointer(pointer + "/properties", $0.key)) }
        }
        // Stale documents require properties they no longer declare (Forem's ArticleIndex requires comments_count):
        // a sample must still have them to be valid, so they join as properties of any type.
        for case .string(let name) in object["required"]?.array ?? [] where !properties.contains(where: { $0.name == name }) {
            properties.append((name, .object(JSONObject()), pointer + "/required"))
        }
        if let items = object["items"], items.object != nil { self.items = (items, pointer + "/items") }
        if let values = object["enum"]?.array { enumValues = values.filter { !$0.isNull } }
        if let example = object["example"] { self.example = example } else if let first = object["examples"]?.array?.first { example = first }
        if let value = object["default"] { defaultValue = value }
        minimum = object["minimum"]?.double ?? object["minimum"]?.string.flatMap(Double.init) ?? minimum
        maximum = object["maximum"]?.double ?? object["maximum"]?.string.flatMap(Double.init) ?? maximum
        maxLength = object["maxLength"]?.int ?? maxLength
    }

    /// Adds an `allOf` member's (or the chosen `oneOf` member's) keywords; the first to declare one wins.
    private mutating func merge(_ other: OpenAPISchema) {
        if types.isEmpty { types = other.types }
        nullable = nullable || other.nullable
        format = format ?? other.format
        for property in other.properties {
            if let index = properties.firstIndex(where: { $0.name == property.name }) {
                // A name only `required` gave (an allOf member requires what a later member declares) takes the
                // declared schema.
                if properties[index].pointer.hasSuffix("/required"), !property.pointer.hasSuffix("/required") { properties[index] = property }
            } else {
                properties.append(property)
            }
        }
        items = items ?? other.items
        if enumValues.isEmpty { enumValues = other.enumValues }
        example = example ?? other.example
        defaultValue = defaultValue ?? other.defaultValue
        minimum = minimum ?? other.minimum
        maximum = maximum ?? other.maximum
        maxLength = maxLength ?? other.maxLength
        referenceName = referenceName ?? other.referenceName
    }
}
