import AggregateJSON
import Foundation

/// What the importer reads from one response schema: its records, their item mapping, the paging fields beside
/// them and a sample body. Operations that answer the same named schema (a thousand paths of one collection type)
/// share one analysis, so a large document costs a read per schema, not per operation.
final class OpenAPIResponseAnalysis {
    /// Why no operation answering it can be imported, or `nil`.
    let problem: String?
    let records: OpenAPIRecords?
    let mapping: ItemMapping?
    /// The scalar fields of the body outside the records, for the paging guess.
    let scalars: [(path: [String], type: String, pointer: String)]
    private let document: OpenAPIDocument
    private var synthesized: JSONValue?

    /// `hint`: the operation's words, which the records' name may repeat (``OpenAPIRecords/find(in:hint:document:)``).
    init(schema value: JSONValue, pointer: String, hint: Set<String>, document: OpenAPIDocument) {
        self.document = document
        guard let schema = OpenAPISchema.read(value, pointer: pointer, in: document) else {
            (problem, records, mapping, scalars) = ("its response schema cannot be read", nil, nil, [])
            return
        }
        guard let records = OpenAPIRecords.find(in: schema, hint: hint, document: document) else {
            let why = schema.type == "object" ? "returns one record, not a list of objects (a definition reads records from a list)" : "its response holds no list of objects"
            (problem, self.records, mapping, scalars) = (why, nil, nil, [])
            return
        }
        self.records = records
        mapping = ItemMappingGuess.guess(records.fields(in: document), pointer: records.record.pointer)
        problem = mapping == nil ? "no field of its records gives a title" : nil
        scalars = mapping == nil ? [] : OpenAPIPagination.scalarPaths(in: records.response, skipping: records.path, document: document)
    }

    /// A body made from the schema, before the paging's patches; made once.
    var body: JSONValue {
        if let synthesized { return synthesized }
        let made = records.map { OpenAPISampleSynthesis(document: document).body($0, patches: []) } ?? .null
        synthesized = made
        return made
    }

    /// The analysis of a response schema: shared by every schema that is the same `$ref` read with the same hint.
    static func of(_ value: JSONValue, pointer: String, hint: Set<String>, document: OpenAPIDocument) -> OpenAPIResponseAnalysis {
        guard let reference = value["$ref"]?.string else { return OpenAPIResponseAnalysis(schema: value, pointer: pointer, hint: hint, document: document) }
        let key = reference + " " + hint.sorted().joined(separator: " ")
        if let known = document.analyses[key] { return known }
        let made = OpenAPIResponseAnalysis(schema: value, pointer: pointer, hint: hint, document: document)
        document.analyses[key] = made
        return made
    }
}
