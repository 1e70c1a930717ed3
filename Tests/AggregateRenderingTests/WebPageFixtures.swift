import AggregateCore
import AggregateJSON
@testable import AggregateRendering
import Foundation

/// Two made-up providers whose parameters cover every type the form knows, and results with hostile text.
enum WebFixtures {
    static let films = ProviderDescriptor(
        name: "films", displayName: "Films", summary: "Movies from a made-up film database.", docsURL: "https://films.test/docs",
        defaultBaseURL: "https://api.films.test", auth: [], authStyle: "API key (query)", paginationStyle: "page number",
        options: [Parameter("api", type: .choice(["v3", "v4"]), default: "v3", help: "Which API version to call.")],
        operations: [
            ProviderOperation(
                name: "search", summary: "Search movies by title.", itemKind: "movie",
                parameters: [
                    Parameter(
                        "query", style: .positional, required: true, valueName: "TITLE", help: "The words to look for <i>\"in titles\"</i>."),
                    Parameter("year", type: .integer(1874...2100), help: "Only movies released that year."),
                    Parameter("rating", type: .number(0...10), help: "The lowest average rating."),
                    Parameter("sort", type: .choice(["popularity", "rating"]), default: "popularity", help: "The order."),
                    Parameter("region", type: .choice(["US", "GB"]), help: "Release region."),
                    Parameter("genres", type: .choiceList(["drama", "comedy", "horror"]), help: "Genres to keep."),
                    Parameter("adult", style: .flag, type: .boolean, help: "Include adult titles."),
                    Parameter("language", default: "en", help: "The language of titles."),
                ]),
            ProviderOperation(name: "popular", summary: "The most popular movies now.", itemKind: "movie"),
        ],
        examples: [ProviderExample(["films", "search", "batman", "--offline"], "Search")])

    static let books = ProviderDescriptor(
        name: "books", displayName: "Books", summary: "A made-up library catalogue.", docsURL: "https://books.test",
        defaultBaseURL: "https://books.test", auth: [], authStyle: "none", paginationStyle: "offset",
        operations: [
            ProviderOperation(
                name: "find", summary: "Find books.", itemKind: "book",
                parameters: [Parameter("title", required: true, help: "Words of the title."), Parameter("verbose", type: .boolean, help: "More fields.")])
        ],
        examples: [ProviderExample(["books", "find", "--title", "dune"], "Find")])

    static let descriptors = [films, books]

    /// Items an API might send to break the page: markup in every text, links with schemes that run code.
    static let hostileItems: [Item] = {
        var script = Item(provider: "films", kind: "movie", id: "1", title: "<script>alert(1)</script>")
        script.url = "javascript:alert(1)"
        script.imageUrl = "javascript:alert(2)"
        script.author = "\"><img src=x onerror=alert(3)>"
        script.subtitle = "</td></tr></table><script>alert(4)</script>"
        script.metrics = ["<b>bold</b>": 1]
        var data = Item(provider: "films", kind: "movie", id: "2", title: "Data link", summary: "<svg onload=alert(10)>")
        data.url = "data:text/html,<script>alert(5)</script>"
        data.imageUrl = "  JaVaScRiPt:alert(6)"
        var vb = Item(provider: "films", kind: "movie", id: "3", title: "Upper-case scheme")
        vb.url = "JAVASCRIPT:alert(7)"
        vb.imageUrl = "//evil.test/pixel.png"
        var safe = Item(provider: "films", kind: "movie", id: "4", title: "Safe & sound")
        safe.url = "https://films.test/movie/4?a=1&b=\"2\""
        safe.imageUrl = "http://img.films.test/4.png"
        safe.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        return [script, data, vb, safe]
    }()

    static func result(_ items: [Item], error: AggregateError? = nil) -> ProviderResult {
        ProviderResult(
            provider: "films", operation: "search", items: items, error: error,
            meta: ResultMeta(source: .live, requests: 2, pages: 2, bytes: 48_213, elapsedMs: 312.4))
    }

    /// A result that looks like a real search, for the screenshots.
    static let batmanItems: [Item] = {
        let titles: [(String, String, String, Decimal, Decimal, String)] = [
            ("Batman", "1989 · Tim Burton", "Warner Bros.", 7.2, 4213, "1989-06-23T00:00:00Z"),
            ("Batman Returns", "1992 · Tim Burton", "Warner Bros.", 6.9, 3501, "1992-06-19T00:00:00Z"),
            ("Batman Begins", "2005 · Christopher Nolan", "Syncopy", 7.7, 19534, "2005-06-15T00:00:00Z"),
            ("The Dark Knight", "2008 · Christopher Nolan", "Syncopy", 8.5, 31222, "2008-07-18T00:00:00Z"),
            ("The Batman", "2022 · Matt Reeves", "6th & Idaho", 7.7, 9843, "2022-03-04T00:00:00Z"),
            ("Batman: Mask of the Phantasm", "1993 · Eric Radomski, Bruce Timm", "Warner Bros. Animation", 7.4, 812, "1993-12-25T00:00:00Z"),
        ]
        return titles.enumerated().map { index, entry in
            var item = Item(provider: "films", kind: "movie", id: String(index + 1), title: entry.0, subtitle: entry.1)
            item.url = "https://films.test/movie/\(index + 1)"
            item.author = entry.2
            item.createdAt = ISO8601.date(from: entry.5)
            item.metrics = ["rating": entry.3, "votes": entry.4]
            return item
        }
    }()
}
