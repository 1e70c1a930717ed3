import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import TMDbProvider
import Testing

/// The library runs an invocation as the command line does, without the command line.
@Suite struct ProviderRunnerTests {
    let runner = ProviderRunner(catalog: try! SandboxCatalog(allProviders, sandboxes: allSandboxes), environment: [:], makeTransport: { NoNetworkTransport() })

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

/// A command line runs in the library as it does in `aggregate`.
@Suite struct ProviderRunnerArgumentTests {
    let runner = ProviderRunner(catalog: try! SandboxCatalog(allProviders, sandboxes: allSandboxes), environment: [:], makeTransport: { NoNetworkTransport() })

    @Test func aCommandLineRunsAsTheCLIRunsIt() async throws {
        let result = try await runner.run(["tmdb", "search", "leon", "--year", "1994", "--offline"])
        #expect(result.error == nil)
        #expect(result.operation == "search")
        #expect(result.query["year"] == 1994)
        #expect(result.items.first?.title == "Léon: The Professional")
        let meetup = try await runner.run(["meetup", "--lat", "48.8566", "--lon", "2.3522", "--radius", "10", "--limit", "5", "--offline"])
        #expect(meetup.items.count == 5)
    }

    @Test func badCommandLinesAreTheCLIsUsageErrors() async {
        for (arguments, message) in [
            (["nope"], "unknown provider 'nope'. Valid providers: meetup, kiva, tmdb, twitter, messageboard."),
            (["tmdb", "search"], "missing <title> for 'tmdb search'"),
            (["tmdb", "movie", "x", "--offline"], "<id> must be a whole number, not 'x'"),
            (["tmdb", "popular", "--limit", "0"], "--limit must be a whole number from 1 to 10000, not '0'"),
            (["tmdb", "popular", "--offline", "--base-url", "https://example.com"], "--offline and --base-url cannot be used together"),
        ] {
            do {
                _ = try await runner.run(arguments)
                Issue.record("\(arguments) must fail")
            } catch {
                #expect(error.kind == .usage)
                #expect(error.message == message, "\(arguments)")
            }
        }
    }
}
