import AggregateCore
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// A run reads only the definitions it needs: the compiled-in definitions are named by a first look at their JSON
/// and read in full (with their emulators) only when a run asks for one of them (issue #24, start-up).
@Suite struct OfflineStartupTests {
    static let definitions = ["devto", "github", "hackernews", "jikan", "nytimes"]
    static let otherSwiftProviders = ["meetup", "kiva", "twitter", "messageboard"]

    static func run(_ arguments: [String], catalog: SandboxCatalog) async -> (code: ExitCode, stdout: String) {
        let out = Buffer()
        let context = Context(
            catalog: catalog,
            environment: ["XDG_CACHE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-\(UUID().uuidString)").path],
            console: Console(out: { out.append($0) }, err: { _ in }),
            terminal: Terminal(stdoutIsTerminal: false, stderrIsTerminal: false, stdinIsTerminal: false, width: 100, colorOnStdout: false, colorOnStderr: false),
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-tests-\(UUID().uuidString)"))
        let code = await App(context: context).run(arguments)
        return (code, out.text)
    }

    @Test func anOfflineRunOfASwiftProviderReadsNoDefinition() async throws {
        let catalog = try TestRegistry.builtIn()
        #expect(Self.definitions.allSatisfy { !catalog.registry.hasMade($0) })
        let (code, stdout) = await Self.run(["tmdb", "popular", "--offline", "--limit", "1"], catalog: catalog)
        #expect(code == .success)
        #expect(stdout.hasPrefix("Dune (2021)"))
        #expect(catalog.registry.hasMade("tmdb"))
        #expect(Self.definitions.allSatisfy { !catalog.registry.hasMade($0) }, "a definition was read for a TMDb run")
        #expect(Self.otherSwiftProviders.allSatisfy { !catalog.registry.hasMade($0) }, "another Swift provider was made for a TMDb run")
    }

    @Test func anOfflineRunOfADefinitionReadsThatDefinitionOnly() async throws {
        let catalog = try TestRegistry.builtIn()
        let (code, stdout) = await Self.run(["hackernews", "search", "swift", "--offline", "--limit", "2", "--format", "ndjson"], catalog: catalog)
        #expect(code == .success)
        #expect(stdout.split(separator: "\n").count == 2)
        #expect(catalog.registry.hasMade("hackernews"))
        #expect(Self.definitions.filter { $0 != "hackernews" }.allSatisfy { !catalog.registry.hasMade($0) })
    }

    @Test func listingTheProvidersReadsThemAll() async throws {
        let catalog = try TestRegistry.builtIn()
        let (code, stdout) = await Self.run(["providers"], catalog: catalog)
        #expect(code == .success)
        #expect(Self.definitions.allSatisfy { stdout.contains($0) && catalog.registry.hasMade($0) })
        #expect(catalog.registry.providers.map(\.descriptor.name) == catalog.registry.names)
    }

    @Test func aDeferredDefinitionHasTheNameAndOriginItWouldHaveHadRead() throws {
        let deferred = try TestRegistry.builtIn().registry
        for name in Self.definitions {
            #expect(deferred.origin(of: name) == .builtInDefinition)
            #expect(deferred.provider(named: name)?.descriptor.name == name)
            #expect(deferred.brokenProvider(named: name) == nil)
        }
        #expect(deferred.broken.isEmpty)
    }
}
