import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// Hacker News's emulator (Algolia's HN Search, the definition's `sandbox` section) against the facts in
/// Providers/HackerNews/README.md, over a real loopback server.
@Suite(.serialized) struct HackerNewsEmulatorTests {
    static let definition = EmulatorFixtures.providers.appendingPathComponent("HackerNews/provider.json")

    func server() throws -> DefinitionServer { try DefinitionServer(files: [Self.definition]) }

    func json(_ server: DefinitionServer, _ path: String) async throws -> (HTTPResponse, JSONValue) {
        let response = try await EmulatorFixtures.get(server, path)
        return (response, try response.json())
    }

    func ids(_ body: JSONValue) -> [String] { (body["hits"]?.array ?? []).compactMap { $0["objectID"]?.string } }

    @Test func pageEchoesItsNumberAndServesItsHits() async throws {
        let server = try server()
        let (_, all) = try await json(server, "/hackernews/search?query=swift&hitsPerPage=1000")
        let pool = ids(all)
        #expect(pool.count == 34)
        let (_, page2) = try await json(server, "/hackernews/search?query=swift&page=2&hitsPerPage=10")
        #expect(page2["page"] == .int(2))
        #expect(page2["nbPages"] == .int(4))
        #expect(page2["nbHits"] == .int(34))
        #expect(ids(page2) == Array(pool[20..<30]))
        let (_, past) = try await json(server, "/hackernews/search?query=swift&page=7")
        #expect(past["hits"] == .array([]) && past["page"] == .int(7) && past["nbHits"] == .int(34), "past the last page, inside the window: empty")
        let (bad, body) = try await json(server, "/hackernews/search?query=swift&page=-1")
        #expect(bad.status == 400 && body["code"] == .int(400))
    }

    @Test func hitsPerPageIsHonouredUpTo1000() async throws {
        let server = try server()
        let (_, five) = try await json(server, "/hackernews/search?query=swift&hitsPerPage=5")
        #expect(ids(five).count == 5)
        #expect(five["hitsPerPage"] == .int(5))
        #expect(five["nbPages"] == .int(7))
        let (_, defaulted) = try await json(server, "/hackernews/search?query=swift")
        #expect(ids(defaulted).count == 20 && defaulted["hitsPerPage"] == .int(20))
        let (_, capped) = try await json(server, "/hackernews/search?query=swift&hitsPerPage=5000")
        #expect(capped["hitsPerPage"] == .int(1000) && ids(capped).count == 34)
        let (_, counts) = try await json(server, "/hackernews/search?query=swift&hitsPerPage=0")
        #expect(counts["hits"] == .array([]) && counts["nbHits"] == .int(34) && counts["nbPages"] == .int(0), "hitsPerPage=0: counts only")
    }

    @Test func queryAndParamsEchoWhatWasSent() async throws {
        let server = try server()
        let (_, body) = try await json(server, "/hackernews/search?query=swift%20compiler&tags=%28story%2Cpoll%29&page=0")
        #expect(body["query"] == "swift compiler")
        #expect(body["params"] == "query=swift+compiler&tags=%28story%2Cpoll%29&page=0&advancedSyntax=true&analyticsTags=backend")
        let (_, bare) = try await json(server, "/hackernews/search?tags=story")
        #expect(bare["query"] == "", "no query: the empty one, matching everything")
        #expect(bare["params"] == "tags=story&advancedSyntax=true&analyticsTags=backend")
    }

    @Test func tagsCommaIsAndParenthesesAreOr() async throws {
        let server = try server()
        func tags(_ value: String) async throws -> [[String]] {
            let (_, body) = try await json(server, "/hackernews/search?hitsPerPage=100&tags=\(value)")
            return (body["hits"]?.array ?? []).map { ($0["_tags"]?.array ?? []).compactMap(\.string) }
        }
        let stories = try await tags("story")
        #expect(stories.count == 11 && stories.allSatisfy { $0.contains("story") })
        let both = try await tags("story,show_hn")
        #expect(both.count == 2 && both.allSatisfy { $0.contains("story") && $0.contains("show_hn") })
        let either = try await tags("(ask_hn,show_hn)")
        #expect(either.count == 4 && either.allSatisfy { $0.contains("ask_hn") || $0.contains("show_hn") })
        let mixed = try await tags("author_hbonk,(story,comment)")
        #expect(mixed.count == 2 && mixed.allSatisfy { $0.contains("author_hbonk") })
        let ofStory = try await tags("comment,story_46201000")
        #expect(ofStory.count == 2, "story_<id>: the comments of one story")
    }

    @Test func numericFiltersAreAndedAndABadOneIsAlgoliasOwn400() async throws {
        let server = try server()
        let (_, popular) = try await json(server, "/hackernews/search?hitsPerPage=100&numericFilters=points%3E%3D200")
        let points = (popular["hits"]?.array ?? []).compactMap { $0["points"]?.int }
        #expect(points.sorted(by: >) == [812, 455, 301, 274, 233])
        let (_, window) = try await json(server, "/hackernews/search?hitsPerPage=100&numericFilters=created_at_i%3E1764400000,created_at_i%3C1764440000")
        let times = (window["hits"]?.array ?? []).compactMap { $0["created_at_i"]?.int }
        #expect(!times.isEmpty && times.allSatisfy { $0 > 1_764_400_000 && $0 < 1_764_440_000 })
        #expect(window["nbHits"] == .int(times.count))
        let (none, nothing) = try await json(server, "/hackernews/search?numericFilters=points%3E999999999")
        #expect(none.status == 200 && nothing["nbHits"] == .int(0) && nothing["nbPages"] == .int(0))
        let (bad, body) = try await json(server, "/hackernews/search?query=foo&numericFilters=created_at_i%3Eabc")
        #expect(bad.status == 400)
        #expect(body == ["code": 400, "message": "Invalid syntax for numeric condition:created_at_i>abc"])
    }

    @Test func queryWordsMatchWholeWordsAndTheLastAsAPrefix() async throws {
        let server = try server()
        let (_, nothing) = try await json(server, "/hackernews/search?query=zzqxv")
        #expect(nothing["hits"] == .array([]) && nothing["nbHits"] == .int(0) && nothing["nbPages"] == .int(0))
        let (_, prefix) = try await json(server, "/hackernews/search?query=swiftd")
        #expect(ids(prefix).sorted() == ["46202557", "46203927"], "the SwiftData story and its comment")
        let (_, notLast) = try await json(server, "/hackernews/search?query=swiftd%20migrations")
        #expect(ids(notLast).isEmpty, "only the last word matches as a prefix")
        let (_, comment) = try await json(server, "/hackernews/search?query=diagrams&tags=comment")
        #expect(!ids(comment).isEmpty, "a comment matches by its story's title (story_title)")
    }

    @Test func searchByDateIsStrictlyNewestFirstAndSearchKeepsRelevance() async throws {
        let server = try server()
        let (_, byDate) = try await json(server, "/hackernews/search_by_date?query=swift&hitsPerPage=100")
        let times = (byDate["hits"]?.array ?? []).compactMap { $0["created_at_i"]?.int }
        #expect(times.count == 34 && times == times.sorted(by: >))
        let (_, relevance) = try await json(server, "/hackernews/search?query=swift&hitsPerPage=100")
        #expect(ids(relevance).first == "46201000" && ids(relevance) != ids(byDate))
        let run = try await server.run("search", provider: "hackernews", ["query": "swift", "by-date": true], limit: 25, token: nil)
        #expect(run.error == nil)
        let dates = run.items.compactMap(\.createdAt)
        #expect(dates.count == 25 && dates == dates.sorted(by: >))
    }

    @Test func theWindowCapsNbPagesAndAnswersPastItWithAnEmptyPageAndAMessage() async throws {
        let server = try DefinitionServer(files: [try EmulatorFixtures.bigHackerNews()])
        let (_, first) = try await json(server, "/bighn/search?query=swift")
        #expect(first["nbHits"] == .int(1100), "nbHits keeps the true count")
        #expect(first["nbPages"] == .int(50), "capped at 1000 / hitsPerPage")
        let (_, thirty) = try await json(server, "/bighn/search?query=swift&hitsPerPage=30&page=33")
        #expect(thirty["nbPages"] == .int(34))
        #expect(ids(thirty) == (991...1000).map(String.init), "the page across the window is cut at 1,000")
        let (past, body) = try await json(server, "/bighn/search?query=swift&page=50")
        #expect(past.status == 200)
        #expect(body["hits"] == .array([]) && body["nbHits"] == .int(0) && body["nbPages"] == .int(0) && body["page"] == .int(50))
        #expect(body["message"]?.string?.hasPrefix("you can only fetch the 1000 hits for this query") == true)
        let run = try await server.run("search", provider: "bighn", ["query": "swift"], limit: 1200, token: nil)
        #expect(run.error == nil && run.items.count == 1000)
    }

    @Test func noRateLimitHeadersAndNoValidators() async throws {
        let server = try server()
        let response = try await EmulatorFixtures.get(server, "/hackernews/search?query=swift")
        #expect(response.headers.fields.allSatisfy { !$0.name.lowercased().hasPrefix("x-ratelimit") })
        #expect(response.headers["ETag"] == nil && response.headers["Last-Modified"] == nil && response.headers["Cache-Control"] == nil)
        let again = try await EmulatorFixtures.get(server, "/hackernews/search?query=swift", headers: ["If-None-Match": "*"])
        #expect(again.status == 200)
    }

    @Test func theEngineReadsTwoPagesOfTheFilteredPool() async throws {
        let server = try server()
        let result = try await server.run("search", provider: "hackernews", ["query": "swift"], limit: 30, token: nil)
        #expect(result.error == nil)
        #expect(result.items.count == 30 && result.meta.pages == 2 && result.meta.totalCount == 34)
        let shows = try await server.run("search", provider: "hackernews", ["query": "swift", "tags": "show_hn"], token: nil)
        #expect(shows.items.count == 2 && shows.meta.pages == 1)
    }
}
