import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import TMDbProvider
import Testing

/// The provider reads the real captured TMDb responses in `../shared/api/samples/tmdb` (when that folder exists).
@Suite struct TMDbSharedSamplesTests {
    static let samples = TestPaths.sharedResponseSamples("tmdb")
    let posterBase = TMDbImages.defaultPosterBase

    @Test(arguments: samples)
    func everySampleIsReadAsItsShape(_ file: URL) throws {
        let name = file.lastPathComponent
        let json = try JSONParser().parse(Data(contentsOf: file))
        if name.hasPrefix("search_movie") || name.hasPrefix("movie_popular") || name.hasPrefix("movie_now_playing") {
            let page = try TMDbNormalizer.listPage(json, requestedPage: 1, imageBase: posterBase)
            let results = json["results"]?.array ?? []
            #expect(page.items.count == results.count)
            for (item, result) in zip(page.items, results) {
                #expect(item.id == result["id"]?.idString)
                #expect((item.imageUrl == nil) == (result["poster_path"] == .null))
                #expect((item.createdAt == nil) == (result["release_date"]?.string ?? "").isEmpty)
                #expect(item.tags.count == (result["genre_ids"]?.array ?? []).count, "every real genre id is in the fixed list")
                #expect(item.metrics["popularity"] == result["popularity"]?.decimal)
            }
            if let total = json["total_pages"]?.int, total > 1, !results.isEmpty {
                #expect(page.next == .numberedPages(current: 1, total: min(total, 500), pageSize: 20))
            } else {
                #expect(page.next == nil)
            }
        } else if name.hasPrefix("movie_") && name.contains("details") {
            let item = try #require(try TMDbNormalizer.details(json, imageBase: posterBase).items.first)
            #expect(item.id == json["id"]?.idString)
            #expect(item.tags == (json["genres"]?.array ?? []).compactMap { $0["name"]?.string })
            if let credits = json["credits"] {
                let directors = (credits["crew"]?.array ?? []).filter { $0["job"] == "Director" }.compactMap { $0["name"]?.string }
                #expect(item.extraValue("directors")?.array?.compactMap(\.string) == directors)
                let orders = item.extraValue("cast")?.array?.compactMap { $0["order"]?.int } ?? []
                #expect(orders == orders.sorted())
                #expect(orders.count == credits["cast"]?.array?.count)
            }
            if json["tagline"]?.string?.isEmpty == true, json["original_title"] != json["title"] {
                #expect(item.subtitle == json["original_title"]?.string)
            }
        } else if name.hasPrefix("movie_") && name.contains("credits") {
            let cast = TMDbNormalizer.cast(json["cast"])
            #expect(cast.count == json["cast"]?.array?.count)
            #expect(TMDbNormalizer.directors(json["crew"]).isEmpty == false)
        } else if name.hasPrefix("configuration") {
            #expect(TMDbImages.posterBase(fromConfiguration: json) == "https://image.tmdb.org/t/p/w500")
        } else if name.hasPrefix("error_") {
            let status = name.contains("401") ? 401 : name.contains("404") ? 404 : name.contains("429") ? 429 : 422
            let response = HTTPResponse(status: status, body: try Data(contentsOf: file))
            let query = try TMDbFixtures.query("movie", parameters: JSONObject(pairs: ["id": 550]))
            let error = TMDbProvider().error(for: response, query: query)
            let expected: [Int: AggregateError.Kind] = [401: .auth, 404: .notFound, 429: .rateLimited, 422: .http]
            #expect(error.kind == expected[status])
            #expect(!error.message.contains("\n"))
            if let message = json["status_message"]?.string, status != 404 { #expect(error.message.hasPrefix(message)) }
            if status == 404 { #expect(error.message == "no movie with id 550 (HTTP 404, TMDb code 34)") }
            if let first = json["errors"]?[0]?.string { #expect(error.message.contains(first)) }
        } else {
            Issue.record("unclassified TMDb sample \(name): teach this test its shape")
        }
    }
}
