import AggregateCore
import AggregateHTTP
import AggregateProviders
import AggregateRendering
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// The serve web page over the real providers: every descriptor's form is valid HTML5, and a form's query string
/// runs (offline) as the command line does, with its result shown as a table.
@Suite struct WebPageProvidersTests {
    static let catalog = Result { try TestRegistry.builtIn() }

    @Test func everyOperationOfEveryProviderHasItsFieldset() throws {
        let descriptors = try Self.catalog.get().registry.providers.map { $0.descriptor }
        #expect(descriptors.count >= 10)
        let html = QueryPage.render(descriptors: descriptors, selection: nil)
        for descriptor in descriptors {
            #expect(html.contains("<option value=\"\(descriptor.name)\""))
            for operation in descriptor.operations {
                #expect(html.contains("<fieldset data-provider=\"\(descriptor.name)\" data-operation=\"\(operation.name)\""), "\(descriptor.name) \(operation.name)")
            }
        }
        // Ids are unique, or labels would point at the wrong control.
        let ids = html.components(separatedBy: " id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(Set(ids).count == ids.count)
    }

    @Test(.requires(.html5lib)) func everyProvidersFormIsValidHTML5() throws {
        let descriptors = try Self.catalog.get().registry.providers.map { $0.descriptor }
        for descriptor in descriptors {
            let selection = QuerySelection(provider: descriptor.name, operation: descriptor.defaultOperation.name)
            let problems = try HTML5Validation.problems(in: QueryPage.render(descriptors: descriptors, selection: selection))
            #expect(problems == nil, "\(descriptor.name): \(problems ?? "")")
        }
    }

    @Test func aFormsQueryRunsAsTheCommandLineDoes() async throws {
        let catalog = try Self.catalog.get()
        let descriptors = catalog.registry.providers.map { $0.descriptor }
        let runner = ProviderRunner(catalog: catalog, environment: [:], makeTransport: { NoNetworkTransport() })
        let request = QueryPage.request("provider=tmdb&operation=search&query=the+amazing+spider-man&limit=3", descriptors: descriptors)
        let selection = try #require(request.selection)
        #expect(request.shouldRun && request.error == nil)
        let tmdb = try #require(descriptors.first { $0.name == "tmdb" })
        let arguments = selection.arguments(tmdb, adding: ["--offline"])
        #expect(arguments == ["tmdb", "search", "--limit=3", "--offline", "--", "the amazing spider-man"])
        let result = try await runner.run(arguments)
        let cli = try await runner.run(["tmdb", "search", "the", "amazing", "spider-man", "--limit", "3", "--offline"])
        #expect(result.error == nil)
        #expect(!result.items.isEmpty)
        #expect(result.items == cli.items, "the page runs what the command line runs")
        #expect(result.query == cli.query)
        let html = QueryPage.render(descriptors: descriptors, selection: selection, result: result)
        #expect(html.contains("<caption>\(result.items.count) item"))
        for item in result.items {
            if let url = item.url { #expect(html.contains("<a href=\"\(CompareHTMLReport.escape(url))\" rel=\"noreferrer\">")) }
        }
    }
}

/// With `AGGREGATE_WEB_PAGES_DIR` set, writes the pages of real offline runs there for `.ci/serve-web.sh` to
/// screenshot (with the policy as a `<meta>`, as `WebPageSampleTests` does).
@Suite struct WebPageProvidersSampleTests {
    @Test func writesRealPagesForScreenshotsWhenAsked() async throws {
        guard let folder = ProcessInfo.processInfo.environment["AGGREGATE_WEB_PAGES_DIR"], !folder.isEmpty else { return }
        let catalog = try WebPageProvidersTests.catalog.get()
        let descriptors = catalog.registry.providers.map { $0.descriptor }
        let runner = ProviderRunner(catalog: catalog, environment: [:], makeTransport: { NoNetworkTransport() })
        let request = QueryPage.request("provider=tmdb&operation=search&query=batman&limit=8", descriptors: descriptors)
        let selection = try #require(request.selection)
        let tmdb = try #require(descriptors.first { $0.name == "tmdb" })
        let result = try await runner.run(selection.arguments(tmdb, adding: ["--offline"]))
        var rows: [ComparisonRow] = []
        let invocations = ["tmdb search batman", "kiva newest", "meetup --lat 51.509980 --lon -0.133700"]
        for invocation in invocations {
            let words = invocation.split(separator: " ").map(String.init)
            let descriptor = try #require(descriptors.first { $0.name == words[0] })
            rows.append(ComparisonRow(invocation: invocation, result: try await runner.run(words + ["--limit", "5", "--offline"]), descriptor: descriptor))
        }
        let pages = [
            ("real-query-results", QueryPage.render(descriptors: descriptors, selection: selection, result: result)),
            ("real-compare", ComparePage.render(descriptors: descriptors, selection: CompareSelection(invocations: invocations, limit: 5), rows: rows)),
        ]
        let policy = WebPage.contentSecurityPolicy.replacingOccurrences(of: "; frame-ancestors 'none'", with: "")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, html) in pages {
            let page = html.replacingOccurrences(
                of: "<meta charset=\"utf-8\">\n", with: "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">\n")
            try page.write(toFile: "\(folder)/\(name).html", atomically: true, encoding: .utf8)
        }
    }
}

/// The error lines docs/serve-web.md shows are the ones the page shows for the real providers.
@Suite struct WebPageDocumentedErrorTests {
    @Test func theDocumentedErrorLinesAreTrue() throws {
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/serve-web.md"), encoding: .utf8)
        let descriptors = try WebPageProvidersTests.catalog.get().registry.providers.map { $0.descriptor }
        let queries = [
            "provider=tmbd&query=x", "provider=tmdb&query=x&yeer=1999", "provider=tmdb&query=x&year=soon", "provider=tmdb&operation=search",
            "provider=tmdb&query=x&limit=0",
        ]
        for query in queries {
            let line = try #require(QueryPage.request(query, descriptors: descriptors).error?.diagnosticLine, "\(query)")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // The page lists every name; the doc cuts long lists with "...".
            let documented = doc.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Error: ") }
            let matched = documented.contains { entry in
                entry.hasSuffix("...)") ? line.hasPrefix(String(entry.dropLast(5))) : line == entry
            }
            #expect(matched, "\(query): \(line)")
        }
    }
}
