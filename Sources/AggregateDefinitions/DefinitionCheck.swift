public import AggregateCore
import AggregateJSON
public import Foundation

/// What `aggregate check` finds in a definition without running it: the schema's verdict, the reader's, and how
/// every sample (or live response) goes through each operation's mapping, field by field.
public struct DefinitionCheck: Sendable {
    /// One thing wrong (a problem fails the check) or worth a look (a warning), at a JSON pointer of the definition.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public enum Severity: String, Sendable { case problem, warning }
        public var severity: Severity
        public var pointer: String
        public var message: String
        public var description: String { "\(pointer): \(message)" }
    }

    /// How many records gave a value for one mapped field, and why the first that gave none did not.
    public struct FieldCount: Sendable, Equatable {
        /// `title`, `metrics.stars`, `extra.language`, `location.city`, ...
        public var field: String
        /// The field's pointer in the definition (`/operations/0/item/title`).
        public var pointer: String
        public var filled: Int
        public var records: Int
        /// Why the first record without a value has none, e.g. `no key "name" in the top level; keys there: ...`.
        public var whyEmpty: String?
        /// Values that would be read wrongly, e.g. a year read as epoch seconds, with the reason for the first.
        public var suspicious: Int
        public var suspiciousWhy: String?
    }

    /// One response (a sample file or a live body) read by one operation.
    public struct Response: Sendable, Equatable {
        public var operation: String
        /// The sample's path as the definition lists it, or `live response N`.
        public var label: String
        /// The records found, or `nil` when the records path does not lead to a list.
        public var records: Int?
        /// Items the mapping made (records with an id and a title).
        public var items: Int
        public var fields: [FieldCount]
    }

    /// The definition's file, as messages name it.
    public var file: String
    /// The definition, when it reads.
    public var definition: ProviderDefinition?
    /// Whether the file fits `Schemas/provider-definition.schema.json`.
    public var fitsSchema = false
    public var responses: [Response] = []
    /// What reading the file, its samples and its examples found; the per-field verdicts follow in ``findings``.
    private var read: [Finding] = []

    /// Everything found, in order: the file's findings, then the per-field verdicts over every response read.
    public var findings: [Finding] { read + fieldVerdicts }

    /// The findings that fail the check.
    public var problems: [Finding] { findings.filter { $0.severity == .problem } }

    /// Checks the definition in `data` (read from `file`): against the schema, by the reader, and every sample
    /// through its operation's mapping. `sample` reads a sample by its path as the definition lists it.
    public init(data: Data, file: String, sample: (String) -> Data?) {
        self.file = file
        let document: JSONValue
        do {
            document = try JSONParser().parse(data)
        } catch {
            read.append(Finding(severity: .problem, pointer: "/", message: "is not valid JSON: \(error)"))
            return
        }
        let (violations, checked) = Self.schemaFindings(document)
        fitsSchema = checked && violations.isEmpty
        read += violations
        do {
            var definition = try ProviderDefinition(json: data)
            definition.source = file
            self.definition = definition
        } catch {
            // The schema usually said it already, with the same pointer; the reader's words are kept when it did not.
            if !read.contains(where: { $0.pointer == error.pointer }) {
                read.append(Finding(severity: .problem, pointer: error.pointer, message: error.message))
            }
            return
        }
        guard let definition else { return }
        for operation in definition.operations {
            let files = Self.sampleFiles(of: operation, in: definition)
            if files.isEmpty {
                read.append(Finding(
                    severity: .warning, pointer: "/samples",
                    message: "'\(operation.descriptor.name)' has no samples, so its mapping is not checked and it cannot run --offline"))
            }
            for path in files {
                guard let bytes = sample(path) else {
                    read.append(Finding(severity: .problem, pointer: "/samples/\(operation.descriptor.name)", message: "the sample \(path) cannot be read"))
                    continue
                }
                do {
                    readResponse(try JSONParser().parse(bytes), operation: operation, label: path)
                } catch {
                    read.append(Finding(severity: .problem, pointer: "/samples/\(operation.descriptor.name)", message: "the sample \(path) is not valid JSON: \(error)"))
                }
            }
        }
    }

    /// Adds a response fetched live (by `aggregate check --live`) for `operation`.
    public mutating func addLive(_ body: Data, operation: String, label: String) {
        guard let definition, let found = definition.operation(named: operation) else { return }
        guard let json = try? JSONParser().parse(body) else {
            read.append(Finding(severity: .problem, pointer: found.pointer, message: "the \(label) of '\(operation)' is not JSON"))
            return
        }
        readResponse(json, operation: found, label: label)
    }

    /// Adds what running an example found (from the command line, which runs it).
    public mutating func addExample(_ arguments: [String], index: Int, outcome: Result<Int, AggregateError>) {
        let line = arguments.joined(separator: " ")
        switch outcome {
        case .success(0):
            read.append(Finding(severity: .problem, pointer: "/examples/\(index)", message: "'\(line)' gives no items"))
        case .failure(let error):
            read.append(Finding(severity: .problem, pointer: "/examples/\(index)", message: "'\(line)' fails: \(error.message)"))
        case .success:
            break
        }
    }

    /// The per-field verdicts over every response read so far: a required field (`id`, `title`) that no record
    /// fills is a problem, as is a value that would be read wrongly; an optional field that none fills is a warning.
    private var fieldVerdicts: [Finding] {
        var verdicts: [Finding] = []
        var totals: [String: FieldCount] = [:]
        var order: [String] = []
        for response in responses where (response.records ?? 0) > 0 {
            for field in response.fields {
                let key = field.pointer + " " + field.field
                if var total = totals[key] {
                    total.filled += field.filled
                    total.records += field.records
                    total.suspicious += field.suspicious
                    total.whyEmpty = total.whyEmpty ?? field.whyEmpty
                    total.suspiciousWhy = total.suspiciousWhy ?? field.suspiciousWhy
                    totals[key] = total
                } else {
                    totals[key] = field
                    order.append(key)
                }
            }
        }
        for key in order {
            guard let total = totals[key] else { continue }
            let required = total.field == "id" || total.field == "title"
            if total.filled == 0 {
                let why = total.whyEmpty.map { ": \($0)" } ?? ""
                verdicts.append(Finding(
                    severity: required ? .problem : .warning, pointer: total.pointer,
                    message: "0 of \(total.records) record\(total.records == 1 ? "" : "s") gave \(total.field == "id" ? "an" : "a") \(total.field)\(why)"))
            }
            if total.suspicious > 0, let why = total.suspiciousWhy {
                verdicts.append(Finding(
                    severity: .problem, pointer: total.pointer,
                    message: "\(total.suspicious) of \(total.records) record\(total.records == 1 ? "" : "s") would be read wrongly: the first \(why)"))
            }
        }
        return verdicts
    }

    // MARK: Parts

    /// The samples an operation's responses come from: its own, those keyed by a path value (`repos?username=x`),
    /// and for a child of a `parent` without its own, those of the operation with the same request path.
    static func sampleFiles(of operation: ProviderDefinition.Operation, in definition: ProviderDefinition) -> [String] {
        func own(_ name: String) -> [String] {
            let keyed = definition.samples.keys.filter { SampleKey.parse($0)?.operation == name }.sorted()
            return (definition.samples[name] ?? []) + keyed.flatMap { definition.samples[$0] ?? [] }
        }
        let files = own(operation.descriptor.name)
        guard files.isEmpty, operation.parent != nil else { return files }
        let samePath = definition.operations.filter { $0.descriptor.name != operation.descriptor.name && $0.path.parts == operation.path.parts }
        return samePath.flatMap { own($0.descriptor.name) }
    }

    /// The schema's violations, and whether the schema could be used at all.
    private static func schemaFindings(_ document: JSONValue) -> (findings: [Finding], checked: Bool) {
        do {
            let schema = try JSONParser().parse(Data(definitionSchemaText.utf8))
            let problems = try SchemaValidator(schema: schema).problems(in: document)
            return (problems.map { Finding(severity: .problem, pointer: $0.pointer, message: $0.message) }, true)
        } catch {
            return ([Finding(severity: .warning, pointer: "/", message: "the schema built into aggregate cannot be used (\(error)), so only the reader checked the file")], false)
        }
    }

    /// Reads one response by `operation`'s records path and mapping.
    private mutating func readResponse(_ json: JSONValue, operation: ProviderDefinition.Operation, label: String) {
        let name = operation.descriptor.name
        let records: [JSONValue]
        do throws(JSONPathLookupError) {
            let found = try operation.records.resolve(in: json)
            guard let list = found.array else {
                read.append(Finding(
                    severity: .problem, pointer: operation.pointer + "/records",
                    message: "'\(operation.records)' is \(found.typeName == "object" ? "an object" : "a \(found.typeName)") in \(label), not a list of records"))
                responses.append(Response(operation: name, label: label, records: nil, items: 0, fields: []))
                return
            }
            records = list
        } catch {
            read.append(Finding(severity: .problem, pointer: operation.pointer + "/records", message: "'\(operation.records)' is not in \(label): \(error.reason)"))
            responses.append(Response(operation: name, label: label, records: nil, items: 0, fields: []))
            return
        }
        let mapper = DefinitionMapper(provider: definition?.name ?? "", operation: operation, source: file)
        let items = records.compactMap { mapper.item(from: $0) }.count
        let fields = Self.fieldRules(operation).map { field in
            Self.count(field.name, rule: field.rule, pointer: operation.pointer + "/item/" + field.path, records: records, isDate: field.name == "createdAt")
        }
        responses.append(Response(operation: name, label: label, records: records.count, items: items, fields: fields))
    }

    /// Every mapped field of an operation: its name as output shows it, its path under `item`, and its rule.
    private static func fieldRules(_ operation: ProviderDefinition.Operation) -> [(name: String, path: String, rule: ValueRule)] {
        let mapping = operation.item
        var fields: [(String, String, ValueRule)] = [("id", "id", mapping.id), ("title", "title", mapping.title)]
        if let kind = mapping.kind { fields.append(("kind", "kind", kind)) }
        fields += mapping.text.map { ($0.field.rawValue, $0.field.rawValue, $0.rule) }
        if let createdAt = mapping.createdAt { fields.append(("createdAt", "createdAt", createdAt)) }
        fields += mapping.location.map { ("location.\($0.field)", "location/\($0.field)", $0.rule) }
        fields += mapping.metrics.map { ("metrics.\($0.name)", "metrics/\($0.name)", $0.rule) }
        if let tags = mapping.tags { fields.append(("tags", "tags", tags)) }
        fields += mapping.extra.map { ("extra.\($0.name)", "extra/\($0.name)", $0.rule) }
        return fields
    }

    private static func count(_ field: String, rule: ValueRule, pointer: String, records: [JSONValue], isDate: Bool) -> FieldCount {
        var counted = FieldCount(field: field, pointer: pointer, filled: 0, records: records.count, suspicious: 0)
        for record in records {
            guard isDate else {
                if rule.value(in: record) != nil { counted.filled += 1 } else if counted.whyEmpty == nil { counted.whyEmpty = rule.whyEmpty(in: record) }
                continue
            }
            // A date counts when it reads as one, in the format the definition gives, as the mapping reads it.
            guard let reading = rule.date(in: record) else {
                if counted.whyEmpty == nil {
                    counted.whyEmpty = rule.dateCandidates(in: record).first.map {
                        "\(JSONWriter().string($0.value)) does not read as a date (\($0.format?.rawValue ?? "ISO 8601 text or epoch seconds"))"
                    } ?? rule.whyEmpty(in: record)
                }
                continue
            }
            counted.filled += 1
            if let why = DefinitionDates.suspiciousEpochSeconds(reading.value, format: reading.format) {
                counted.suspicious += 1
                counted.suspiciousWhy = counted.suspiciousWhy ?? why
            }
        }
        return counted
    }
}
