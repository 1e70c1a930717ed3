import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateTestSupport
import AggregateYAML
import Foundation
import Testing

/// The providers imported from OpenAPI documents send only what their documents declare. This reads each
/// document on its own (not through the importer), so a hand edit after the import that strays from the API is
/// caught: every request path is one of the document's paths, every query parameter sent is declared there (or is
/// the document's API-key parameter), every required one is sent, and every choice a parameter offers is one the
/// document allows.
@Suite struct ImportedProviderDocumentTests {
    struct Shipped: Sendable, CustomTestStringConvertible {
        var folder: String
        var document: String
        var testDescription: String { folder }
    }

    static let shipped = [
        Shipped(folder: "Jikan", document: "jikan.moe-api-docs.json"),
        Shipped(folder: "DevTo", document: "forem.com-api_v1.json"),
        Shipped(folder: "NYTimes", document: "nytimes.com-article_search_v2.yaml"),
    ]

    /// One operation of a document: its path template and the parameters it declares.
    struct DocumentOperation {
        var template: [Substring]
        var query: [String: JSONValue]
        var required: Set<String>
    }

    static func document(_ shipped: Shipped) throws -> JSONValue {
        let data = try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("Providers/\(shipped.folder)/\(shipped.document)"))
        return shipped.document.hasSuffix(".json") ? try JSONParser().parse(data) : try YAMLParser.parse(data)
    }

    /// Follows a local `$ref` (`#/components/parameters/page`).
    static func resolved(_ value: JSONValue, in document: JSONValue) -> JSONValue {
        guard let reference = value["$ref"]?.string, reference.hasPrefix("#/") else { return value }
        var node: JSONValue? = document
        for token in reference.dropFirst(2).split(separator: "/") {
            node = node?[String(token).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
        }
        return node ?? value
    }

    static func operations(_ document: JSONValue) -> [DocumentOperation] {
        (document["paths"]?.object?.members ?? []).compactMap { path in
            guard let get = path.value["get"] else { return nil }
            var query: [String: JSONValue] = [:]
            var required: Set<String> = []
            for parameter in (path.value["parameters"]?.array ?? []) + (get["parameters"]?.array ?? []) {
                let parameter = resolved(parameter, in: document)
                guard parameter["in"]?.string == "query", let name = parameter["name"]?.string else { continue }
                query[name] = parameter
                if parameter["required"]?.bool == true { required.insert(name) }
            }
            return DocumentOperation(template: path.key.split(separator: "/"), query: query, required: required)
        }
    }

    /// The API-key query parameters the document's security schemes name (sent by the auth, not by an option).
    static func keyParameters(_ document: JSONValue) -> Set<String> {
        let schemes = (document["components"]?["securitySchemes"] ?? document["securityDefinitions"])?.object?.members ?? []
        return Set(schemes.compactMap { $0.value["in"]?.string == "query" ? $0.value["name"]?.string : nil })
    }

    /// The path the request goes to, below the document's base path.
    static func relativePath(_ url: URL, document: JSONValue) -> [Substring] {
        let server = document["servers"]?[0]?["url"]?.string.flatMap { URL(string: $0.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")) }?.path
        let base = (server ?? document["basePath"]?.string ?? "").split(separator: "/")
        let path = url.path.split(separator: "/")
        return path.starts(with: base) ? Array(path.dropFirst(base.count)) : path
    }

    static func matches(_ template: [Substring], _ path: [Substring]) -> Bool {
        template.count == path.count && zip(template, path).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }

    /// A value each parameter accepts: its first choice, its lowest number, a word.
    static func sampleValue(_ parameter: Parameter) throws -> JSONValue {
        switch parameter.type {
        case .choice(let values), .choiceList(let values): return try parameter.value(from: values[0])
        case .integer(let range): return .int(range?.lowerBound ?? 1)
        case .number(let range): return .double(range?.lowerBound ?? 1)
        case .boolean: return .bool(true)
        case .string: return .string(parameter.defaultValue ?? "1")
        }
    }

    @Test(arguments: shipped)
    func everyRequestIsOneTheDocumentDeclares(_ shipped: Shipped) throws {
        let provider = try DefinitionConformance.provider(shipped.folder)
        let document = try Self.document(shipped)
        let operations = Self.operations(document)
        let keys = Self.keyParameters(document)
        #expect(provider.descriptor.operations.count >= 2 || shipped.folder == "NYTimes")
        for operation in provider.descriptor.operations {
            // Every parameter set at once, so every query parameter the definition can send is sent.
            var values = JSONObject()
            for parameter in operation.parameters { values[parameter.name] = try Self.sampleValue(parameter) }
            let query = Query(
                provider: provider.descriptor.name, operation: operation.name, parameters: values,
                baseURL: try #require(URL(string: provider.descriptor.defaultBaseURL ?? "")), environment: [:])
            let request = try provider.request(for: query, cursor: nil, remaining: 20)
            // Below the document's base path, or, where the document repeats its base path in every path (Forem), as is.
            let paths = [Self.relativePath(request.url, document: document), request.url.path.split(separator: "/")]
            let declared = try #require(
                operations.first { operation in paths.contains { Self.matches(operation.template, $0) } },
                "\(operation.name): \(request.url.path) is not a path of \(shipped.document)")
            let sent = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            for item in sent where !keys.contains(item.name) {
                let parameter = try #require(declared.query[item.name], "\(operation.name): sends ?\(item.name), which \(shipped.document) does not declare")
                if let allowed = Self.resolved(parameter["schema"] ?? parameter, in: document)["enum"]?.array?.compactMap(\.scalarText), let value = item.value {
                    #expect(value.split(separator: ",").allSatisfy { allowed.contains(String($0)) }, "\(operation.name): ?\(item.name)=\(value) is not in the document's enum \(allowed)")
                }
            }
            for name in declared.required { #expect(sent.contains { $0.name == name }, "\(operation.name): the document requires ?\(name)") }
        }
    }
}
