import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation
import Testing

/// The `hackernews` definition against the real captured responses in `../shared/api/samples/hackernews` (when
/// present): both envelopes, stories and comments, HTML text, 0-based pages and the 1,000-hit window.
@Suite(.enabled(if: !DefinitionConformance.bodies("hackernews").isEmpty, "the shared samples are not beside the package"))
struct HackerNewsConformanceTests {
    static let searchPages = DefinitionConformance.bodies("hackernews").filter { $0.lastPathComponent.hasPrefix("search_") }
    let hackernews: DeclarativeProvider
    let query = DefinitionConformance.query("hackernews", ["query": "swift"])

    init() throws { hackernews = try DefinitionConformance.provider("HackerNews") }

    @Test func theSearchSamplesAreAllHere() {
        #expect(Self.searchPages.count >= 6)
    }

    @Test(arguments: searchPages)
    func everyHitOfASearchPageBecomesAStoryOrAComment(_ file: URL) throws {
        let response = try DefinitionConformance.response(file)
        let json = try JSONParser().parse(response.body)
        let page = try hackernews.normalize(response, for: query)
        let hits = try #require(json["hits"]?.array)
        #expect(page.items.count == hits.count, "every hit has a title or a story title")
        #expect(page.totalCount == json["nbHits"]?.int)
        for (item, hit) in zip(page.items, hits) {
            let tags = (hit["_tags"]?.array ?? []).compactMap(\.string)
            #expect(item.kind == (tags.contains("comment") ? "comment" : "story"))
            #expect(item.id == hit["objectID"]?.string)
            #expect(item.title == (hit["title"]?.nonEmptyString ?? hit["story_title"]?.string))
            #expect(item.url == (hit["url"]?.nonEmptyString ?? "https://news.ycombinator.com/item?id=\(item.id)"))
            #expect(item.author == hit["author"]?.string)
            #expect(item.createdAt == hit["created_at_i"]?.int.map { Date(timeIntervalSince1970: TimeInterval($0)) })
            #expect(item.metrics["points"] == hit["points"]?.decimal, "a comment's points are null or absent since 2023")
            #expect(item.metrics["comments"] == hit["num_comments"]?.decimal)
            let html = hit["story_text"]?.nonEmptyString ?? hit["comment_text"]?.nonEmptyString
            #expect((item.summary == nil) == (html == nil))
            if let summary = item.summary {
                #expect(!summary.contains("<p>") && !summary.contains("&#x27;") && !summary.contains("&quot;") && !summary.contains("<a "), "plain text: \(summary)")
            }
            _ = try Item(json: item.jsonValue)
        }
        let number = json["page"]?.int ?? 0, pages = json["nbPages"]?.int ?? 0
        #expect((page.next != nil) == (!hits.isEmpty && number + 1 < pages), "pages count from 0 up to nbPages")
    }

    @Test func pastTheThousandHitWindowIsAnEmptyLastPageNotAnError() throws {
        let file = try #require(Self.searchPages.first { $0.lastPathComponent.hasPrefix("search_past_1000") })
        let page = try hackernews.normalize(try DefinitionConformance.response(file), for: query)
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test func aCommentIsTitledByItsStoryAndLinksToItsOwnPage() throws {
        let file = try #require(Self.searchPages.first { $0.lastPathComponent.hasPrefix("search_comment_query_java") })
        let item = try #require(try hackernews.normalize(try DefinitionConformance.response(file), for: query).items.first)
        #expect(item.kind == "comment")
        #expect(item.title == "Lorem Gibson")
        #expect(item.url == "https://news.ycombinator.com/item?id=44582430")
        #expect(item.summary == "Whoa, the \"japanese\" checkbox animation is awesome, so satisfying!")
        #expect(item.metrics["points"] == nil)
    }

    @Test func errorsQuoteTheirMessageOrError() throws {
        let filter = try #require(DefinitionConformance.bodies("hackernews").first { $0.lastPathComponent.hasPrefix("error_400") })
        let bad = hackernews.error(for: try DefinitionConformance.response(filter, status: 400), query: query)
        #expect(bad.message == "Invalid syntax for numeric condition:created_at_i>abc (HTTP 400)")
        let missing = try #require(DefinitionConformance.bodies("hackernews").first { $0.lastPathComponent.hasPrefix("error_404") })
        let notFound = hackernews.error(for: try DefinitionConformance.response(missing, status: 404), query: query)
        #expect(notFound.kind == .notFound)
        #expect(notFound.message == "Not Found (HTTP 404)")
    }
}
