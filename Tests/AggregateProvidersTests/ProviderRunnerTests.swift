import AggregateCore
import AggregateProviders
import AggregateSandbox
import Foundation
import Testing
import TMDbProvider

/// The library runs an invocation as the command line does, without the command line.
@Suite struct ProviderRunnerTests {
    let runner = ProviderRunner(registry: try! ProviderRegistry(allProviders, sandboxes: allSandboxes), environment: [:])

    @Test func anOfflineRunAnswersFromTheEmulatorWithItsStandInCredentials() async {
        let result = await runner.run(
            TMDbProvider.self, operation: "search", parameters: ["query": "the amazing spider-man"], settings: .init(limit: 5, offline: true))
        #expect(result.error == nil)
        #expect(result.meta.source == .offline)
        #expect(result.items.map(\.title).contains("The Amazing Spider-Man"))
    }

    @Test func aLiveRunWithoutCredentialsStopsBeforeSendingAnything() async {
        let result = await runner.run(
            TMDbProvider.self, operation: "search", parameters: ["query": "batman"],
            transport: FakeNetwork())
        #expect(result.error?.kind == .config)
        #expect(result.error?.message.hasPrefix("no credentials: set TMDB_ACCESS_TOKEN") == true)
        #expect(result.meta.requests == 0)
    }

    @Test func aBadBaseURLIsAConfigurationError() async {
        let result = await runner.run(
            TMDbProvider.self, operation: "popular", parameters: [:], settings: .init(baseURL: "ftp://example.com"),
            environment: ["TMDB_API_KEY": "k"])
        #expect(result.error?.kind == .config)
        #expect(result.error?.provider == "tmdb")
    }
}

/// A transport that must not be used.
private struct FakeNetwork: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        Issue.record("nothing should be sent: \(request.url)")
        return HTTPResponse(status: 500)
    }
}
