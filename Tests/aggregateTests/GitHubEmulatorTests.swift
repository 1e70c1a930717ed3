import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateURLSession
import AggregateTestSupport
import Foundation
import Testing

/// GitHub's emulator (the definition's `sandbox` section) against the facts in Providers/GitHub/README.md, over a
/// real loopback server, and the engine's two GitHub quirks (order without sort, the 1,000-result window).
@Suite(.serialized) struct GitHubEmulatorTests {
    static let definition = EmulatorFixtures.providers.appendingPathComponent("GitHub/provider.json")

    func server() throws -> DefinitionServer { try DefinitionServer(files: [Self.definition]) }

    func json(_ server: DefinitionServer, _ path: String) async throws -> (HTTPResponse, JSONValue) {
        let response = try await EmulatorFixtures.get(server, path)
        return (response, try response.json())
    }

    func names(_ body: JSONValue) -> [String] { (body["items"]?.array ?? []).compactMap { $0["full_name"]?.string } }

    @Test func qFiltersByWordsInNameDescriptionAndTopics() async throws {
        let server = try server()
        let (nothing, none) = try await json(server, "/github/search/repositories?q=zzqxv")
        #expect(nothing.status == 200)
        #expect(none["total_count"] == .int(0))
        #expect(none["items"] == .array([]))
        #expect(nothing.headers["Link"] == nil, "one (empty) page: no Link header")
        let (_, swift) = try await json(server, "/github/search/repositories?q=swift&per_page=100")
        let items = try #require(swift["items"]?.array)
        #expect(swift["total_count"] == .int(items.count))
        #expect(items.count > 40)
        for item in items {
            let text = [item["name"]?.string, item["description"]?.string].compactMap { $0 }.joined(separator: " ").lowercased()
                + (item["topics"]?.array ?? []).compactMap(\.string).joined(separator: " ")
            #expect(text.contains("swift"), "\(item["full_name"] ?? .null)")
        }
        let (_, two) = try await json(server, "/github/search/repositories?q=swift+server")
        #expect(names(two).contains("tomasz-wierzbicki/awesome-swift-server"))
        #expect(two["total_count"]?.int ?? 0 < swift["total_count"]?.int ?? 0, "every word must match")
    }

    @Test func qualifiersSelectByLanguageOwnerAndStars() async throws {
        let server = try server()
        let (_, swift) = try await json(server, "/github/search/repositories?q=swift+language%3Aswift&per_page=100")
        let languages = Set((swift["items"]?.array ?? []).compactMap { $0["language"]?.string })
        #expect(languages == ["Swift"], "language: is case-insensitive")
        let (_, owner) = try await json(server, "/github/search/repositories?q=user%3Aswiftlang")
        #expect(!names(owner).isEmpty && names(owner).allSatisfy { $0.hasPrefix("swiftlang/") })
        let (_, org) = try await json(server, "/github/search/repositories?q=org%3Apointfreeco+swift")
        #expect(!names(org).isEmpty && names(org).allSatisfy { $0.hasPrefix("pointfreeco/") })
        let (_, stars) = try await json(server, "/github/search/repositories?q=stars%3A%3E5000")
        let counts = (stars["items"]?.array ?? []).compactMap { $0["stargazers_count"]?.int }
        #expect(counts.count == 7 && counts.allSatisfy { $0 > 5000 })
        let (_, range) = try await json(server, "/github/search/repositories?q=stars%3A1000..2000")
        #expect((range["items"]?.array ?? []).allSatisfy { (1000...2000).contains($0["stargazers_count"]?.int ?? 0) })
    }

    @Test func aMissingOrEmptyQIsA422NamingTheField() async throws {
        let server = try server()
        for path in ["/github/search/repositories", "/github/search/repositories?q=", "/github/search/repositories?q=+&per_page=5"] {
            let (response, body) = try await json(server, path)
            #expect(response.status == 422, "\(path)")
            #expect(body["message"] == "Validation Failed")
            #expect(body["errors"]?[0]?["field"] == "q")
            #expect(body["errors"]?[0]?["code"] == "missing")
            #expect(body["errors"]?[0]?["resource"] == "Search")
            #expect(body["documentation_url"] == "https://docs.github.com/v3/search/")
            #expect(body["status"] == "422", "a string, as GitHub sends it")
        }
        let (bad, body) = try await json(server, "/github/search/repositories?q=swift&sort=popularity")
        #expect(bad.status == 422)
        #expect(body["errors"]?[0]?["field"] == "sort" && body["errors"]?[0]?["code"] == "invalid")
    }

    @Test func perPageIsHonouredUpTo100AndCarriedIntoTheLink() async throws {
        let server = try server()
        let (ten, body) = try await json(server, "/github/search/repositories?q=swift&per_page=10")
        #expect(body["items"]?.array?.count == 10)
        let total = try #require(body["total_count"]?.int)
        let link = try #require(ten.headers["Link"])
        let base = server.server.baseURL.absoluteString + "/github/search/repositories?q=swift&per_page=10&page="
        #expect(link == "<\(base)2>; rel=\"next\", <\(base)\((total + 9) / 10)>; rel=\"last\"")
        let (_, defaulted) = try await json(server, "/github/search/repositories?q=swift")
        #expect(defaulted["items"]?.array?.count == 30, "per_page defaults to 30")
        let (_, capped) = try await json(server, "/github/search/repositories?q=swift&per_page=500")
        #expect(capped["items"]?.array?.count == total, "per_page above 100 is taken as 100 (all \(total) fit)")
        let (last, lastBody) = try await json(server, "/github/search/repositories?q=swift&per_page=10&page=\((total + 9) / 10)")
        let onLast = total % 10 == 0 ? 10 : total % 10
        #expect(lastBody["items"]?.array?.count == onLast)
        #expect(last.headers["Link"]?.contains("rel=\"next\"") == false)
        #expect(last.headers["Link"]?.contains("rel=\"prev\"") == true)
    }

    @Test func theResultWindowEndsAt1000WithGitHubsOwn422() async throws {
        let server = try DefinitionServer(files: [try EmulatorFixtures.bigGitHub()])
        let (first, firstBody) = try await json(server, "/bigsearch/search/repositories?q=swift")
        #expect(firstBody["total_count"] == .int(1500), "total_count keeps the true count")
        let base = server.server.baseURL.absoluteString + "/bigsearch/search/repositories?q=swift&page="
        #expect(first.headers["Link"] == "<\(base)2>; rel=\"next\", <\(base)34>; rel=\"last\"", "rel=last is capped at the window")
        let (page34, body34) = try await json(server, "/bigsearch/search/repositories?q=swift&page=34")
        #expect(page34.status == 200)
        #expect((body34["items"]?.array ?? []).compactMap { $0["id"]?.int } == Array(991...1020), "page 34 is served whole")
        #expect(page34.headers["Link"] == "<\(base)33>; rel=\"prev\", <\(base)1>; rel=\"first\"")
        let (page35, body35) = try await json(server, "/bigsearch/search/repositories?q=swift&page=35")
        #expect(page35.status == 422)
        #expect(body35["message"] == "Only the first 1000 search results are available")
        #expect(body35["errors"] == nil)
        let (page11, _) = try await json(server, "/bigsearch/search/repositories?q=swift&page=11&per_page=100")
        #expect(page11.status == 422, "page*per_page past 1,000 at 100 a page")
    }

    @Test func sortAndOrderChooseTheOrderBestMatchOtherwise() async throws {
        let server = try server()
        func stars(_ path: String) async throws -> [Int] {
            try await json(server, path).1["items"]?.array?.compactMap { $0["stargazers_count"]?.int } ?? []
        }
        let ascending = try await stars("/github/search/repositories?q=swift&sort=stars&order=asc&per_page=100")
        #expect(ascending == ascending.sorted() && ascending.count > 40)
        let descending = try await stars("/github/search/repositories?q=swift&sort=stars&per_page=100")
        #expect(descending == ascending.sorted(by: >), "desc is the default")
        let (_, forks) = try await json(server, "/github/search/repositories?q=swift&sort=forks&order=desc&per_page=100")
        let forkCounts = (forks["items"]?.array ?? []).compactMap { $0["forks_count"]?.int }
        #expect(forkCounts == forkCounts.sorted(by: >))
        let (_, updated) = try await json(server, "/github/search/repositories?q=swift&sort=updated&order=asc&per_page=100")
        let dates = (updated["items"]?.array ?? []).compactMap { $0["updated_at"]?.string }
        #expect(dates == dates.sorted())
        let (_, best) = try await json(server, "/github/search/repositories?q=swift&order=asc")
        let (_, plain) = try await json(server, "/github/search/repositories?q=swift")
        #expect(names(best) == names(plain), "order without sort is ignored: best match (the samples' order)")
    }

    @Test func allFiveRateLimitHeadersTellTheCountedSearchBudget() async throws {
        let server = try server()
        var previous = 0
        for round in 1...3 {
            let response = try await EmulatorFixtures.get(server, "/github/search/repositories?q=swift")
            let headers = response.headers
            let limit = try #require(headers["x-ratelimit-limit"].flatMap { Int($0) })
            let remaining = try #require(headers["x-ratelimit-remaining"].flatMap { Int($0) })
            let used = try #require(headers["x-ratelimit-used"].flatMap { Int($0) })
            #expect(limit == 10, "10 a minute without a token")
            #expect(used + remaining == limit)
            #expect(used == previous + 1, "round \(round)")
            #expect(headers["x-ratelimit-resource"] == "search")
            #expect(headers["x-ratelimit-reset"].flatMap { Int($0) }.map { $0 > Int(Date().timeIntervalSince1970) } == true)
            previous = used
        }
        let url = try #require(URL(string: server.server.baseURL.absoluteString + "/github/search/repositories?q=swift"))
        let withToken = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url, headers: ["Authorization": "Bearer sandbox-github-token"]))
        #expect(withToken.headers["x-ratelimit-limit"] == "30")
        #expect(withToken.headers["x-ratelimit-used"] == "1")
        #expect(withToken.headers["x-ratelimit-remaining"] == "29")
        for _ in 4...10 { _ = try await EmulatorFixtures.get(server, "/github/search/repositories?q=swift") }
        let refused = try await EmulatorFixtures.get(server, "/github/search/repositories?q=swift")
        #expect(refused.status == 403, "the 11th search in a minute without a token")
        #expect(refused.headers["x-ratelimit-limit"] == "10" && refused.headers["x-ratelimit-used"] == "10")
        #expect(refused.headers["x-ratelimit-remaining"] == "0" && refused.headers["x-ratelimit-resource"] == "search")
    }

    @Test func searchSendsNoCacheAndNoValidatorsWhileUserReposSendAnETagAnd304() async throws {
        let github = try server()
        let search = try await EmulatorFixtures.get(github, "/github/search/repositories?q=swift")
        #expect(search.headers["Cache-Control"] == "no-cache")
        #expect(search.headers["ETag"] == nil && search.headers["Last-Modified"] == nil)
        let again = try await EmulatorFixtures.get(github, "/github/search/repositories?q=swift", headers: ["If-None-Match": "*"])
        #expect(again.status == 200, "nothing to revalidate with: the whole answer again")
        let repos = try await EmulatorFixtures.get(github, "/github/users/tidewater-dev/repos")
        #expect(repos.status == 200)
        #expect(repos.headers["Cache-Control"] == "private, max-age=60", "per operation, over the definition's no-cache")
        let etag = try #require(repos.headers["ETag"])
        let revalidated = try await EmulatorFixtures.get(github, "/github/users/tidewater-dev/repos", headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304)
        #expect(revalidated.headers["ETag"] == etag)
        let sorted = try await EmulatorFixtures.get(github, "/github/users/tidewater-dev/repos?sort=created&direction=asc")
        let created = try JSONParser().parse(sorted.body).array?.compactMap { $0["created_at"]?.string } ?? []
        #expect(created.count == 3 && created == created.sorted(), "sort=created&direction=asc: oldest first")
        let unknown = try await EmulatorFixtures.get(github, "/github/users/tidewater-dev/repos?sort=stars")
        #expect(unknown.status == 422, "a sort GitHub does not document for this endpoint")
    }

    // MARK: The engine

    @Test func orderWithoutSortIsAUsageErrorNamingBoth() async throws {
        let server = try server()
        let result = await (try? server.run("search", provider: "github", ["query": "swift", "order": "desc"], token: nil))
        let error = try #require(result?.error)
        #expect(error.kind == .usage)
        #expect(error.message.contains("--order") && error.message.contains("--sort"))
        #expect(result?.meta.requests == 0, "nothing is sent")
        let sorted = try await server.run("search", provider: "github", ["query": "swift", "sort": "stars", "order": "asc"], limit: 5, token: nil)
        #expect(sorted.error == nil)
        let binary = try Binary.run(["github", "search", "swift", "--order", "desc", "--offline"])
        #expect(binary.status == 64)
        #expect(binary.stderr.contains("--order only applies with --sort"))
        #expect(binary.stdout.isEmpty)
    }

    @Test func aLimitPastTheWindowStopsAtMaxResultsAndSaysSo() async throws {
        let file = try EmulatorFixtures.bigGitHub()
        let server = try DefinitionServer(files: [file])
        let result = try await server.run("search", provider: "bigsearch", ["query": "swift"], limit: 1200, token: nil)
        #expect(result.error == nil)
        #expect(result.items.count == 1000)
        #expect(result.items.last?.id == "1000")
        #expect(result.meta.pages == 34)
        #expect(result.meta.totalCount == 1500)
        let binary = try Binary.run(["--provider-file", file.path, "bigsearch", "search", "swift", "--limit", "1200", "--offline", "--format", "ndjson"])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.stdout.split(separator: "\n").count == 1000)
        #expect(binary.stderr.contains("note: bigsearch: stopped at 1000 results"))
    }
}
