import AggregateCore
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which provider answers a path at the sandbox's root is decided by the paths each one declares, never by
/// the order of the registry: normal answers, injected faults and the log all name the owner.
@Suite struct SandboxPathOwnershipTests {
    @Test func patternsMatchSegmentsAndWildcards() {
        let tweets: PathPattern = "/2/users/*/tweets"
        #expect(tweets.matches("/2/users/12/tweets"))
        #expect(!tweets.matches("/2/users/12/tweets/extra"))
        #expect(!tweets.matches("/2/users/tweets"))
        let rest: PathPattern = "/v1/**"
        #expect(rest.matches("/v1") && rest.matches("/v1/loans/newest.json"))
        #expect(!rest.matches("/v2/loans"))
        #expect(("/2/groups" as PathPattern).matches("/2/groups/"))
    }

    @Test func overlapIsDecidedByPatternNotByOrder() {
        #expect(!("/2/groups" as PathPattern).overlaps("/2/users/**"))
        #expect(("/2/**" as PathPattern).overlaps("/2/groups"))
        #expect(("/2/*/tweets" as PathPattern).overlaps("/2/users/*"))
        #expect(!("/2/*/tweets" as PathPattern).overlaps("/2/users/*/likes"))
        #expect(("/messages/*" as PathPattern).overlaps("/*/1"))
    }

    @Test func overlappingClaimsAreRefusedWhenTheRegistryIsBuilt() {
        #expect(throws: Never.self) { try SandboxCatalog(allProviders, sandboxes: allSandboxes) }
        do {
            _ = try SandboxCatalog(allProviders + [GreedyProvider.self], sandboxes: allSandboxes + [GreedyProvider.self])
            Issue.record("two providers claiming /2/users/... were accepted")
        } catch let error as AggregateError {
            #expect(error.kind == .config)
            #expect(error.message.contains("twitter /2/users/**") && error.message.contains("greedy /2/users/*/tweets"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func everyBundledProviderOwnsItsRootPathsAndNoOneElses() throws {
        let registry = try SandboxCatalog(allProviders, sandboxes: allSandboxes)
        for probe in Self.probes {
            #expect(registry.sandboxOwner(of: probe.path)?.providerName == probe.provider, "\(probe.path)")
        }
        #expect(registry.sandboxOwner(of: "/nothing/here") == nil)
    }

    /// One path of each provider, as the real API spells it.
    static let probes: [(provider: String, path: String)] = [
        ("meetup", "/2/groups"), ("kiva", "/v1/loans/newest.json"), ("tmdb", "/3/movie/popular"),
        ("twitter", "/2/users/2244994945/tweets"), ("twitter", "/1.1/statuses/user_timeline.json"), ("messageboard", "/messages.json"),
    ]

    /// An injected `status=` answers in the owner's own error shape at the root and under `/<name>`, and the log
    /// names the owner, whatever the registry's order.
    @Test(arguments: [false, true])
    func faultsAtTheRootAnswerInTheOwnersShape(reversed: Bool) async throws {
        let log = Recorder<String>()
        var configuration = SandboxServerConfiguration(port: 0, log: { log.append($0) })
        configuration.store = SandboxStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("ownership-\(UUID().uuidString)"))
        let providers = reversed ? Array(allProviders.reversed()) : allProviders
        let sandboxes = reversed ? Array(allSandboxes.reversed()) : allSandboxes
        let server = SandboxServer(catalog: try SandboxCatalog(providers, sandboxes: sandboxes), configuration: configuration)
        try server.start()
        defer { server.stop() }
        for probe in Self.probes {
            let owner = try #require(allSandboxes.first { $0.providerName == probe.provider })
            let shape = owner.sandboxFaultResponse(
                status: 503, request: SandboxRequest(method: "GET", path: probe.path),
                context: SandboxContext(baseURL: server.baseURL, store: configuration.store))
            let expected = try #require(shape)
            for path in [probe.path, "/\(probe.provider)\(probe.path)"] {
                let (body, response) = try await Self.get(server.baseURL.absoluteString + path, fault: "status=503")
                #expect(response.statusCode == 503, "\(path)")
                #expect(try JSONParser().parse(body) == JSONParser().parse(expected.body), "\(path) in \(probe.provider)'s shape")
                #expect(
                    response.value(forHTTPHeaderField: "Content-Type") == expected.headers["Content-Type"], "\(path)")
                let line = try #require(log.waitFor(" GET \(path) -> 503"), "\(path) logged")
                #expect(line.contains(" ms \(probe.provider) [fault (header)"), "\(line)")
            }
        }
    }

    @Test func aRateLimitAtTheRootOnAnXPathCarriesXsHeaders() async throws {
        let server = SandboxServer(catalog: try SandboxCatalog(allProviders, sandboxes: allSandboxes), configuration: SandboxServerConfiguration(port: 0, log: { _ in }))
        try server.start()
        defer { server.stop() }
        let (body, response) = try await Self.get(server.baseURL.absoluteString + "/2/users/2244994945/tweets", fault: "status=429")
        #expect(response.statusCode == 429)
        #expect(response.value(forHTTPHeaderField: "x-rate-limit-remaining") == "0")
        #expect(response.value(forHTTPHeaderField: "x-rate-limit-limit") == "10000")
        #expect(try JSONParser().parse(body)["title"] == "Too Many Requests")
    }

    static func get(_ url: String, fault: String) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.setValue(fault, forHTTPHeaderField: "X-Sandbox-Fault")
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }
}

/// A provider that claims a path X's `/2/users/**` already covers.
private struct GreedyProvider: Provider, SandboxProviding {
    static let providerName = "greedy"
    static let descriptor = ProviderDescriptor(
        name: "greedy", displayName: "Greedy", summary: "Claims too much.", docsURL: "https://example.invalid",
        defaultBaseURL: "https://example.invalid", auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "get", summary: "Nothing.", itemKind: "thing")], examples: [])
    static let sandboxEnvironment: [String: String] = [:]
    static let sandboxPaths: [PathPattern] = ["/2/users/*/tweets"]
    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? { nil }
    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }
}

extension Recorder<String> {
    /// The first line containing `text`, waiting for server threads to log it.
    func waitFor(_ text: String, timeout: TimeInterval = 3) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = values.first(where: { $0.contains(text) }) { return line }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return nil
    }
}
