public import AggregateCore
import AggregateJSON
import AggregateScaffold
import AggregateText
import Foundation

/// `aggregate import openapi`: an OpenAPI 3.x or Swagger 2.0 document made into a definition with a sample page
/// and an example for each GET operation that returns a list of objects, and a report of everything else.
public enum OpenAPIImporter {
    /// What the command line chose.
    public struct Options: Sendable {
        /// `--name`; else from `info.title`.
        public var name: String?
        /// `--operations`: operation ids or imported names; `nil` for every GET operation.
        public var operations: [String]?

        public init(name: String? = nil, operations: [String]? = nil) {
            self.name = name
            self.operations = operations
        }
    }

    /// One imported operation, for the command's summary.
    public struct Imported: Sendable, Equatable {
        public var name: String
        public var paging: String
    }

    /// The definition folder's contents and the operations imported.
    /// - Throws: `.usage` for a name that is not valid or an unknown `--operations` id; `.invalidInput` when no
    ///   operation can be imported (the first reasons are given).
    public static func run(_ document: OpenAPIDocument, file: String, options: Options) throws(AggregateError) -> (definition: ImportedDefinition, operations: [Imported]) {
        let info = document.root["info"]
        let title = info?["title"]?.string ?? ""
        guard let nameText = options.name ?? OpenAPINames.providerName(title: title) else {
            throw AggregateError(.usage, "\(file): info.title '\(title)' gives no provider name: pass --name NAME")
        }
        let name = try ScaffoldName(validating: nameText)
        var report = ImportReport()
        report.add(.mapped, "/info/title", "provider '\(name.name)'\(options.name == nil ? " (from the title)" : " (--name)")")

        var sources = OpenAPIOperationSource.all(in: document)
        if let wanted = options.operations {
            let known = sources.filter { $0.method == "get" }.flatMap { [$0.operationID, $0.name].compactMap(\.self) }
            for id in wanted where !known.contains(id) {
                throw AggregateError(.usage, "\(file): no GET operation '\(id)'\(DidYouMean.suffix(for: id, among: known, otherwise: "; see import-report.txt of a run without --operations for the names"))")
            }
            sources = sources.filter { source in wanted.contains { $0 == source.name || $0 == source.operationID } }
        }

        var operations: [JSONValue] = []
        var samples: [(key: String, pages: [Data])] = []
        var examples: [JSONValue] = []
        var requirements: [[String]] = []
        var imported: [Imported] = []
        for source in sources {
            guard let made = OpenAPIOperationImport.make(source, document: document, provider: name.name, report: &report) else { continue }
            operations.append(.object(made.operation))
            samples.append((source.name, [Data((JSONWriter(pretty: true).string(made.sample) + "\n").utf8)]))
            examples.append(.object(made.example))
            requirements.append(made.requirement)
            imported.append(Imported(name: source.name, paging: made.paging))
        }
        guard !operations.isEmpty else {
            let reasons = report.notes.filter { $0.kind == .skipped }.prefix(3).map(\.message).joined(separator: "; ")
            throw AggregateError(.invalidInput, "\(file): no operation could be imported\(reasons.isEmpty ? "" : ": \(reasons)")")
        }

        var definition: JSONObject = ["name": .string(name.name)]
        if !title.isEmpty { definition["displayName"] = .string(title) }
        definition["summary"] = .string(OpenAPINames.oneLine(info?["description"]?.string) ?? "\(title.isEmpty ? name.name : title), imported from its OpenAPI document.")
        let baseURL = OpenAPIServer.baseURL(document, report: &report)
        let docs = [document.root["externalDocs"]?["url"], info?["contact"]?["url"], info?["termsOfService"]].compactMap { $0?.string }.first { $0.hasPrefix("http") }
        definition["docsURL"] = .string(docs ?? baseURL ?? "https://example.com")
        definition["baseURL"] = baseURL.map(JSONValue.string) ?? .null
        let security = OpenAPISecurity(document, requirements: requirements, prefix: name.environmentPrefix)
        report.append(contentsOf: security.report)
        if !security.auth.isEmpty { definition["auth"] = .array(security.auth) }
        definition.set("oauth2", security.oauth2.map(JSONValue.object))
        definition["headers"] = ["Accept": "application/json"]
        definition["operations"] = .array(operations)
        definition["examples"] = .array(examples)
        return (ImportedDefinition(name: name, definition: definition, samples: samples, report: report), imported)
    }
}
