import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

// MARK: - A hostile API that echoes credentials back

/// Every way the tests write a marker credential, built here independently of ``Redactor`` so that the check
/// does not trust the code it checks.
enum MarkerForms {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func lowerCaseHex(_ encoded: String) -> String {
        var result = ""
        var pending = 0
        for character in encoded {
            if character == "%" {
                pending = 2
                result.append(character)
                continue
            }
            result += pending > 0 ? character.lowercased() : String(character)
            pending = max(0, pending - 1)
        }
        return result
    }

    /// Encoding name → the marker in that encoding.
    static func encodings(of marker: String) -> [(name: String, form: String)] {
        let data = Data(marker.utf8)
        return [
            ("exact", marker),
            ("percent", marker.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed)!),
            ("rfc3986", marker.addingPercentEncoding(withAllowedCharacters: unreserved)!),
            ("rfc3986-lower", lowerCaseHex(marker.addingPercentEncoding(withAllowedCharacters: unreserved)!)),
            ("form", marker.addingPercentEncoding(withAllowedCharacters: unreserved.union(CharacterSet(charactersIn: " ")))!
                .replacingOccurrences(of: " ", with: "+")),
            ("json-slash", marker.replacingOccurrences(of: "/", with: "\\/")),
            ("json-unicode", marker.utf16.map { String(format: "\\u%04x", $0) }.joined()),
            ("base64", data.base64EncodedString()),
            // The forms issue 27's sweep found leaking.
            ("lower", marker.lowercased()),
            ("upper", marker.uppercased()),
            ("rfc3986-lowercased", marker.addingPercentEncoding(withAllowedCharacters: unreserved)!.lowercased()),
            ("double-percent", marker.addingPercentEncoding(withAllowedCharacters: unreserved)!.addingPercentEncoding(withAllowedCharacters: unreserved)!),
            ("html-named", marker.replacingOccurrences(of: "+", with: "&plus;").replacingOccurrences(of: "/", with: "&sol;")
                .replacingOccurrences(of: "=", with: "&equals;").replacingOccurrences(of: ":", with: "&colon;")),
            ("html-decimal", marker.unicodeScalars.map { "&#\($0.value);" }.joined()),
            ("html-hex", marker.unicodeScalars.map { "&#x\(String($0.value, radix: 16));" }.joined()),
            ("hex", marker.utf8.map { String(format: "%02x", $0) }.joined()),
            ("base64-bearer", Data("Bearer \(marker)".utf8).base64EncodedString()),
            ("base64-basic", Data("user:\(marker)".utf8).base64EncodedString()),
        ]
    }

    /// Whether `text` holds the marker in any of the forms, or the unique core every form but the fully escaped
    /// ones keeps.
    static func leaks(_ marker: String, core: String, in text: String) -> String? {
        if text.lowercased().contains(core.lowercased()) { return "the core \(core)" }
        return encodings(of: marker).first { text.contains($0.form) }.map { "the \($0.name) form \($0.form)" }
    }
}

/// Requests that reached the "other host" carrying a marker, by marker.
final class LeakLog: @unchecked Sendable {
    static let shared = LeakLog()
    private let lock = NSLock()
    private var leaks: [String: [String]] = [:]

    func record(_ marker: String, _ what: String) {
        lock.lock()
        leaks[marker, default: []].append(what)
        lock.unlock()
    }

    func leaks(of marker: String) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return leaks[marker] ?? []
    }
}

/// Serves every path. On the provider's origin it answers with the marker echoed in the configured encoding:
/// in a redirect's `Location` to another host (with the original query string kept), or in an error body.
/// On the other host (reached as `localhost`) it records any marker it receives, and answers 400 with the echo.
struct HostileEchoProvider: Provider, SandboxProviding {
    static let providerName = "hostile"
    static let descriptor = ProviderDescriptor(
        name: "hostile", displayName: "Hostile", summary: "Echoes credentials back in every encoding.",
        docsURL: "https://example.invalid/docs", defaultBaseURL: "https://api.example.invalid",
        auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "echo", summary: "Echo.", itemKind: "echo")], examples: [])
    static var sandboxEnvironment: [String: String] { [:] }
    /// Every path at the root: the providers' own paths (TMDb's `/search/movie`, X's `/2/users/...`) come here.
    static var sandboxPaths: [PathPattern] { ["/**"] }
    /// The real emulators, which answer the item mode's requests before the echo is put into their items.
    static let emulators = try! TestRegistry.builtIn()

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        let settings = context.settings
        guard let marker = settings["hostile.marker"], let core = settings["hostile.core"],
            let encoding = settings["hostile.encoding"], let port = context.baseURL.port
        else { return nil }
        // The same server under another name is another origin to the client.
        let other = "http://localhost:\(port)"
        let echo = MarkerForms.encodings(of: marker).first { $0.name == encoding }?.form ?? marker

        if request.headers["Host"]?.hasPrefix("localhost") == true {
            let seen = ([request.path] + request.query.flatMap { [$0.name, $0.value] } + request.headers.map { "\($0.name): \($0.value)" }
                + [String(decoding: request.body, as: UTF8.self)]).joined(separator: "\n")
            if let leak = MarkerForms.leaks(marker, core: core, in: seen) { LeakLog.shared.record(marker, leak) }
            return errorBody(400, echo: echo)
        }
        LeakLog.shared.record(marker + "#answered", request.path)
        switch settings["hostile.mode"] {
        case "item":
            return itemAnswer(request, marker: marker, echo: echo, settings: settings, context: context)
        case "redirect":
            var items = request.query.map { (name: $0.name, value: $0.value) }
            items.append((name: "echo", value: echo))
            // Written by hand so the echo keeps its encoding exactly (even where that makes the URL unparseable).
            let query = items.map { item in
                let name = item.name.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? item.name
                let value = item.name == "echo" ? item.value : item.value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? item.value
                return "\(name)=\(value)"
            }.joined(separator: "&")
            let location = "\(other)/elsewhere?\(query)"
            return SandboxResponse(status: 302, headers: ["Location": location, "Content-Type": "text/plain"], body: Data("moved: \(echo)".utf8))
        default:
            return errorBody(401, echo: echo)
        }
    }

    /// The real emulator's successful answer to `request` (asked with its stand-in credential instead of the marker),
    /// with the echo appended to every title-like text, so the provider's items carry it.
    static func itemAnswer(_ request: SandboxRequest, marker: String, echo: String, settings: [String: String], context: SandboxContext) -> SandboxResponse? {
        guard let provider = settings["hostile.provider"], let variable = settings["hostile.variable"],
            let environment = emulators.sandbox(named: provider)?.sandboxEnvironment
        else { return errorBody(500, echo: "no emulator") }
        // The variable's own stand-in; an alias (TWITTER_BEARER_TOKEN for X_BEARER_TOKEN) takes the one there is, and
        // an optional one that the emulator does not check (KIVA_APP_ID) takes any word.
        let standIn = environment[variable] ?? environment.sorted { $0.key < $1.key }.first?.value ?? "sandbox-app"
        func swap(_ text: String) -> String {
            let encoded = marker.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? marker
            return text.replacingOccurrences(of: marker, with: standIn).replacingOccurrences(of: encoded, with: standIn)
        }
        var forwarded = request
        forwarded.path = "/\(provider)" + request.path
        forwarded.query = request.query.map { ($0.name, swap($0.value)) }
        forwarded.headers = HTTPHeaders(request.headers.map { ($0.name, swap($0.value)) }.filter { $0.0.lowercased() != "host" })
        forwarded.body = Data(swap(String(decoding: request.body, as: UTF8.self)).utf8)
        let answer = SandboxRouter(catalog: emulators).respond(to: forwarded, serverURL: context.baseURL, store: nil).response
        guard answer.status == 200, let json = try? JSONParser().parse(answer.body) else { return answer }
        let placeholder = "HOSTILE-ECHO-PLACEHOLDER"
        let titled: Set<String> = ["title", "name", "full_name", "overview", "text", "full_text", "description", "story_title", "use", "summary"]
        func inject(_ value: JSONValue, key: String?) -> JSONValue {
            switch value {
            case .string(let text) where key.map(titled.contains) == true: return .string(text + " " + placeholder)
            case .array(let elements): return .array(elements.map { inject($0, key: nil) })
            case .object(let object): return .object(JSONObject(object.members.map { JSONObject.Member($0.key, inject($0.value, key: $0.key)) }))
            default: return value
            }
        }
        var headers = answer.headers
        headers["ETag"] = nil
        // The echo goes into the JSON text as it is, so its escapes are the wire's (`\/` is a JSON escape there).
        let body = JSONWriter().string(inject(json, key: nil)).replacingOccurrences(of: placeholder, with: echo)
        return SandboxResponse(status: 200, headers: headers, body: Data(body.utf8))
    }

    /// A JSON-looking error body written as text, so the echo's escapes survive as sent.
    static func errorBody(_ status: Int, echo: String) -> SandboxResponse {
        let text = #"{"message":"invalid credential \#(echo)","status_message":"\#(echo)","detail":"\#(echo)","errors":[{"message":"\#(echo)","code":"\#(echo)"}],"problem":"\#(echo)","error":"\#(echo)"}"#
        return SandboxResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }
}

// MARK: - The test

/// A hostile server echoing marker credentials in every encoding, for every provider credential: nothing of the
/// marker reaches stdout or stderr (with `--verbose`), and no credential reaches the other host.
@Suite(.serialized) struct HostileEchoTests {
    struct Credential: Sendable, CustomTestStringConvertible {
        var variable: String
        var provider: String
        var arguments: [String]
        var testDescription: String { "\(variable)" }
    }

    static let credentials = [
        Credential(variable: "MEETUP_API_KEY", provider: "MEETUP", arguments: ["meetup", "--lat", "51.5", "--lon", "-0.13", "--api", "v2"]),
        Credential(variable: "MEETUP_TOKEN", provider: "MEETUP", arguments: ["meetup", "--lat", "51.5", "--lon", "-0.13", "--api", "graphql"]),
        Credential(variable: "TMDB_ACCESS_TOKEN", provider: "TMDB", arguments: ["tmdb", "search", "batman"]),
        Credential(variable: "TMDB_API_KEY", provider: "TMDB", arguments: ["tmdb", "popular"]),
        Credential(variable: "X_BEARER_TOKEN", provider: "TWITTER", arguments: ["twitter", "nasa"]),
        Credential(variable: "TWITTER_BEARER_TOKEN", provider: "TWITTER", arguments: ["twitter", "nasa", "--api", "v1.1"]),
        Credential(variable: "KIVA_APP_ID", provider: "KIVA", arguments: ["kiva", "newest", "--api", "rest"]),
        Credential(variable: "GITHUB_TOKEN", provider: "GITHUB", arguments: ["github", "search", "swift"]),
    ]

    @Test(arguments: credentials)
    func noEncodingOfAnEchoedCredentialGetsOut(_ credential: Credential) async throws {
        for mode in ["redirect", "body", "item"] {
            for encoding in MarkerForms.encodings(of: "x").map(\.name) {
                let core = UUID().uuidString.replacingOccurrences(of: "-", with: "")
                // '+', '/', '=' and ':' are the characters encodings disagree on.
                let marker = "Mk+/=:\(core)"
                var configuration = SandboxServerConfiguration(port: 0, log: { _ in })
                configuration.settings = [
                    "hostile.marker": marker, "hostile.core": core, "hostile.encoding": encoding, "hostile.mode": mode,
                    "hostile.provider": credential.provider.lowercased(), "hostile.variable": credential.variable,
                ]
                let hostile = SandboxServer(catalog: try SandboxCatalog([HostileEchoProvider.self], sandboxes: [HostileEchoProvider.self]), configuration: configuration)
                try hostile.start()
                defer { hostile.stop() }

                let environment = [
                    credential.variable: marker, "AGGREGATE_\(credential.provider)_BASE_URL": hostile.baseURL.absoluteString,
                ]
                // Items reach every format: the text view, JSON and CSV are each checked.
                let formats = mode == "item" ? ["text", "json", "csv"] : ["text"]
                for format in formats {
                let output = await CLIHarness(environment: environment).run(credential.arguments + ["--verbose", "--timeout", "5", "--format", format, "--no-cache"])
                let context = "\(credential.variable) \(mode) \(encoding) \(format)"
                if mode == "item" {
                    #expect(output.code == .success, "\(context): \(output.stderr)")
                    #expect(output.stdout.contains("***"), "\(context): the echo must reach the items and be masked there:\n\(output.stdout)")
                } else {
                    #expect(output.code != .success, "\(context)")
                }
                if let leak = MarkerForms.leaks(marker, core: core, in: output.stdout + output.stderr) {
                    Issue.record("\(context): \(leak) reached the output:\n\(output.stderr)")
                }
                #expect(LeakLog.shared.leaks(of: marker).isEmpty, "\(context): the other host received \(LeakLog.shared.leaks(of: marker))")
                if mode == "item", format == "text" {
                    // The files a run writes: the disk cache (the binary's, live) and a cassette (`--record`).
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-files-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: folder) }
                    var files = environment
                    files["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
                    let cached = try Binary.run(credential.arguments + ["--timeout", "5"], environment: files)
                    let recorded = try Binary.run(credential.arguments + ["--timeout", "5", "--record", folder.appendingPathComponent("cassette").path], environment: files)
                    #expect(cached.status == 0 && recorded.status == 0, "\(context): \(cached.stderr)\(recorded.stderr)")
                    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("cassette/cassette.json").path), "\(context)")
                    let written = (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL]) ?? []
                    #expect(!written.isEmpty, "\(context)")
                    for url in written {
                        guard let data = FileManager.default.contents(atPath: url.path) else { continue }
                        if let leak = MarkerForms.leaks(marker, core: core, in: String(decoding: data, as: UTF8.self) + cached.stdout + recorded.stdout) {
                            Issue.record("\(context): \(leak) reached \(url.lastPathComponent)")
                        }
                    }
                }
                // The hostile handler itself must have answered: the test would prove nothing otherwise.
                #expect(!LeakLog.shared.leaks(of: marker + "#answered").isEmpty, "\(context): the hostile server was never asked")
                }
            }
        }
    }
}
