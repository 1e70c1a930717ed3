import AggregateCore
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateScaffold
import AggregateTestSupport
import Foundation
import Testing

/// Guards that every provider folder is registered exactly once, and that every descriptor is usable.
@Suite struct RegistryTests {
    @Test func registryHoldsExactlyTheProviderFolders() throws {
        let folders = ProviderFolders.swift
        let registered = allProviders.map { String(describing: $0).replacingOccurrences(of: "Provider", with: "") }
        #expect(Set(folders) == Set(registered), "Providers/ and allProviders must list the same providers")
        #expect(try SandboxCatalog(allProviders, sandboxes: allSandboxes).registry.names.count == folders.count)
    }

    @Test func duplicateNamesAreRejected() {
        #expect(throws: AggregateError.self) { try ProviderRegistry(allProviders + allProviders) }
    }

    @Test func unknownNamesAreUsageErrorsListingTheValidNames() throws {
        let registry = try SandboxCatalog(allProviders, sandboxes: allSandboxes)
        do {
            _ = try registry.registry.require("nope")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .usage)
            for name in registry.registry.names { #expect(error.message.contains(name)) }
        }
    }

    @Test(arguments: allProviders.map { $0.descriptor.name })
    func descriptorIsComplete(_ name: String) throws {
        let descriptor = try SandboxCatalog(allProviders, sandboxes: allSandboxes).registry.require(name).descriptor
        #expect(!descriptor.summary.isEmpty && descriptor.summary.hasSuffix("."))
        #expect(descriptor.docsURL.hasPrefix("https://"))
        #expect(!descriptor.operations.isEmpty)
        #expect(!descriptor.examples.isEmpty)
        #expect(Set(descriptor.operations.map(\.name)).count == descriptor.operations.count)
        for parameter in descriptor.options + descriptor.operations.flatMap(\.parameters) {
            #expect(!parameter.help.isEmpty, "\(parameter.name) needs help text")
            if let fallback = parameter.defaultValue {
                #expect(throws: Never.self, "the default of \(parameter.name) must be valid") { try parameter.value(from: fallback) }
            }
        }
        for example in descriptor.examples {
            #expect(example.arguments.first == name, "examples start with the provider's name")
        }
    }

    @Test func everyFolderHasOneEmulatorAndTheEmulatorsImportNoClient() throws {
        let root = TestPaths.packageRoot.appendingPathComponent("Providers")
        let folders = ProviderFolders.swift
        #expect(Set(folders.map { $0 + "Sandbox" }) == Set(allSandboxes.map { String(describing: $0) }), "Providers/ and allSandboxes must agree")
        let registry = try SandboxCatalog(allProviders, sandboxes: allSandboxes)
        #expect(Set(registry.sandboxes.map { $0.providerName }) == Set(registry.registry.names))
        for folder in folders {
            let sandbox = root.appendingPathComponent("\(folder)/Sandbox")
            for file in try FileManager.default.contentsOfDirectory(atPath: sandbox.path) where file.hasSuffix(".swift") {
                let text = try String(contentsOf: sandbox.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("import \(folder)Provider"), "\(folder)/Sandbox/\(file) must not import the client")
            }
        }
    }

    /// The emulators' sample data is compiled in from `Providers/<Name>/SampleData/*.json`. This test fails when a
    /// generated file is stale; run it with `AGGREGATE_WRITE_GENERATED=1` to rewrite the generated files.
    @Test func sampleDataSourcesAreUpToDate() throws {
        let root = TestPaths.packageRoot.appendingPathComponent("Providers")
        let rewrite = ProcessInfo.processInfo.environment["AGGREGATE_WRITE_GENERATED"] == "1"
        for folder in ProviderFolders.swift {
            let target = root.appendingPathComponent("\(folder)/Sandbox/Generated/SampleData.swift")
            let wanted = try GeneratedSources.sampleData(provider: folder, folder: root.appendingPathComponent("\(folder)/SampleData"))
            if rewrite {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(wanted.utf8).write(to: target)
            }
            let current = try? String(contentsOf: target, encoding: .utf8)
            #expect(
                current == wanted,
                "Providers/\(folder)/Sandbox/Generated/SampleData.swift is stale: run AGGREGATE_WRITE_GENERATED=1 swift test --filter sampleDataSourcesAreUpToDate")
        }
    }
}

/// The umbrella lists `Sources/AggregateProviders/AllProviders.swift` and `Sources/AggregateSandbox/AllSandboxes.swift`
/// are generated from the folders under `Providers/`: a new folder is added at the end, a removed one dropped, the
/// order of the others kept (it is the order `aggregate providers` and `compare --all` use).
@Suite struct UmbrellaListTests {
    static let providers = TestPaths.packageRoot.appendingPathComponent("Providers")

    @Test(arguments: GeneratedSources.UmbrellaList.allCases.map(\.path))
    func theListMatchesTheFolders(_ path: String) throws {
        let list = try #require(GeneratedSources.UmbrellaList.allCases.first { $0.path == path })
        let file = TestPaths.packageRoot.appendingPathComponent(path)
        let folders = ProviderFolders.swift
        let wanted = list.render(current: (try? String(contentsOf: file, encoding: .utf8)) ?? "", folders: folders)
        if ProcessInfo.processInfo.environment["AGGREGATE_WRITE_GENERATED"] == "1" { try Data(wanted.utf8).write(to: file) }
        let current = try? String(contentsOf: file, encoding: .utf8)
        #expect(current == wanted, "\(path) does not match the folders under Providers/: run AGGREGATE_WRITE_GENERATED=1 swift test --filter UmbrellaListTests")
    }
}
