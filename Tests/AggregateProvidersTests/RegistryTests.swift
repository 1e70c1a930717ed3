import AggregateCore
import AggregateProviders
import AggregateTestSupport
import Foundation
import Testing

/// Guards that every provider folder is registered exactly once, and that every descriptor is usable.
@Suite struct RegistryTests {
    @Test func registryHoldsExactlyTheProviderFolders() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: TestPaths.packageRoot.appendingPathComponent("Providers").path)
            .filter { !$0.hasPrefix(".") }
        let registered = allProviders.map { String(describing: $0).replacingOccurrences(of: "Provider", with: "") }
        #expect(Set(folders) == Set(registered), "Providers/ and allProviders must list the same providers")
        #expect(try ProviderRegistry(allProviders).names.count == folders.count)
    }

    @Test func duplicateNamesAreRejected() {
        #expect(throws: AggregateError.self) { try ProviderRegistry(allProviders + allProviders) }
    }

    @Test func unknownNamesAreUsageErrorsListingTheValidNames() throws {
        let registry = try ProviderRegistry(allProviders)
        do {
            _ = try registry.require("nope")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .usage)
            for name in registry.names { #expect(error.message.contains(name)) }
        }
    }

    @Test(arguments: allProviders.map { $0.descriptor.name })
    func descriptorIsComplete(_ name: String) throws {
        let descriptor = try ProviderRegistry(allProviders).require(name).descriptor
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

    @Test(.requires(.python3)) func sampleDataSourcesAreUpToDate() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestPaths.packageRoot.appendingPathComponent("scripts/generate-sample-data.py").path, "--check"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
