import AggregateCore
import AggregateScaffold
import AggregateTestSupport
import Foundation
import Testing

/// The compiled-in definitions (`Providers/<Name>/provider.json` and the samples it lists) are embedded in two
/// generated Swift files. This test fails while they are stale; run it with `AGGREGATE_WRITE_GENERATED=1` to
/// rewrite them (no Python needed).
@Suite struct DefinitionEmbeddingTests {
    @Test func theGeneratedFilesHoldEveryDefinitionAndItsSamples() throws {
        let files = try GeneratedSources.builtInDefinitionFiles(providersFolder: ProviderFolders.root)
        for file in files {
            let url = TestPaths.packageRoot.appendingPathComponent(file.path)
            if ProcessInfo.processInfo.environment["AGGREGATE_WRITE_GENERATED"] == "1" { try Data(file.text.utf8).write(to: url) }
            let current = try? String(contentsOf: url, encoding: .utf8)
            #expect(current == file.text, "\(file.path) is stale: run AGGREGATE_WRITE_GENERATED=1 swift test --filter DefinitionEmbeddingTests")
        }
    }

}
