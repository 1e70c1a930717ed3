import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// One declared example of one provider, as a test case.
struct ExampleCase: Sendable, CustomTestStringConvertible {
    var provider: String
    var index: Int
    var example: ProviderExample
    /// The kinds its items may have: the operation's, and those a definition maps records to.
    var itemKinds: Set<String>
    /// The metrics the provider declares (what completion offers `--sort` and `--fields`).
    var metrics: Set<String> = []

    var testDescription: String { "\(provider) #\(index + 1): \(example.commandLine)" }
    /// The golden file's base name, e.g. `meetup/1`.
    var goldenName: String { "\(provider)/example-\(index + 1)" }

    static var all: [ExampleCase] {
        // Every provider the binary has, the compiled-in definitions included.
        ((try? TestRegistry.builtIn())?.registry.providers ?? []).flatMap { provider in
            let descriptor = provider.descriptor
            return descriptor.examples.enumerated().map { index, example in
                let operationName = example.arguments.dropFirst().first.flatMap { descriptor.operation(named: $0)?.name }
                let operation = descriptor.operation(named: operationName ?? "") ?? descriptor.defaultOperation
                // A definition may take each item's kind from the record (Hacker News: story or comment).
                let mapped = (provider as? DeclarativeProvider)?.definition.operation(named: operation.name)?.item.kind?.sources
                    .flatMap { $0.oneOf ?? [] } ?? []
                return ExampleCase(
                    provider: descriptor.name, index: index, example: example, itemKinds: Set([operation.itemKind] + mapped),
                    metrics: Set(descriptor.metrics))
            }
        }
    }
}

/// Every example of every registered provider runs offline, succeeds, and matches its golden text and JSON.
/// A new provider's examples are covered here without writing a test.
@Suite struct ProviderExampleTests {
    static let goldenFolder = TestPaths.testTarget("aggregateTests").appendingPathComponent("Golden")

    @Test(arguments: ExampleCase.all)
    func exampleRunsOfflineAndMatchesGoldenFiles(_ testCase: ExampleCase) async throws {
        let location = SourceLocation(
            fileID: "Providers/" + URL(fileURLWithPath: testCase.example.file).lastPathComponent, filePath: testCase.example.file, line: testCase.example.line, column: 1)
        let harness = CLIHarness()

        let json = await harness.run(testCase.example.arguments + ["--offline", "--format", "json"])
        #expect(json.code == .success, "stderr: \(json.stderr)", sourceLocation: location)
        let document = try JSONParser().parse(json.stdout)
        let result = try #require(document["results"]?[0])
        #expect(result["status"] == "ok", sourceLocation: location)
        #expect(result["meta"]?["source"] == "offline", sourceLocation: location)
        let items = try #require(result["items"]?.array)
        #expect(!items.isEmpty, "an example should show some items", sourceLocation: location)
        for item in items {
            #expect(item["provider"] == .string(testCase.provider), sourceLocation: location)
            #expect(testCase.itemKinds.contains(item["kind"]?.string ?? ""), sourceLocation: location)
            let undeclared = Set(item["metrics"]?.object?.members.map(\.key) ?? []).subtracting(testCase.metrics)
            #expect(undeclared.isEmpty, "metrics the descriptor does not declare: \(undeclared.sorted())", sourceLocation: location)
            _ = try Item(json: item)
        }
        if let message = Golden.check(try stabilized(json.stdout), against: Self.goldenFolder.appendingPathComponent(testCase.goldenName + ".json")) {
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        }

        let text = await harness.run(testCase.example.arguments + ["--offline"])
        #expect(text.code == .success, sourceLocation: location)
        #expect(text.stderr.contains("offline"), "the offline note is printed on stderr", sourceLocation: location)
        if let message = Golden.check(text.stdout, against: Self.goldenFolder.appendingPathComponent(testCase.goldenName + ".txt")) {
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        }

        let ndjson = await harness.run(testCase.example.arguments + ["--offline", "--format", "ndjson", "--quiet"])
        let lines = ndjson.stdout.split(separator: "\n")
        #expect(lines.count == items.count, sourceLocation: location)
        for line in lines { #expect(try JSONParser().parse(String(line))["id"] != nil, sourceLocation: location) }
        #expect(ndjson.stderr.isEmpty, "--quiet silences the offline note", sourceLocation: location)
    }
}
