import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import Foundation
import Testing

/// The message board's `list`, re-expressed as a definition (`Fixtures/Definitions/boardlist`), against the same
/// sandbox data as the Swift provider: the same items, JSON and exit codes, failures included.
@Suite(.serialized) struct DefinitionParityTests {
    static let boardlist = DefinitionFixtures.folder.appendingPathComponent("boardlist/provider.json")

    /// Both providers' results for `list` against a loopback sandbox with `faults`.
    static func results(limit: Int = 50, faults: [String] = []) async throws -> (swift: ProviderResult, definition: ProviderResult) {
        let sandbox = try LoopbackSandbox(faults: faults)
        let registry = try SandboxCatalog.withDefinitions(
            swift: allProviders, sandboxes: allSandboxes, builtIn: [], samples: [:], files: [boardlist])
        let runner = ProviderRunner(catalog: registry, environment: [:], makeTransport: { URLSessionTransport() }, retrySleep: { _ in })
        let settings = ProviderRunner.Settings(limit: limit, baseURL: sandbox.url + "/messageboard")
        let swift = await runner.run(try #require(registry.registry.provider(named: "messageboard")), operation: "list", parameters: [:], settings: settings)
        let definition = await runner.run(try #require(registry.registry.provider(named: "boardlist")), operation: "list", parameters: [:], settings: settings)
        return (swift, definition)
    }

    /// The items' JSON, with the provider's name taken out (it is the one thing that must differ).
    static func itemsJSON(_ result: ProviderResult) -> String {
        JSONWriter(pretty: true).string(.array(result.items.map { item in
            var copy = item
            copy.provider = "-"
            return copy.jsonValue
        }))
    }

    @Test(arguments: [50, 3])
    func theSameItemsInTheSameOrder(_ limit: Int) async throws {
        let (swift, definition) = try await Self.results(limit: limit)
        #expect(swift.error == nil && definition.error == nil)
        #expect(!swift.items.isEmpty)
        #expect(Self.itemsJSON(definition) == Self.itemsJSON(swift))
        #expect(definition.items.map(\.id) == swift.items.map(\.id))
        #expect(ExitCode(for: [definition]) == ExitCode(for: [swift]))
        #expect(definition.meta.pages == swift.meta.pages)
    }

    @Test func theSameJSONOutputThroughTheBinary() throws {
        let base = try LoopbackSandbox()
        let swift = try Binary.run(["messageboard", "list", "--base-url", base.url + "/messageboard", "--format", "json"])
        let definition = try Binary.run(
            ["--provider-file", Self.boardlist.path, "boardlist", "list", "--base-url", base.url + "/messageboard", "--format", "json"])
        #expect(swift.status == 0 && definition.status == 0, "\(definition.stderr)")
        func items(_ output: String) throws -> JSONValue? {
            guard case .array(let items)? = try JSONParser().parse(Data(output.utf8))["results"]?[0]?["items"] else { return nil }
            return .array(items.map { item in
                guard case .object(var object) = item else { return item }
                object["provider"] = "-"
                return .object(object)
            })
        }
        #expect(try items(definition.stdout) == items(swift.stdout))
    }

    @Test(arguments: ["status=500", "status=404", "status=403", "status=429", "malformed", "html"])
    func theSameErrorKindsAndExitCodes(_ fault: String) async throws {
        let (swift, definition) = try await Self.results(faults: [fault])
        let swiftError = try #require(swift.error, "\(fault)")
        let definitionError = try #require(definition.error, "\(fault)")
        #expect(definitionError.kind == swiftError.kind, "\(fault): \(definitionError.message) / \(swiftError.message)")
        #expect(definitionError.httpStatus == swiftError.httpStatus)
        #expect(ExitCode(for: [definition]) == ExitCode(for: [swift]))
    }
}
