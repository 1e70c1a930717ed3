import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation
import Testing

/// What the `github` and `hackernews` definitions send, and where their paging stops.
@Suite struct DefinitionRequestTests {
    let github: DeclarativeProvider
    let hackernews: DeclarativeProvider

    init() throws {
        github = try DefinitionConformance.provider("GitHub")
        hackernews = try DefinitionConformance.provider("HackerNews")
    }

    @Test func githubSendsItsHeadersTheQualifiersAndThePageSize() throws {
        let query = DefinitionConformance.query("github", ["query": "tetris", "language": "Swift", "sort": "stars", "order": "asc"])
        let request = try github.request(for: query, cursor: nil, remaining: 20)
        #expect(request.headers["Accept"] == "application/vnd.github+json")
        #expect(request.headers["X-GitHub-Api-Version"] == "2022-11-28")
        #expect(request.headers["User-Agent"]?.isEmpty == false, "GitHub refuses requests without a User-Agent")
        #expect(request.url.path == "/search/repositories")
        #expect(request.url.queryValue("q") == "tetris language:Swift")
        #expect(request.url.queryValue("sort") == "stars")
        #expect(request.url.queryValue("order") == "asc")
        #expect(request.url.queryValue("per_page") == "30")
        #expect(request.credential == nil, "no token, no Authorization: search works without one")
        let plain = try github.request(for: DefinitionConformance.query("github", ["query": "tetris"]), cursor: nil, remaining: 20)
        #expect(plain.url.queryValue("q") == "tetris")
        #expect(plain.url.queryValue("sort") == nil && plain.url.queryValue("order") == nil, "unset options are left out")
    }

    @Test func githubSendsTheTokenAsABearerWhenItIsSet() throws {
        var query = DefinitionConformance.query("github", ["query": "tetris"], environment: ["GITHUB_TOKEN": "ghp_example", "OTHER": "x"])
        try github.configure(&query)
        #expect(query.environment == ["GITHUB_TOKEN": "ghp_example"], "only the declared variable reaches the provider")
        #expect(try github.request(for: query, cursor: nil, remaining: 20).credential == .bearer("ghp_example"))
    }

    /// GitHub's `rel="next"` is followed as given, but never past the 1,000th result (a 422 there).
    @Test(arguments: [(33, true), (34, true), (35, false), (40, false)])
    func githubFollowsLinkUpToTheThousandthResult(nextPage: Int, follows: Bool) throws {
        let next = "https://api.github.com/search/repositories?q=tetris&per_page=30&page=\(nextPage)"
        var headers = HTTPHeaders()
        headers.add("Link", "<\(next)>; rel=\"next\", <https://api.github.com/search/repositories?q=tetris&per_page=30&page=34>; rel=\"last\"")
        let items = (0..<30).map { number -> JSONValue in ["id": .int(number), "full_name": .string("o/r\(number)"), "html_url": "https://github.com/o/r"] }
        let body = JSONWriter().data(["total_count": 29650, "incomplete_results": false, "items": .array(items)])
        let page = try github.normalize(HTTPResponse(status: 200, headers: headers, body: body), for: DefinitionConformance.query("github", ["query": "tetris"]))
        #expect(page.items.count == 30)
        #expect(page.next == (follows ? .cursor(next) : nil))
        if follows { #expect(try github.request(for: DefinitionConformance.query("github", ["query": "x"]), cursor: next, remaining: 30).url.absoluteString == next) }
    }

    @Test func hackerNewsSearchesByRelevanceOrByDateFromPageZero() throws {
        let relevance = try hackernews.request(for: DefinitionConformance.query("hackernews", ["query": "swift", "tags": "show_hn"]), cursor: nil, remaining: 20)
        #expect(relevance.url.path.hasSuffix("/search"))
        #expect(relevance.url.queryValue("query") == "swift")
        #expect(relevance.url.queryValue("tags") == "show_hn")
        #expect(relevance.url.queryValue("page") == "0")
        #expect(relevance.url.queryValue("hitsPerPage") == "20")
        #expect(relevance.credential == nil)
        let byDate = try hackernews.request(for: DefinitionConformance.query("hackernews", ["query": "swift", "by-date": true]), cursor: nil, remaining: 20)
        #expect(byDate.url.path.hasSuffix("/search_by_date"))
        #expect(byDate.url.queryValue("tags") == nil)
    }
}
