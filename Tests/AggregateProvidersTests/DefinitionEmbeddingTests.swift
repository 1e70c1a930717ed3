import AggregateCore
import AggregateDefinitions
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateScaffold
import AggregateTestSupport
import Foundation
import Testing

/// The compiled-in definitions (`Providers/<Name>/provider.json` with no Swift file) and their samples are embedded
/// in two generated Swift files. This suite fails while they are stale; run it with `AGGREGATE_WRITE_GENERATED=1`
/// to rewrite them.
@Suite struct DefinitionEmbeddingTests {
    static let definitionsFile = DefinitionEmbedding.definitionsFile
    static let samplesFile = DefinitionEmbedding.samplesFile

    @Test func generatedFilesMatchTheDefinitionFolders() throws {
        let folders = ProviderFolders.definitions
        try Self.check(Self.definitionsFile, wanted: try DefinitionEmbedding.definitions(folders: folders, root: ProviderFolders.root))
        try Self.check(Self.samplesFile, wanted: try DefinitionEmbedding.samples(folders: folders, root: ProviderFolders.root))
        let schema = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(DefinitionEmbedding.schemaSource), encoding: .utf8)
        try Self.check(DefinitionEmbedding.schemaFile, wanted: try DefinitionEmbedding.schema(schema))
        // The compiled binary catches up with rewritten files at the next build.
        if ProcessInfo.processInfo.environment["AGGREGATE_WRITE_GENERATED"] != "1" { #expect(builtInDefinitions.map(\.folder) == folders) }
    }

    /// A package with no definition folder (a fresh scaffold) still gets both files, declaring empty collections.
    @Test func withoutDefinitionFoldersTheFilesDeclareEmptyCollections() throws {
        #expect(DefinitionEmbedding.definitions([]).hasSuffix("file's exact text.\npublic let builtInDefinitions: [(folder: String, json: String)] = []\n"))
        #expect(try DefinitionEmbedding.samples([]).hasSuffix("as the definition lists it.\npublic let builtInDefinitionSamples: [String: [String: String]] = [:]\n"))
    }

    @Test func everyCompiledInDefinitionLoadsWithItsSamples() throws {
        let registry = try SandboxCatalog.withDefinitions(
            swift: allProviders, sandboxes: allSandboxes, builtIn: builtInDefinitions, samples: builtInDefinitionSamples, files: [])
        #expect(registry.registry.broken.isEmpty, "\(registry.registry.broken.map(\.error.message))")
        for (folder, json) in builtInDefinitions {
            let definition = try ProviderDefinition(json: Data(json.utf8))
            #expect(registry.registry.origin(of: definition.name) == .builtInDefinition)
            for file in definition.samples.values.flatMap({ $0 }) {
                #expect(builtInDefinitionSamples[folder]?[file] != nil, "Providers/\(folder)/\(file) is listed but not embedded")
            }
        }
    }

    /// The generator itself, on a folder made for the test: the text is embedded exactly, sample paths are keyed as
    /// the definition lists them, and invalid JSON is refused.
    @Test func theGeneratorEmbedsExactTextAndRefusesInvalidJSON() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("definition-embedding-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Demo/SampleData")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let definition = ##"{"name": "demo", "quote": "\"\"\"#"}"##
        try Data(definition.utf8).write(to: root.appendingPathComponent("Demo/provider.json"))
        try Data(#"{"hits": []}"#.utf8).write(to: folder.appendingPathComponent("search-1.json"))
        let rendered = try DefinitionEmbedding.definitions(folders: ["Demo"], root: root)
        #expect(rendered.contains("(folder: \"Demo\", json: ##\"\"\"\n\(definition)\n\"\"\"##)"))
        let samples = try DefinitionEmbedding.samples(folders: ["Demo"], root: root)
        #expect(samples.contains("\"SampleData/search-1.json\": #\"\"\"\n{\"hits\": []}\n\"\"\"#"))
        try Data("{not json".utf8).write(to: folder.appendingPathComponent("broken.json"))
        #expect(throws: (any Error).self) { try DefinitionEmbedding.samples(folders: ["Demo"], root: root) }
    }

    static func check(_ path: String, wanted: String) throws {
        let file = TestPaths.packageRoot.appendingPathComponent(path)
        if ProcessInfo.processInfo.environment["AGGREGATE_WRITE_GENERATED"] == "1" { try Data(wanted.utf8).write(to: file) }
        let current = try? String(contentsOf: file, encoding: .utf8)
        #expect(current == wanted, "\(path) is stale: run AGGREGATE_WRITE_GENERATED=1 swift test --filter DefinitionEmbeddingTests")
    }
}
