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
        let runner = ProviderRunner(catalog: catalog, environment: [:])
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
