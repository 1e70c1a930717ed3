import AggregateCore
import AggregateProviders
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// Which servers a provider can reach: IPv6 loopback, the wildcard addresses servers print, and plain http to
/// other hosts only with `--allow-http`.
@Suite struct HostReachabilityTests {
    /// The provider's first example against a live sandbox at `--base-url baseURL`, with the sandbox's credentials.
    func runFirstExample(of provider: any RunnableProvider, baseURL: String) async -> CLIHarness.Output {
        await CLIHarness(environment: allSandboxes.first { $0.providerName == provider.descriptor.name }?.sandboxEnvironment ?? [:])
            .run(provider.descriptor.examples[0].arguments + ["--base-url", baseURL, "--quiet"])
    }

    @Test(arguments: allProviders.map { $0.descriptor.name })
    func everyProviderWorksOverIPv6Loopback(_ name: String) async throws {
        let provider = try ProviderRegistry(allProviders, sandboxes: allSandboxes).require(name)
        let sandbox = try LoopbackSandbox(host: "::1")
        let url = "http://[::1]:\(sandbox.server.port)"
        let output = await runFirstExample(of: provider, baseURL: url)
        #expect(output.code == .success, "\(output.stderr)")
        #expect(output.stderr.isEmpty)
        #expect(!output.stdout.isEmpty)
        #expect(sandbox.server.requestCount > 0, "the requests went to the server on ::1")
    }

    @Test(arguments: [("0.0.0.0", "0.0.0.0"), ("::", "[::]")])
    func wildcardAddressesAreThisMachine(_ bind: String, _ host: String) async throws {
        let sandbox = try LoopbackSandbox(host: bind)
        let output = await CLIHarness(environment: ["MESSAGEBOARD_URL": "http://\(host):\(sandbox.server.port)"])
            .run(["messageboard", "list", "--limit", "2", "--quiet"])
        #expect(output.code == .success, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").count >= 2)
        #expect(PlainHTTP.isThisMachine(host))
    }

    @Test func aPostThatNeverConnectedSaysNothingWasSent() async throws {
        let port = try LoopbackSandbox(host: "::1").server.port  // free once the sandbox is gone
        let output = await CLIHarness(environment: ["MESSAGEBOARD_URL": "http://[::1]:\(port)"])
            .run(["messageboard", "post", "--name", "Ana", "--message", "hello"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasSuffix("; nothing was sent\n"), "\(output.stderr)")
        #expect(!output.stderr.contains("may or may not"))
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func otherPlainHTTPHostsAreRefusedBeforeAnythingIsSent() async throws {
        let sent = Recorder<HTTPRequest>()
        var harness = CLIHarness(environment: ["MESSAGEBOARD_URL": "http://board.example:3000"])
        harness.makeTransport = { FakeTransport { request in sent.append(request); return HTTPResponse(status: 200, body: Data("[]".utf8), url: request.url) } }
        let refused = await harness.run(["messageboard", "list"])
        #expect(refused.code == .config)
        #expect(refused.stderr == "Error: messageboard: refusing plain http:// to board.example: use https://, or pass --allow-http to send requests to it unencrypted\n")
        #expect(sent.values.isEmpty)

        let allowed = await harness.run(["messageboard", "list", "--allow-http"])
        #expect(allowed.code == .success, "\(allowed.stderr)")
        #expect(allowed.stderr.hasPrefix(
            "warning: messageboard: sending plain http:// to board.example: requests and answers can be read and changed on the network\n"))
        #expect(allowed.stderr.components(separatedBy: "plain http").count == 2, "one warning")
        #expect(sent.values.map(\.url.absoluteString) == ["http://board.example:3000/messages.json"])
        let quiet = await harness.run(["messageboard", "list", "--allow-http", "--quiet"])
        #expect(quiet.stderr.isEmpty)
    }

    @Test func theFetchOptionAlsoGuardsRedirects() throws {
        #expect(PlainHTTP.isAllowed(URL(string: "http://[::1]:3000")!, allowHTTP: false))
        #expect(PlainHTTP.isAllowed(URL(string: "http://0.0.0.0:3000")!, allowHTTP: false))
        #expect(!PlainHTTP.isAllowed(URL(string: "http://192.168.1.20:3000")!, allowHTTP: false))
        #expect(PlainHTTP.isAllowed(URL(string: "http://192.168.1.20:3000")!, allowHTTP: true))
        #expect(!PlainHTTP.isAllowed(URL(string: "ftp://127.0.0.1")!, allowHTTP: true))
    }
}
