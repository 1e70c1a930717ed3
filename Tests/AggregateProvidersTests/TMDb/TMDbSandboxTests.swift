import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import Foundation
import MeetupProvider
@testable import TMDbProvider
@testable import TMDbSandbox
import Testing

/// The sandbox routes answer like TMDb: auth, search, paging, details with credits, and TMDb's error bodies.
@Suite struct TMDbSandboxTests {
    let context = SandboxContext(baseURL: URL(string: "http://127.0.0.1:8787/tmdb")!)

    func get(_ path: String, _ query: [(String, String)] = [], key: String? = TMDbSandbox.apiKey, bearer: String? = nil,
             method: String = "GET", context: SandboxContext? = nil) throws -> (status: Int, json: JSONValue) {
        var items = query.map { (name: $0.0, value: $0.1) }
        if let key { items.append((name: "api_key", value: key)) }
        var headers: HTTPHeaders = [:]
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        let request = SandboxRequest(method: method, path: path, query: items, headers: headers)
        let response = try #require(TMDbSandbox.sandboxResponse(for: request, context: context ?? self.context))
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        return (response.status, try JSONParser().parse(response.body))
    }

    func titles(_ json: JSONValue) -> [String] { json["results"]?.array?.compactMap { $0["title"]?.string } ?? [] }

    // MARK: Auth

    @Test func missingOrWrongCredentialsGetTMDbs401() throws {
        for (key, bearer) in [(nil, nil), ("wrong-key", nil), (nil, "wrong-token"), (nil, TMDbSandbox.apiKey)] as [(String?, String?)] {
            let answer = try get("/movie/popular", key: key, bearer: bearer)
            #expect(answer.status == 401)
            #expect(answer.json == ["success": false, "status_code": 7, "status_message": "Invalid API key: You must be granted a valid key."])
        }
    }

    @Test func theTokenAsBearerOrTheKeyAsApiKeyIsAccepted() throws {
        #expect(try get("/movie/popular", key: nil, bearer: TMDbSandbox.accessToken).status == 200)
        #expect(try get("/movie/popular").status == 200)
        #expect(try get("/configuration").json["images"]?["secure_base_url"] == "https://image.tmdb.org/t/p/")
    }

    // MARK: Search

    @Test func searchMatchesTitleWordsCaseAndAccentInsensitively() throws {
        #expect(titles(try get("/search/movie", [("query", "THE AMAZING spider-man")]).json) == ["The Amazing Spider-Man", "The Amazing Spider-Man 2"])
        #expect(titles(try get("/search/movie", [("query", "amelie")]).json) == ["Amélie"])
        #expect(titles(try get("/search/movie", [("query", "fabuleux destin")]).json) == ["Amélie"], "the original title matches too")
        #expect(titles(try get("/search/movie", [("query", "千尋")]).json) == ["Spirited Away"], "words inside titles written without spaces")
        #expect(titles(try get("/search/movie", [("query", "ETOILES")]).json) == ["Les Étoiles de Marseille"])
        #expect(titles(try get("/search/movie", [("query", "spider")]).json).count == 4)
    }

    @Test func theExactTitleComesFirstThenPopularity() throws {
        let found = titles(try get("/search/movie", [("query", "spider-man")]).json)
        #expect(found.first == "Spider-Man")
        #expect(Set(found) == ["Spider-Man", "The Amazing Spider-Man", "The Amazing Spider-Man 2", "Spider-Man: Into the Spider-Verse"])
    }

    @Test func yearFiltersOnTheReleaseYear() throws {
        #expect(titles(try get("/search/movie", [("query", "the amazing spider-man"), ("year", "2012")]).json) == ["The Amazing Spider-Man"])
        #expect(titles(try get("/search/movie", [("query", "les etoiles"), ("year", "2024")]).json).isEmpty, "an empty release date has no year")
    }

    @Test func noMatchIsTheObservedEmptyPage() throws {
        let answer = try get("/search/movie", [("query", "zzzz qqqq")])
        #expect(answer.status == 200)
        #expect(answer.json == ["page": 1, "results": [], "total_pages": 1, "total_results": 0])
    }

    @Test func aMissingQueryIsAValidationError() throws {
        for query in [[], [("query", "  ")]] as [[(String, String)]] {
            let answer = try get("/search/movie", query)
            #expect(answer.status == 422)
            #expect(answer.json == ["errors": ["query must be provided"]])
        }
    }

    @Test func listResultsHaveTheListShape() throws {
        let result = try #require(try get("/search/movie", [("query", "les etoiles")]).json["results"]?[0])
        #expect(result.object?.keys == [
            "adult", "backdrop_path", "genre_ids", "id", "original_language", "original_title", "overview", "popularity",
            "poster_path", "release_date", "title", "video", "vote_average", "vote_count",
        ])
        #expect(result["genre_ids"] == [18, 10763])
        #expect(result["release_date"] == "")
        #expect(result["poster_path"] == .null)
    }

    // MARK: Paging

    @Test func popularPagesBy20WithCorrectTotals() throws {
        let count = TMDbSandbox.movies.count
        var seen: [String] = []
        for page in 1...3 {
            let json = try get("/movie/popular", [("page", String(page))]).json
            #expect(json["page"] == .int(page))
            #expect(json["total_results"] == .int(count))
            #expect(json["total_pages"] == .int((count + 19) / 20))
            seen += json["results"]?.array?.compactMap { $0["id"]?.idString } ?? []
        }
        #expect(seen.count == count)
        #expect(Set(seen).count == count)
        let popularity = try get("/movie/popular").json["results"]?.array?.compactMap { $0["popularity"]?.double } ?? []
        #expect(popularity == popularity.sorted(by: >))
        #expect(try get("/movie/popular", [("page", "4")]).json["results"] == [], "past the last page: no results")
    }

    @Test(arguments: ["0", "501", "two", "-1"])
    func invalidPagesAreRefusedWithCode22(_ page: String) throws {
        let answer = try get("/movie/popular", [("page", page)])
        #expect(answer.status == 400)
        #expect(answer.json["status_code"] == 22)
    }

    @Test func theDriftSettingRepeatsMoviesAcrossPages() throws {
        let drifting = SandboxContext(baseURL: context.baseURL, settings: [TMDbSandbox.popularDriftSetting: "3"])
        let first = try get("/movie/popular", [("page", "1")], context: drifting).json["results"]?.array ?? []
        let second = try get("/movie/popular", [("page", "2")], context: drifting).json["results"]?.array ?? []
        #expect(Array(first.suffix(3)) == Array(second.prefix(3)))
    }

    // MARK: Details

    @Test func movieDetailsAppendCreditsOnlyWhenAsked() throws {
        let plain = try get("/movie/1930").json
        #expect(plain["title"] == "The Amazing Spider-Man")
        #expect(plain["credits"] == nil)
        let withCredits = try get("/3/movie/1930", [("append_to_response", "videos,credits")]).json
        #expect(withCredits["credits"]?.object?.keys == ["cast", "crew"])
        #expect(withCredits["credits"]?["cast"]?[0]?["name"] == "Andrew Garfield")
        let credits = try get("/movie/1930/credits").json
        #expect(credits.object?.keys == ["id", "cast", "crew"])
        #expect(credits["id"] == 1930)
    }

    @Test func tooManyAppendedPartsAreRefused() throws {
        let parts = (1...21).map { "part\($0)" }.joined(separator: ",")
        let answer = try get("/movie/1930", [("append_to_response", parts)])
        #expect(answer.status == 400)
        #expect(answer.json["status_code"] == 27)
    }

    @Test(arguments: ["/movie/424242", "/movie/abc", "/movie/1930/nonsense", "/3/tv/1"])
    func unknownIdsAndPathsAreTMDbs404(_ path: String) throws {
        let answer = try get(path)
        #expect(answer.status == 404)
        #expect(answer.json == ["status_code": 34, "status_message": "The resource you requested could not be found."])
    }

    @Test func otherPathsAndMethods() throws {
        #expect(TMDbSandbox.sandboxResponse(for: SandboxRequest(method: "GET", path: "/2/groups"), context: context) == nil)
        #expect(try get("/movie/popular", method: "POST").status == 405)
    }

    @Test func theRouteTableServesTheAPIWithOrWithoutItsVersionPrefix() throws {
        #expect(try get("/3/movie/1930/credits").json["id"] == 1930)
        #expect(titles(try get("/3/search/movie", [("query", "amelie")]).json) == ["Amélie"])
        #expect(try get("/movie/popular", method: "HEAD").status == 200)
        #expect(try get("/3/movie/popular/deeper/still", key: nil).status == 404, "an unknown path is a 404 before authentication")
        #expect(try get("/3/xyz", method: "DELETE").json["status_code"] == 42, "any other method is TMDb's 405")
        for path in ["/3", "/configuration", "/movie/1930", "/search/tv"] {
            #expect(TMDbSandbox.sandboxPaths.contains { $0.matches(path) }, "\(path) is TMDb's at the sandbox's root")
        }
        #expect(!TMDbSandbox.sandboxPaths.contains { $0.matches("/2/groups") })
    }

    @Test func faultsCarryTMDbsEnvelope() throws {
        let request = SandboxRequest(method: "GET", path: "/movie/popular")
        for (status, code) in [(429, 25), (401, 7), (503, 46), (500, 11), (504, 24)] {
            let response = try #require(TMDbSandbox.sandboxFaultResponse(status: status, request: request, context: context))
            #expect(response.status == status)
            #expect(try JSONParser().parse(response.body)["status_code"] == .int(code))
        }
    }

    // MARK: Catalogue

    @Test func theCatalogueCarriesTheQuirksOfRealData() {
        let movies = TMDbSandbox.movies
        #expect(movies.count >= 40)
        #expect(Set(movies.compactMap { $0["id"]?.idString }).count == movies.count, "ids are unique")
        #expect(movies.contains { $0["release_date"] == "" })
        #expect(movies.contains { $0["poster_path"] == .null })
        #expect(movies.contains { $0["overview"] == "" })
        #expect(movies.contains { $0["title"]?.string?.unicodeScalars.contains { $0.properties.isEmojiPresentation } == true })
        #expect(movies.allSatisfy { $0["credits"]?["cast"]?.array != nil })
        #expect(movies.contains { ($0["credits"]?["crew"]?.array ?? []).filter { $0["job"] == "Director" }.count > 1 })
    }
}
