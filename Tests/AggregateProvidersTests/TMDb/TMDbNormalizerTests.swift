import AggregateCore
import AggregateJSON
import AggregateRendering
import Foundation
import MeetupProvider
@testable import TMDbProvider
@testable import TMDbSandbox
import Testing

/// The normalizer on the project's own fixtures in TMDb's shapes.
@Suite struct TMDbNormalizerTests {
    let posterBase = "https://image.tmdb.org/t/p/w500"

    @Test func searchResultsBecomeMovies() throws {
        let page = try TMDbNormalizer.listPage(TMDbFixtures.json("search_page_quirks"), requestedPage: 1, imageBase: posterBase)
        #expect(page.items.map(\.id) == ["1930", "8800001", "8800002"], "the entry without an id is skipped")
        let movie = page.items[0]
        #expect(movie.provider == "tmdb")
        #expect(movie.kind == "movie")
        #expect(movie.title == "The Amazing Spider-Man")
        #expect(movie.subtitle == nil, "the original title equals the title")
        #expect(movie.url == "https://www.themoviedb.org/movie/1930")
        #expect(movie.imageUrl == "https://image.tmdb.org/t/p/w500/pT4rMx2bQ9wLc1nV7sKd3JfYhA8.jpg")
        #expect(movie.createdAt.map(ISO8601.string(from:)) == "2012-06-23T00:00:00Z")
        #expect(movie.metrics == ["popularity": Decimal(string: "85.214")!, "voteAverage": Decimal(string: "6.641")!, "voteCount": 18342])
        #expect(movie.tags == ["Action", "Adventure", "Fantasy"])
        #expect(movie.extra == JSONObject(pairs: ["originalLanguage": "en", "originalTitle": "The Amazing Spider-Man", "adult": false]))
        #expect(page.totalCount == 23)
        #expect(page.next == .numberedPages(current: 1, total: 2, pageSize: 20))
    }

    @Test func nullPosterEmptyDateUnknownGenreAndNoVotesAreOmittedNotInvented() throws {
        let page = try TMDbNormalizer.listPage(TMDbFixtures.json("search_page_quirks"), requestedPage: 1, imageBase: posterBase)
        let movie = try #require(page.items.first { $0.id == "8800001" })
        #expect(movie.imageUrl == nil, "poster_path null")
        #expect(movie.createdAt == nil, "release_date \"\"")
        #expect(movie.tags == ["Drama"], "10763 is not a movie genre: dropped, not named")
        #expect(movie.metrics["voteAverage"] == nil, "an average of 0 from 0 votes is not a rating")
        #expect(movie.metrics["voteCount"] == 0)
        #expect(movie.subtitle == "Le Cinéma d'été", "the original title differs")
        #expect(movie.summary == "Un été, un projecteur et trois amis.", "whitespace collapsed")
        let json = ResultRenderer.ndjson([ProviderResult(provider: "tmdb", operation: "search", items: [movie], meta: ResultMeta(source: .offline))])
        #expect(!json.contains("\"imageUrl\""))
        #expect(!json.contains("\"createdAt\""))
    }

    @Test func unicodeTitlesMissingDateAndIntegerAverage() throws {
        let page = try TMDbNormalizer.listPage(TMDbFixtures.json("search_page_quirks"), requestedPage: 1, imageBase: posterBase)
        let movie = try #require(page.items.first { $0.id == "8800002" })
        #expect(movie.title == "夏の映画館")
        #expect(movie.subtitle == nil)
        #expect(movie.summary == nil, "an empty overview is no summary")
        #expect(movie.createdAt == nil, "release_date missing")
        #expect(movie.tags.isEmpty)
        #expect(movie.metrics["voteAverage"] == 7)
    }

    @Test func unknownGenreIdsNeverCrashOrGetNames() {
        #expect(TMDbGenres.names(for: [28, 999_999, -1, 10770, 37]) == ["Action", "TV Movie", "Western"])
        #expect(TMDbGenres.names.count == 19)
    }

    @Test func totalPagesAreCappedAtTheLastPageTMDbServes() throws {
        let page = try TMDbNormalizer.listPage(TMDbFixtures.json("popular_capped"), requestedPage: 1, imageBase: posterBase)
        #expect(page.next == .numberedPages(current: 1, total: 500, pageSize: 20))
        #expect(page.totalCount == 849_412)
        #expect(page.items.first?.metrics["popularity"] == Decimal(string: "3205.442"))
    }

    @Test(arguments: [
        #"{"page":1,"results":[],"total_pages":0,"total_results":0}"#,
        #"{"page":1,"results":[],"total_pages":1,"total_results":0}"#,
        #"{"page":3,"results":[{"id":1,"title":"Last"}],"total_pages":3,"total_results":41}"#,
    ])
    func pagesWithoutANextPage(_ body: String) throws {
        let page = try TMDbNormalizer.listPage(JSONParser().parse(body), requestedPage: 1, imageBase: posterBase)
        #expect(page.next == nil)
    }

    @Test func aMissingPageNumberFallsBackToTheRequestedOne() throws {
        let page = try TMDbNormalizer.listPage(
            JSONParser().parse(#"{"results":[{"id":7,"title":"Seven"}],"total_pages":4}"#), requestedPage: 2, imageBase: posterBase)
        #expect(page.next == .numberedPages(current: 2, total: 4, pageSize: 20))
    }

    @Test func detailsWithCreditsGiveDirectorsAndCastInBillingOrder() throws {
        let page = try TMDbNormalizer.details(TMDbFixtures.json("movie_details_credits"), imageBase: posterBase)
        let movie = try #require(page.items.first)
        #expect(page.next == nil)
        #expect(movie.title == "Starlight Station")
        #expect(movie.subtitle == "별빛 정거장", "no tagline: the differing original title")
        #expect(movie.tags == ["Animation", "Science Fiction"], "a nameless genre uses the fixed list; an unknown one is dropped")
        #expect(movie.metrics["runtime"] == nil, "runtime 0 means unknown")
        #expect(movie.createdAt.map(ISO8601.string(from:)) == "2024-02-29T00:00:00Z")
        #expect(movie.extraValue("directors") == ["Yoon Da-som", "Baek Na-rae"], "job Director only, each once, not the Co-Director")
        #expect(movie.extraValue("cast") == [
            ["name": "Seo Min-jun", "character": "Station Keeper (voice)", "order": 0],
            ["name": "Jo Eun-bi", "order": 1],
            ["name": "Han Ji-woo", "character": "Passenger", "order": 2],
        ])
        #expect(movie.extra.keys == ["originalLanguage", "originalTitle", "adult", "directors", "cast"])
    }

    @Test func detailsPreferTheTaglineAndKeepAKnownRuntime() throws {
        let body = #"{"id": 5, "title": "Tagged", "original_title": "Étiqueté", "tagline": "One line.", "runtime": 136, "genres": [], "credits": {"cast": [], "crew": []}}"#
        let movie = try #require(try TMDbNormalizer.details(JSONParser().parse(body), imageBase: posterBase).items.first)
        #expect(movie.subtitle == "One line.")
        #expect(movie.metrics["runtime"] == 136)
        #expect(movie.extraValue("directors") == [])
        #expect(movie.extraValue("cast") == [])
    }

    @Test func detailsWithoutCreditsOmitDirectorsAndCast() throws {
        let movie = try #require(try TMDbNormalizer.details(JSONParser().parse(#"{"id": 5, "title": "Bare", "runtime": null}"#), imageBase: posterBase).items.first)
        #expect(movie.extraValue("directors") == nil)
        #expect(movie.extraValue("cast") == nil)
        #expect(movie.metrics.isEmpty)
    }

    @Test func bodiesOfTheWrongShapeAreDecodingErrors() throws {
        #expect(throws: AggregateError.self) { try TMDbNormalizer.listPage(JSONParser().parse(#"{"page":1}"#), requestedPage: 1, imageBase: posterBase) }
        do {
            _ = try TMDbNormalizer.details(JSONParser().parse(#"{"title":"No id"}"#), imageBase: posterBase)
            Issue.record("expected an error")
        } catch let error as AggregateError {
            #expect(error.kind == .decoding)
        }
    }

    @Test func errorBodiesArrivingWith200AreErrors() throws {
        let body = #"{"success": false, "status_code": 7, "status_message": "Invalid API key: You must be granted a valid key."}"#
        do {
            _ = try TMDbNormalizer.listPage(JSONParser().parse(body), requestedPage: 1, imageBase: posterBase)
            Issue.record("expected an error")
        } catch let error as AggregateError {
            #expect(error.kind == .auth)
            #expect(error.message == "Invalid API key: You must be granted a valid key. (HTTP 200, TMDb code 7)")
        }
        #expect(throws: AggregateError.self) { try TMDbNormalizer.details(JSONParser().parse(#"{"errors":["id must be a number"]}"#), imageBase: posterBase) }
    }

    @Test func textViewNumbersAreWrittenTheSameInEveryLocale() {
        #expect(TMDbTextView.grouped(18342) == "18,342")
        #expect(TMDbTextView.grouped(999) == "999")
        #expect(TMDbTextView.grouped(-1_234_567) == "-1,234,567")
        #expect(TMDbTextView.grouped(Decimal(string: "1234.9")!) == "1,234", "whole votes only")
        #expect(TMDbTextView.oneDecimal(Decimal(string: "6.65")!) == "6.7", "half up, as TMDb shows it")
        #expect(TMDbTextView.oneDecimal(7) == "7.0")
        #expect(TMDbTextView.duration(minutes: 136) == "2 h 16 min")
        #expect(TMDbTextView.duration(minutes: 120) == "2 h")
        #expect(TMDbTextView.duration(minutes: 45) == "45 min")
    }

    @Test func posterBaseFromConfiguration() throws {
        let real = try JSONParser().parse(TMDbSampleData.configurationJSON)
        #expect(TMDbImages.posterBase(fromConfiguration: real) == "https://image.tmdb.org/t/p/w500")
        let noW500 = try JSONParser().parse(#"{"images":{"secure_base_url":"https://cdn.example.org/img","poster_sizes":["w92","w342","w780","original"]}}"#)
        #expect(TMDbImages.posterBase(fromConfiguration: noW500) == "https://cdn.example.org/img/w342")
        #expect(TMDbImages.posterBase(fromConfiguration: [:]) == TMDbImages.defaultPosterBase)
        #expect(TMDbImages.posterSize(["w780", "original"]) == "w780")
        #expect(TMDbImages.posterSize(["original"]) == "original")
        #expect(TMDbImages.url(path: "abc.jpg", base: "https://x/w500") == "https://x/w500/abc.jpg")
    }
}
