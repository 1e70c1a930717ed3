import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// A server that points clients at another origin (itself, reached as `localhost`) in the ways issue 27 found
/// credentials escaping by: a `Link` next page with the query credential copied into it, a `Location` with the
/// token as its password, and a `Location` with the token in its path. Whatever reaches the other origin is kept.
struct OriginHopServer: SandboxProviding {
    static let providerName = "leak"
    static var sandboxEnvironment: [String: String] { [:] }
    static let received = ReceivedLog()

    final class ReceivedLog: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String: [String]] = [:]
        func append(_ line: String, run: String) {
            lock.lock()
            lines[run, default: []].append(line)
            lock.unlock()
        }
        func lines(of run: String) -> [String] {
            lock.lock()
            defer { lock.unlock() }
            return lines[run] ?? []
        }
    }

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard let token = context.settings["leak.token"], let run = context.settings["leak.run"], let port = context.baseURL.port else { return nil }
        let other = "http://localhost:\(port)"
        if request.headers["Host"]?.hasPrefix("localhost") == true {
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            received.append(([request.path + "?" + query] + request.headers.map { "\($0.name): \($0.value)" }).joined(separator: "\n"), run: run)
            return .json([], status: 200)
        }
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? token
        switch context.settings["leak.mode"] {
        case "userinfo":
            // The token's letters and digits only: FoundationNetworking itself fails an exchange whose Location has
            // `%2F` or `%3D` in its password, before the fetch layer sees the answer (nothing is sent then either).
            let password = token.filter { $0.isLetter || $0.isNumber }
            return SandboxResponse(status: 302, headers: ["Location": "http://u:\(password)@localhost:\(port)/elsewhere", "Content-Type": "text/plain"])
        case "path":
            return SandboxResponse(status: 302, headers: ["Location": "\(other)/leak/\(encoded)/search"])
        default:
            let next = "\(other)/leak/search?q=x&credential=\(encoded)&page=2"
            return .json([["id": "1", "title": "one"]], headers: ["Link": "<\(next)>; rel=\"next\""])
        }
    }
}

/// One origin policy for redirects, `Link` headers and body next URLs (issue 27): through the binary, a credential
/// never reaches another origin in any of those ways.
@Suite(.serialized) struct OriginPolicyTests {
    static let token = "Lq2+/=Qp5sZ"

    /// A definition with a query-parameter credential and `Link` paging, as the issue's repro has it.
    static func definition() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("origin-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = #"""
            {"name": "leak", "displayName": "Leak", "summary": "Hops to other origins.", "docsURL": "https://leak.example/docs",
             "baseURL": "https://api.leak.example",
             "auth": [{"variable": "LEAK_KEY", "in": "query", "parameter": "credential", "required": true}],
             "operations": [{"name": "search", "summary": "Search.", "kind": "record",
               "parameters": [{"name": "query", "positional": true, "required": true, "help": "Words."}],
               "request": {"path": "/search", "query": {"q": "{query}"}},
               "pagination": {"kind": "link"}, "records": ".", "item": {"id": "id", "title": "title"}}]}
            """#
        let file = folder.appendingPathComponent("leak.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    static func run(mode: String) throws -> (output: Binary.Output, received: [String]) {
        let run = UUID().uuidString
        var configuration = SandboxServerConfiguration(port: 0, log: { _ in })
        configuration.settings = ["leak.token": token, "leak.run": run, "leak.mode": mode]
        let registry = try ProviderRegistry(providers: [StubProvider()])
        let server = SandboxServer(catalog: try SandboxCatalog(registry, sandboxes: [SandboxOfType(OriginHopServer.self)]), configuration: configuration)
        try server.start()
        defer { server.stop() }
        let output = try Binary.run(
            ["--provider-file", try definition().path, "leak", "search", "x", "--base-url", server.baseURL.absoluteString + "/leak", "--timeout", "5"],
            environment: ["LEAK_KEY": token])
        return (output, OriginHopServer.received.lines(of: run))
    }

    static func leaks(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains("qp5sz") || lower.contains("lq2%2b") || text.contains(Data(token.utf8).base64EncodedString().prefix(10))
    }

    @Test func aLinkToAnotherOriginIsFollowedWithoutTheCredentialCopiedIntoIt() throws {
        let (output, received) = try Self.run(mode: "link")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("one"))
        #expect(received.count == 1, "the next page is asked for at the other origin: \(received)")
        #expect(!received.contains(where: Self.leaks), "\(received)")
        #expect(!Self.leaks(output.stdout + output.stderr))
    }

    /// A `Location` with a user and password, and one with the token in its path: each refused in one line, nothing
    /// sent to the other origin.
    @Test(arguments: [("userinfo", "names a user or password"), ("path", "holds the credential")])
    func aLocationThatWouldCarryTheCredentialIsRefused(mode: String, reason: String) throws {
        let (output, received) = try Self.run(mode: mode)
        #expect(output.status == 1)
        #expect(received.isEmpty, "\(received)")
        #expect(output.stderr.contains(reason), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(!Self.leaks(output.stdout + output.stderr))
    }
}

/// The provider the catalog needs beside the hop server; the binary reads the real definition from its file.
private struct StubProvider: Provider {
    static let descriptor = ProviderDescriptor(
        name: "leak", displayName: "Leak", summary: "Stands in for the definition.", docsURL: "https://example.invalid",
        defaultBaseURL: "https://api.leak.example", auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "search", summary: "Search.", itemKind: "record")], examples: [])
    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }
}
