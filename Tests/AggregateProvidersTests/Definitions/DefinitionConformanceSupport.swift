import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateTestSupport
import Foundation

/// Reading the real captured responses of `../shared/api/samples/<name>/` through a compiled-in definition.
enum DefinitionConformance {
    /// The definition in `Providers/<folder>/provider.json`, as the engine runs it.
    static func provider(_ folder: String) throws -> DeclarativeProvider {
        let file = TestPaths.packageRoot.appendingPathComponent("Providers/\(folder)/provider.json")
        return DeclarativeProvider(try ProviderDefinition(json: Data(contentsOf: file)))
    }

    /// The response bodies among the shared samples (not their `.headers` or note sidecars).
    static func bodies(_ name: String) -> [URL] {
        TestPaths.sharedResponseSamples(name).filter { !$0.lastPathComponent.contains(".headers") }
    }

    /// The recorded status and headers of `body` (`<stem>.headers.json`, or `<stem>.headers.AUTHORED.json` for an
    /// authored body), when the sample has them; header values recorded as lists are joined as HTTP joins them.
    static func recorded(_ body: URL) throws -> (status: Int, headers: HTTPHeaders, url: URL?)? {
        let name = body.lastPathComponent
        let sidecar = name.hasSuffix(".AUTHORED.json")
            ? name.replacingOccurrences(of: ".AUTHORED.json", with: ".headers.AUTHORED.json")
            : name.replacingOccurrences(of: ".json", with: ".headers.json")
        let url = body.deletingLastPathComponent().appendingPathComponent(sidecar)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let meta = try JSONParser().parse(Data(contentsOf: url))
        var headers = HTTPHeaders()
        for member in meta["headers"]?.object?.members ?? [] {
            headers.add(member.key, member.value.string ?? (member.value.array ?? []).compactMap(\.string).joined(separator: ", "))
        }
        return (meta["status"]?.int ?? 200, headers, meta["request"]?["uri"]?.string.flatMap(URL.init(string:)))
    }

    /// The sample as the response it was: its recorded status and headers, else `status`.
    static func response(_ body: URL, status: Int = 200) throws -> HTTPResponse {
        let data = try Data(contentsOf: body)
        guard let recorded = try recorded(body) else { return HTTPResponse(status: status, body: data) }
        return HTTPResponse(status: recorded.status, headers: recorded.headers, body: data, url: recorded.url)
    }

    static func query(_ provider: String, _ parameters: JSONObject, environment: [String: String] = [:], now: Date = Date()) -> Query {
        Query(
            provider: provider, operation: "search", parameters: parameters, baseURL: URL(string: "https://api.example")!,
            environment: environment, now: now)
    }
}
