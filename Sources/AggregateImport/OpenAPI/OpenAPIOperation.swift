import AggregateJSON
import Foundation

/// One operation of the document, as found under `paths`: where it is and what it is called.
struct OpenAPIOperationSource {
    var method: String
    var path: String
    var pathItem: JSONObject
    var operation: JSONObject
    var pointer: String
    var pathPointer: String
    /// The command-line name (``OpenAPINames/operationName(cliName:operationID:path:)``, made unique).
    var name: String

    var operationID: String? { operation["operationId"]?.string }

    /// Every operation in document order, named; the HTTP methods of OpenAPI in their usual order.
    static func all(in document: OpenAPIDocument) -> [OpenAPIOperationSource] {
        let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var found: [OpenAPIOperationSource] = []
        for entry in document.root["paths"]?.object?.members ?? [] {
            let pathPointer = OpenAPIDocument.pointer("/paths", entry.key)
            guard let (resolved, _) = document.resolve(entry.value, pointer: pathPointer), let pathItem = resolved.object else { continue }
            for method in methods {
                guard let operation = pathItem[method]?.object else { continue }
                let name = OpenAPINames.operationName(cliName: operation["x-cli-name"]?.string, operationID: operation["operationId"]?.string, path: entry.key)
                found.append(OpenAPIOperationSource(
                    method: method, path: entry.key, pathItem: pathItem, operation: operation,
                    pointer: pathPointer + "/" + method, pathPointer: pathPointer, name: name))
            }
        }
        // A shortened name that another GET's name already is keeps its verb (`getListBookmarks` beside
        // `listBookmarks` is `get-list-bookmarks`); what still repeats gets -2, -3 in document order.
        let gets = found.indices.filter { found[$0].method == "get" }
        var counts: [String: Int] = [:]
        for index in gets { counts[found[index].name, default: 0] += 1 }
        var taken: Set<String> = []
        for index in gets {
            var name = found[index].name
            if counts[name, default: 0] > 1, found[index].operation["x-cli-name"] == nil, let id = found[index].operationID,
               let full = OpenAPINames.identifier(OpenAPINames.words(id)), full != name, counts[full] == nil {
                name = full
            }
            found[index].name = OpenAPINames.unique(name, taken: &taken)
        }
        return found
    }
}

/// One operation made into the definition's: its JSON, its sample page and its example, or why it was skipped.
struct OpenAPIOperationImport {
    var operation: JSONObject
    var sample: JSONValue
    var example: JSONObject
    var requirement: [String]
    var paging: String
    var report: ImportReport

    /// The operation, or the reason it cannot be imported (in `report` as a `skipped` line either way).
    static func make(_ source: OpenAPIOperationSource, document: OpenAPIDocument, provider: String, report: inout ImportReport) -> OpenAPIOperationImport? {
        func skip(_ why: String) -> OpenAPIOperationImport? {
            report.add(.skipped, source.pointer, "\(source.method.uppercased()) \(source.path) (\(source.operationID ?? source.name)): \(why)")
            return nil
        }
        guard source.method == "get" else { return skip("not a GET: only reads are imported") }
        guard let response = OpenAPIResponse.success(of: source.operation, pointer: source.pointer, document: document) else {
            return skip("no 2xx response with a JSON schema")
        }
        let hint = Set(OpenAPINames.words(source.operationID ?? source.path))
        let analysis = OpenAPIResponseAnalysis.of(response.schema, pointer: response.pointer, hint: hint, document: document)
        if let problem = analysis.problem { return skip(problem) }
        guard let records = analysis.records, let mapping = analysis.mapping else { return skip("its response holds no list of objects") }
        var notes = ImportReport()
        notes.add(.guessed, records.record.pointer, "records at \(records.jsonPath)")
        let parameters = OpenAPIParameter.all(pathItem: source.pathItem, operation: source.operation, pointer: source.pointer, pathPointer: source.pathPointer, document: document)
        let paging = OpenAPIPagination(
            query: parameters.filter { $0.location == "query" }, records: records, scalars: analysis.scalars, responseHeaders: response.headers,
            operation: source.operation, pointer: source.pointer)
        let mapped = OpenAPIParameterMapping(parameters, path: source.path, skipping: paging.handled)
        if let why = mapped.unsendable { return skip(why) }
        notes.append(contentsOf: mapped.report)
        notes.append(contentsOf: paging.report)
        notes.append(contentsOf: mapping.report)

        var request: JSONObject = ["path": .string(mapped.path)]
        if !mapped.query.isEmpty { request["query"] = .object(JSONObject(mapped.query)) }
        if !mapped.headers.isEmpty { request["headers"] = .object(JSONObject(mapped.headers)) }
        let summary = OpenAPINames.oneLine(source.operation["summary"]?.string) ?? OpenAPINames.oneLine(source.operation["description"]?.string)
            ?? "\(OpenAPINames.words(source.name).joined(separator: " ").capitalizedFirst) (GET \(source.path))."
        var operation: JSONObject = [
            "name": .string(source.name), "summary": .string(summary),
            "kind": .string(OpenAPINames.kind(referenceName: records.record.referenceName, path: source.path)),
        ]
        if !mapped.parameters.isEmpty { operation["parameters"] = .array(mapped.parameters) }
        operation["request"] = .object(request)
        operation.set("pagination", paging.pagination.map(JSONValue.object))
        operation["records"] = .string(records.jsonPath)
        operation["item"] = mapping.item

        let (sample, origin) = OpenAPIResponse.sample(response, analysis: analysis, patches: paging.samplePatches)
        notes.add(.guessed, response.pointer, "sample page \(origin)")
        let arguments: [JSONValue] = ([provider, source.name] + mapped.exampleArguments).map(JSONValue.string)
        let example: JSONObject = ["arguments": .array(arguments), "summary": .string(summary)]
        report.add(.mapped, source.pointer, "GET \(source.path) → operation '\(source.name)'")
        report.append(contentsOf: notes)
        return OpenAPIOperationImport(
            operation: operation, sample: sample, example: example, requirement: OpenAPISecurity.requirement(of: source.operation, document: document),
            paging: paging.summary, report: notes)
    }
}

/// An operation's successful JSON response: its schema, example and declared headers.
struct OpenAPIResponse {
    var schema: JSONValue
    var pointer: String
    var example: JSONValue?
    var headers: [String]

    /// `200`, else the first `2xx`, with a JSON media type (`application/json`, `…+json`, `*/*`).
    static func success(of operation: JSONObject, pointer: String, document: OpenAPIDocument) -> OpenAPIResponse? {
        guard let responses = operation["responses"]?.object else { return nil }
        let codes = responses.keys.filter { $0 == "200" } + responses.keys.filter { $0.hasPrefix("2") && $0 != "200" }
        for code in codes {
            let base = OpenAPIDocument.pointer(pointer + "/responses", code)
            guard let raw = responses[code], let (response, at) = document.resolve(raw, pointer: base) else { continue }
            let headers = response["headers"]?.object?.keys ?? []
            if document.isSwagger2 {
                let produces = (operation["produces"] ?? document.root["produces"])?.array?.compactMap(\.string) ?? ["application/json"]
                guard let schema = response["schema"], produces.contains(where: isJSON) else { continue }
                let example = response["examples"]?.object?.members.first { isJSON($0.key) }?.value
                return OpenAPIResponse(schema: schema, pointer: at + "/schema", example: example, headers: headers)
            }
            guard let content = response["content"]?.object,
                  let media = content.members.first(where: { isJSON($0.key) && $0.value["schema"] != nil }),
                  let schema = media.value["schema"]
            else { continue }
            let mediaPointer = OpenAPIDocument.pointer(at + "/content", media.key)
            let example = media.value["example"] ?? media.value["examples"]?.object?.members.first.flatMap { entry in
                document.resolve(entry.value, pointer: mediaPointer)?.value["value"]
            }
            return OpenAPIResponse(schema: schema, pointer: mediaPointer + "/schema", example: example, headers: headers)
        }
        return nil
    }

    static func isJSON(_ mediaType: String) -> Bool {
        let type = mediaType.lowercased().split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return type == "application/json" || type.hasSuffix("+json") || type == "*/*" || type == "application/*" || type == "text/json"
    }

    /// The sample page: the document's example when its records all give a title, else one made from the schema;
    /// and a few words on where it came from.
    static func sample(_ response: OpenAPIResponse, analysis: OpenAPIResponseAnalysis, patches: [(path: [String], value: JSONValue)]) -> (JSONValue, String) {
        func patched(_ body: JSONValue) -> JSONValue {
            patches.reduce(body) { OpenAPISampleSynthesis.setting($0, at: $1.path, to: $1.value) }
        }
        if let example = response.example, let records = analysis.records, let mapping = analysis.mapping,
           let list = OpenAPISampleSynthesis.value(example, at: records.path)?.array, !list.isEmpty,
           list.allSatisfy({ titled($0, mapping: mapping) }) {
            return (patched(example), "from the document's example (\(list.count) record\(list.count == 1 ? "" : "s"))")
        }
        return (patched(analysis.body), "made from the schema (\(OpenAPISampleSynthesis.recordCount) records)")
    }

    /// Whether the record gives an id and a title by the mapping's first paths.
    private static func titled(_ record: JSONValue, mapping: ItemMapping) -> Bool {
        ["id", "title"].allSatisfy { field in
            let paths = mapping.item[field].map { value -> [String] in value.array?.compactMap(\.string) ?? [value.string].compactMap(\.self) } ?? []
            return paths.contains { path in
                let keys = path.split(separator: ".").map(String.init)
                let found = OpenAPISampleSynthesis.value(record, at: keys)
                return found?.nonEmptyString != nil || found?.numberText != nil
            }
        }
    }
}
