import AggregateJSON
import Foundation

/// The base URL from `servers` (3.x) or `schemes`/`host`/`basePath` (2.0), server variables filled from their
/// defaults.
enum OpenAPIServer {
    static func baseURL(_ document: OpenAPIDocument, report: inout ImportReport) -> String? {
        let root = document.root
        if document.isSwagger2 {
            guard let host = root["host"]?.string else {
                report.add(.skipped, "/host", "no host: the definition's baseURL is null, so give --base-url or AGGREGATE_<NAME>_BASE_URL")
                return nil
            }
            let schemes = root["schemes"]?.array?.compactMap(\.string) ?? []
            let scheme = schemes.contains("https") || schemes.isEmpty ? "https" : schemes[0]
            let url = trimmed("\(scheme)://\(host)\(root["basePath"]?.string ?? "")")
            report.add(.mapped, "/host", "baseURL \(url)")
            return withoutRepeatedPrefix(url, document: document, pointer: "/basePath", report: &report)
        }
        guard let server = root["servers"]?.array?.first, var url = server["url"]?.string else {
            report.add(.skipped, "/servers", "no servers: the definition's baseURL is null, so give --base-url or AGGREGATE_<NAME>_BASE_URL")
            return nil
        }
        for variable in server["variables"]?.object?.members ?? [] {
            let value = variable.value["default"].flatMap(OpenAPIParameter.text) ?? ""
            url = url.replacingOccurrences(of: "{\(variable.key)}", with: value)
            report.add(.mapped, OpenAPIDocument.pointer("/servers/0/variables", variable.key), "server variable {\(variable.key)} ← its default '\(value)'")
        }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            report.add(.skipped, "/servers/0/url", "'\(url)' is not an absolute URL: the definition's baseURL is null, so give --base-url")
            return nil
        }
        url = trimmed(url)
        report.add(.mapped, "/servers/0/url", "baseURL \(url)")
        return withoutRepeatedPrefix(url, document: document, pointer: "/servers/0/url", report: &report)
    }

    /// Some documents give the base path twice: Forem's server is `https://dev.to/api` and its paths start with
    /// `/api/` too, while the API lives at `https://dev.to/api/articles`. When every path repeats the base URL's
    /// path, the base URL is cut to its origin so the requests reach the documented addresses.
    private static func withoutRepeatedPrefix(_ url: String, document: OpenAPIDocument, pointer: String, report: inout ImportReport) -> String {
        guard var components = URLComponents(string: url), components.path.count > 1 else { return url }
        let prefix = components.path
        let paths = document.root["paths"]?.object?.keys ?? []
        guard !paths.isEmpty, paths.allSatisfy({ $0.hasPrefix(prefix + "/") }) else { return url }
        components.path = ""
        let origin = components.string ?? url
        report.add(.guessed, pointer, "every path starts with \(prefix)/ as the base URL ends: baseURL \(origin), so requests go to \(url)/... once")
        return origin
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

/// The credentials of the imported operations, from `securitySchemes` (3.x) or `securityDefinitions` (2.0).
struct OpenAPISecurity {
    /// The definition's `auth` entries.
    var auth: [JSONValue] = []
    /// The definition's `oauth2` section, for a client-credentials flow.
    var oauth2: JSONObject?
    var report = ImportReport()

    /// `requirements`: per imported operation, the scheme names of its first security requirement (empty: none).
    init(_ document: OpenAPIDocument, requirements: [[String]], prefix: String) {
        let base = document.isSwagger2 ? "/securityDefinitions" : "/components/securitySchemes"
        let schemes = (document.isSwagger2 ? document.root["securityDefinitions"] : document.root["components"]?["securitySchemes"])?.object
        var names: [String] = []
        for requirement in requirements { for name in requirement where !names.contains(name) { names.append(name) } }
        // A credential is required when every imported operation needs it.
        let required = Set(names.filter { name in !requirements.isEmpty && requirements.allSatisfy { $0.contains(name) } })
        var variables: Set<String> = []
        func variable(_ suffix: String) -> String { OpenAPINames.unique("\(prefix)_\(suffix)", taken: &variables, separator: "_") }
        for name in names {
            let pointer = OpenAPIDocument.pointer(base, name)
            guard let found = schemes?[name], let (scheme, _) = document.resolve(found, pointer: pointer) else {
                report.add(.skipped, pointer, "security scheme '\(name)' is not declared")
                continue
            }
            let isRequired = required.contains(name)
            let type = scheme["type"]?.string ?? ""
            let httpScheme = scheme["scheme"]?.string?.lowercased()
            switch type {
            case "apiKey":
                guard let location = scheme["in"]?.string, location == "query" || location == "header", let parameter = scheme["name"]?.string else {
                    report.add(.skipped, pointer, "API key '\(name)' in \(scheme["in"]?.string ?? "an unknown place"): definitions send keys in the query or a header")
                    continue
                }
                let entry = Self.entry(variable("API_KEY"), location, parameter: parameter, required: isRequired)
                auth.append(entry)
                report.add(.mapped, pointer, "API key in \(location) '\(parameter)' ← \(entry["variable"]?.string ?? "")")
            case "http" where httpScheme == "bearer", "oauth2" where Self.clientCredentialsFlow(scheme, swagger2: document.isSwagger2) == nil, "openIdConnect":
                let entry = Self.entry(variable("TOKEN"), "bearer", required: isRequired)
                auth.append(entry)
                let how = type == "http" ? "bearer token" : "\(type) (\(Self.flows(scheme).joined(separator: ", "))) taken as a bearer token the user gets elsewhere"
                report.add(type == "http" ? .mapped : .guessed, pointer, "\(how) ← \(entry["variable"]?.string ?? "")")
            case "http" where httpScheme == "basic", "basic":
                let entry = Self.entry(variable("BASIC_AUTH"), "header", parameter: "Authorization", required: isRequired, label: "the whole 'Basic <base64 of user:password>' value")
                auth.append(entry)
                report.add(.guessed, pointer, "basic auth sent as the Authorization header ← \(entry["variable"]?.string ?? "") (its value is 'Basic ' and the base64 of user:password)")
            case "oauth2":
                guard let flow = Self.clientCredentialsFlow(scheme, swagger2: document.isSwagger2), let tokenURL = flow["tokenUrl"]?.string else { continue }
                auth.append(Self.entry(variable("CLIENT_ID"), "oauth2-client-id", required: isRequired, label: "client id"))
                auth.append(Self.entry(variable("CLIENT_SECRET"), "oauth2-client-secret", required: isRequired, label: "client secret"))
                var section: JSONObject = ["tokenURL": .string(tokenURL)]
                let scopes = flow["scopes"]?.object?.keys ?? []
                if !scopes.isEmpty { section["scope"] = .string(scopes.joined(separator: " ")) }
                oauth2 = section
                report.add(.mapped, pointer, "OAuth2 client credentials: token endpoint \(tokenURL), \(prefix)_CLIENT_ID and \(prefix)_CLIENT_SECRET")
            default:
                report.add(.skipped, pointer, "security scheme '\(name)' of type \(type) \(httpScheme ?? ""): not one a definition sends")
            }
        }
    }

    private static func entry(_ variable: String, _ location: String, parameter: String? = nil, required: Bool, label: String? = nil) -> JSONValue {
        var object: JSONObject = ["variable": .string(variable), "in": .string(location)]
        object.set("parameter", parameter.map(JSONValue.string))
        if required { object["required"] = true }
        object.set("label", label.map(JSONValue.string))
        return .object(object)
    }

    /// The client-credentials flow: 3.x `flows.clientCredentials`, 2.0 `flow: application`.
    static func clientCredentialsFlow(_ scheme: JSONValue, swagger2: Bool) -> JSONObject? {
        if swagger2 { return scheme["flow"]?.string == "application" ? scheme.object : nil }
        return scheme["flows"]?["clientCredentials"]?.object
    }

    private static func flows(_ scheme: JSONValue) -> [String] {
        scheme["flows"]?.object?.keys ?? [scheme["flow"]?.string ?? "flow not given"]
    }

    /// The scheme names of an operation's first requirement: its own `security`, else the document's.
    static func requirement(of operation: JSONObject, document: OpenAPIDocument) -> [String] {
        let list = (operation["security"] ?? document.root["security"])?.array ?? []
        // `[]` or `[{}]` (an empty requirement) means the operation needs no credentials.
        if list.contains(where: { $0.object?.isEmpty == true }) { return [] }
        return list.first?.object?.keys ?? []
    }
}
