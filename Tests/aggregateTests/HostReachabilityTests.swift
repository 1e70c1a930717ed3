import AggregateCore
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
import aggregate

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
        let provider = try SandboxCatalog(allProviders, sandboxes: allSandboxes).registry.require(name)
        let (sandbox, guardedPort) = try ipv6SandboxWithItsIPv4PortHeld()
        let url = "http://[::1]:\(sandbox.server.port)"
        let output = await runFirstExample(of: provider, baseURL: url)
        withExtendedLifetime(guardedPort) {}
        #expect(output.code == .success, "\(output.stderr)")
        #expect(output.stderr.isEmpty)
        #expect(!output.stdout.isEmpty)
        #expect(sandbox.server.requestCount > 0, "the requests went to the server on ::1")
    }

    /// A sandbox on `::1` whose port number is also held, unlistened, on 127.0.0.1. The transport reaches `[::1]`
    /// as `localhost`, which libcurl may also try over IPv4; with the IPv4 port held, that attempt is refused
    /// instead of reaching another test's sandbox that happens to have the same port number on 127.0.0.1.
    func ipv6SandboxWithItsIPv4PortHeld() throws -> (LoopbackSandbox, IPv4PortHold) {
        for _ in 0..<20 {
            let sandbox = try LoopbackSandbox(host: "::1")
            if let hold = IPv4PortHold(port: UInt16(sandbox.server.port)) { return (sandbox, hold) }
        }
        throw AggregateError(.config, "no port was free on both ::1 and 127.0.0.1")
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
        let (sandbox, guardedPort) = try ipv6SandboxWithItsIPv4PortHeld()
        let port = sandbox.server.port
        sandbox.server.stop()  // the port is free on ::1 now, and held (refusing) on 127.0.0.1
        let output = await CLIHarness(environment: ["MESSAGEBOARD_URL": "http://[::1]:\(port)"])
            .run(["messageboard", "post", "--name", "Ana", "--message", "hello"])
        withExtendedLifetime(guardedPort) {}
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

/// A TCP socket bound to 127.0.0.1:`port` without listening, so connections to it are refused; closed on deinit.
final class IPv4PortHold {
    private let descriptor: Int32

    init?(port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
