import AggregateCore
import AggregateJSON
@testable import AggregateRendering
import AggregateTestSupport
import Foundation
import Testing

/// The web pages as a browser gets them, for the HTML5 check and for `.ci/serve-web.sh`, which screenshots them in
/// headless Chromium: with `AGGREGATE_WEB_PAGES_DIR` set, each page is also written there as `<name>.html`, with
/// the server's Content-Security-Policy as a `<meta>` so that Chromium enforces it on the file too.
@Suite struct WebPageSampleTests {
    static let descriptors = WebFixtures.descriptors

    static var samples: [(name: String, html: String)] {
        let batman = QuerySelection(provider: "films", operation: "search", values: ["query": "batman", "genres": "drama"], limit: 6)
        let failed = ProviderResult(
            provider: "books", operation: "find",
            error: AggregateError(.network, "cannot connect to 127.0.0.1:9: connection refused (after 4 attempts)", provider: "books"),
            meta: ResultMeta(source: .live, requests: 4, elapsedMs: 2031))
        var popular = WebFixtures.batmanItems.reversed().map { item in
            var item = item
            item.author = nil
            item.subtitle = nil
            return item
        }
        popular[0].imageUrl = "https://img.films.test/poster.png"
        let rows = [
            ComparisonRow(invocation: "films search batman", result: WebFixtures.result(WebFixtures.batmanItems), descriptor: WebFixtures.films),
            ComparisonRow(
                invocation: "films popular",
                result: ProviderResult(provider: "films", operation: "popular", items: popular, meta: ResultMeta(source: .cache, pages: 1, bytes: 9_120, elapsedMs: 4)),
                descriptor: WebFixtures.films),
            ComparisonRow(invocation: "books find --title dune", result: failed, descriptor: WebFixtures.books),
        ]
        let badQuery = QueryPage.request("provider=films&operation=search&query=batman&year=soon", descriptors: descriptors)
        return [
            ("query-empty", QueryPage.render(descriptors: descriptors, selection: nil)),
            ("query-results", QueryPage.render(descriptors: descriptors, selection: batman, result: WebFixtures.result(WebFixtures.batmanItems))),
            ("query-hostile", QueryPage.render(descriptors: descriptors, selection: batman, result: WebFixtures.result(WebFixtures.hostileItems))),
            ("query-error", QueryPage.render(descriptors: descriptors, selection: badQuery.selection, error: badQuery.error)),
            ("compare-empty", ComparePage.render(descriptors: descriptors, selection: nil)),
            ("compare", ComparePage.render(descriptors: descriptors, selection: CompareSelection(invocations: rows.map(\.invocation), limit: 6), rows: rows)),
        ]
    }

    @Test(.requires(.html5lib)) func everyPageIsValidHTML5() throws {
        for sample in Self.samples {
            let problems = try HTML5Validation.problems(in: sample.html)
            #expect(problems == nil, "\(sample.name): \(problems ?? "")")
        }
    }

    @Test func writesThePagesForScreenshotsWhenAsked() throws {
        let samples = Self.samples
        #expect(samples.allSatisfy { $0.html.hasPrefix("<!DOCTYPE html>\n") && $0.html.hasSuffix("</html>\n") })
        guard let folder = ProcessInfo.processInfo.environment["AGGREGATE_WEB_PAGES_DIR"], !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // frame-ancestors is not allowed in a <meta> policy (Chromium would warn), so it stays a header-only rule.
        let policy = WebPage.contentSecurityPolicy.replacingOccurrences(of: "; frame-ancestors 'none'", with: "")
        for sample in samples {
            let html = sample.html.replacingOccurrences(
                of: "<meta charset=\"utf-8\">\n", with: "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">\n")
            try html.write(toFile: "\(folder)/\(sample.name).html", atomically: true, encoding: .utf8)
        }
    }
}
