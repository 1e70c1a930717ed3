import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// ``ResultDocument/results(from:)-(Data)`` reads back what `--format json` writes: a result read from its
/// document renders in every format (text, json, ndjson, csv, markdown) to the bytes the original rendered to.
@Suite struct ResultDocumentRoundTripTests {
    static let formats: [OutputFormat] = [.text, .json, .ndjson, .csv, .markdown]

    /// A context writing into buffers, with a fixed terminal (colour as asked).
    static func context(color: Bool = false) throws -> (Context, Buffer) {
        let out = Buffer()
        let context = Context(
            catalog: try TestRegistry.builtIn(), environment: [:],
            console: Console(out: { out.append($0) }, err: { _ in }),
            terminal: Terminal(stdoutIsTerminal: false, stderrIsTerminal: false, stdinIsTerminal: false, width: 100, colorOnStdout: color, colorOnStderr: false),
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-roundtrip-\(UUID().uuidString)"))
        return (context, out)
    }

    /// What `ProviderCommand.render` prints for `result` in `format`.
    static func rendered(_ result: ProviderResult, _ invocation: ProviderInvocation, format: OutputFormat, color: Bool = false) throws -> String {
        var common = invocation.common
        common.format = format
        common.color = color ? .always : .never
        let shaped = ProviderInvocation(provider: invocation.provider, operation: invocation.operation, parameters: invocation.parameters, common: common)
        let (context, out) = try context(color: color)
        ProviderCommand.render(result, invocation: shaped, context: context)
        return out.text
    }

    /// Reads `result` back from its document and compares every format's rendering.
    static func expectRoundTrip(_ result: ProviderResult, _ invocation: ProviderInvocation, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let document = ResultRenderer.json([result])
        let read = try ResultDocument.results(from: Data(document.utf8))
        try #require(read.count == 1, sourceLocation: sourceLocation)
        var back = read[0]
        back.explicitLimit = result.explicitLimit
        #expect(ResultRenderer.json(read) == document, sourceLocation: sourceLocation)
        #expect(back.error == result.error, sourceLocation: sourceLocation)
        #expect(back.items == result.items || result.meta.selectedFields != nil, sourceLocation: sourceLocation)
        for format in formats {
            #expect(try rendered(back, invocation, format: format) == rendered(result, invocation, format: format), "\(format)", sourceLocation: sourceLocation)
        }
        #expect(try rendered(back, invocation, format: .text, color: true) == rendered(result, invocation, format: .text, color: true), sourceLocation: sourceLocation)
    }

    static func invocation(_ arguments: [String]) throws -> ProviderInvocation {
        try ProviderInvocation.parse(arguments, registry: try TestRegistry.builtIn().registry)
    }

    @Test(arguments: ExampleCase.all)
    func everyExampleReadsBackToTheSameOutput(_ testCase: ExampleCase) async throws {
        let (context, _) = try Self.context()
        let given = testCase.example.arguments
        for extra in [[], ["--fields", "title,id,metrics,location.city"], ["--sort", "-title"]] where !extra.contains(where: given.contains) {
            let invocation = try Self.invocation(testCase.example.arguments + ["--offline"] + extra)
            let result = await InvocationRunner(context: context, events: { _ in }).run(invocation)
            #expect(result.error == nil, "\(testCase) \(extra): \(String(describing: result.error))")
            try Self.expectRoundTrip(result, invocation)
        }
    }

    @Test(arguments: AggregateError.Kind.allCases)
    func failedResultsReadBackWithTheirErrorAndMeta(_ kind: AggregateError.Kind) throws {
        let invocation = try Self.invocation(["tmdb", "search", "batman", "--offline"])
        var meta = ResultMeta(source: .live, requests: 3, pages: 2, bytes: 1234, elapsedMs: 12.5, totalCount: 42, nextCursor: "cursor \"2\"")
        meta.sortedLocally = "-createdAt"
        var notes = JSONParseNotes()
        notes.replacedSurrogates = 2
        let result = ProviderResult(
            provider: "tmdb", operation: "search", query: ["query": "batman", "year": .int(1989)],
            error: AggregateError(kind, "it went wrong: \"quoted\", ünïcode, \\ and a\nnewline", provider: "tmdb", httpStatus: kind == .http ? 503 : nil),
            meta: meta, parseNotes: notes)
        try Self.expectRoundTrip(result, invocation)
        let read = try ResultDocument.results(from: Data(ResultRenderer.json([result]).utf8))
        #expect(read.first?.meta == meta)
        #expect(ExitCode(for: read) == ExitCode(for: [result]))
    }

    @Test func itemsKeepExactDecimalsExtraLocationAndTags() throws {
        let invocation = try Self.invocation(["tmdb", "search", "batman", "--offline"])
        let item = Item(
            provider: "tmdb", kind: "movie", id: "12345678901234567890", title: "Title — with \u{1F600}", subtitle: "sub", summary: "sum", url: "https://e.example/1",
            imageUrl: "https://e.example/1.jpg", author: "someone", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            location: Location(city: "Zürich", country: "CH", latitude: 47.376_887, longitude: 8.541_694),
            metrics: ["money": Decimal(string: "600.10") ?? 0, "huge": Decimal(string: "123456789012345678901234567890.5") ?? 0, "tiny": Decimal(string: "0.000001") ?? 0],
            tags: ["a", "b,c", "\"d\""], extra: ["nested": ["list": [1, "two", .null, true]], "big": .number("1e400")])
        let result = ProviderResult(
            provider: "tmdb", operation: "search", query: ["query": "batman"], items: [item, Item(provider: "tmdb", kind: "movie", id: "2", title: "bare")],
            meta: ResultMeta(source: .offline, requests: 1, pages: 1, bytes: 10, elapsedMs: 0.1, totalCount: nil, nextCursor: nil))
        try Self.expectRoundTrip(result, invocation)
        try Self.expectRoundTrip(result.selecting(try ItemFieldPath.list("metrics.money,location.city,extra.nested,title")), invocation)
    }

    @Test func documentsThatAreNotResultsAreRefused() {
        #expect(throws: AggregateError.self) { try ResultDocument.results(from: Data("{\"status\": \"ok\"}".utf8)) }
        #expect(throws: AggregateError.self) { try ResultDocument.results(from: Data("<html>".utf8)) }
        #expect(throws: AggregateError.self) { try ResultDocument.results(from: Data("{\"schemaVersion\": 2, \"results\": []}".utf8)) }
        #expect(throws: AggregateError.self) {
            try ResultDocument.results(from: Data("{\"schemaVersion\": 1, \"results\": [{\"provider\": \"x\"}]}".utf8))
        }
    }
}
