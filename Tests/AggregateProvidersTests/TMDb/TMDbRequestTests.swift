import AggregateCore
import AggregateJSON
import Foundation
import MeetupProvider
@testable import TMDbProvider
import Testing

/// Credentials, request building and error mapping.
@Suite struct TMDbRequestTests {
    let provider = TMDbProvider()

    @Test func missingCredentialsAreAConfigErrorNamingBothVariables() throws {
        do {
            _ = try TMDbFixtures.query("search", environment: ["TMDB_API_KEY": "  "])
            Issue.record("expected a config error")
        } catch let error as AggregateError {
            #expect(error.kind == .config)
            #expect(ExitCode(for: error) == .config)
            #expect(error.message.contains("TMDB_ACCESS_TOKEN"))
            #expect(error.message.contains("TMDB_API_KEY"))
            #expect(error.message.contains("--offline"))
        }
    }

    @Test func theAccessTokenIsPreferredAndSentAsBearer() throws {
        let query = try TMDbFixtures.query(
            "popular", environment: ["TMDB_ACCESS_TOKEN": "eyJ.token.sig", "TMDB_API_KEY": "0123456789abcdef0123456789abcdef"])
        let request = try provider.request(for: query, cursor: nil, remaining: 20)
        #expect(request.credential == .bearer("eyJ.token.sig"))
        #expect(request.url.absoluteString == "https://api.themoviedb.org/3/movie/popular?page=1")
    }

    @Test func theAPIKeyIsSentAsTheApiKeyQueryParameterByTheFetchLayer() throws {
        let query = try TMDbFixtures.query("popular", environment: ["TMDB_API_KEY": "0123456789abcdef0123456789abcdef"])
        let request = try provider.request(for: query, cursor: "3", remaining: 20)
        #expect(request.credential == .queryParameter(name: "api_key", value: "0123456789abcdef0123456789abcdef"))
        #expect(!request.url.absoluteString.contains("0123456789abcdef"), "the provider never puts the key in the URL itself")
        #expect(request.url.queryValue("page") == "3")
    }

    @Test func searchSendsQueryYearAndPage() throws {
        let query = try TMDbFixtures.query("search", parameters: JSONObject(pairs: ["query": "the amazing spider-man", "year": 2012]))
        let request = try provider.request(for: query, cursor: nil, remaining: 20)
        #expect(request.url.path == "/3/search/movie")
        #expect(request.url.queryValue("query") == "the amazing spider-man")
        #expect(request.url.queryValue("year") == "2012")
        #expect(request.url.queryValue("page") == "1")
        let noYear = try TMDbFixtures.query("search", parameters: JSONObject(pairs: ["query": "Amélie & co"]))
        let second = try provider.request(for: noYear, cursor: "2", remaining: 20)
        #expect(second.url.queryValue("year") == nil)
        #expect(second.url.queryValue("query") == "Amélie & co", "percent-encoded, including '&'")
        #expect(second.url.queryValue("page") == "2")
    }

    @Test func movieAppendsCredits() throws {
        let query = try TMDbFixtures.query("movie", parameters: JSONObject(pairs: ["id": 1930]))
        let request = try provider.request(for: query, cursor: nil, remaining: 20)
        #expect(request.url.absoluteString == "https://api.themoviedb.org/3/movie/1930?append_to_response=credits")
        #expect(request.method == "GET")
        #expect(request.isIdempotent)
    }

    @Test func theQueryEchoesOnlyTheParametersGiven() throws {
        #expect(try TMDbFixtures.query("movie", parameters: JSONObject(pairs: ["id": 1930])).parameters == ["id": 1930])
    }

    @Test func aHexTokenIsRecognisedAsAMisplacedAPIKey() {
        #expect(TMDbProvider.looksLikeAPIKey("0123456789abcdef0123456789ABCDEF"))
        #expect(!TMDbProvider.looksLikeAPIKey("eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln"))
        #expect(!TMDbProvider.looksLikeAPIKey("0123456789abcdef"))
    }
}

/// Every error shape TMDb answers with becomes one clear line with the documented exit code.
@Suite struct TMDbErrorTests {
    let provider = TMDbProvider()

    func error(_ body: String, status: Int, operation: String = "search", parameters: JSONObject = JSONObject(),
               environment: [String: String] = ["TMDB_API_KEY": "0123456789abcdef0123456789abcdef"]) throws -> AggregateError {
        let query = try TMDbFixtures.query(operation, parameters: parameters, environment: environment)
        return provider.error(for: TMDbFixtures.response(text: body, status: status), query: query)
    }

    @Test func invalidKeyNamesTMDbsMessageStatusCodeAndTheVariable() throws {
        let error = try error(#"{"status_message": "Invalid API key: You must be granted a valid key.", "success": false, "status_code": 7}"#, status: 401)
        #expect(error.kind == .auth)
        #expect(error.httpStatus == 401)
        #expect(ExitCode(for: error) == .failure)
        #expect(error.message == "Invalid API key: You must be granted a valid key. (HTTP 401, TMDb code 7). Check TMDB_API_KEY.")
        #expect(error.attributed(to: "tmdb").description.hasPrefix("tmdb: Invalid API key: You must be granted a valid key. (HTTP 401, TMDb code 7)"))
    }

    @Test func aRejectedTokenNamesTheTokenVariable() throws {
        let error = try error(#"{"status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false}"#, status: 401,
                              environment: ["TMDB_ACCESS_TOKEN": "eyJ.wrong.token"])
        #expect(error.message.hasSuffix("Check TMDB_ACCESS_TOKEN."))
    }

    @Test func aV3KeyInTheTokenVariableGetsAHint() throws {
        let error = try error(#"{"status_code": 7, "status_message": "Invalid API key: You must be granted a valid key.", "success": false}"#, status: 401,
                              environment: ["TMDB_ACCESS_TOKEN": "0123456789abcdef0123456789abcdef"])
        #expect(error.message.contains("looks like a v3 API key: set TMDB_API_KEY to it instead"))
        #expect(!error.message.contains("0123456789abcdef"), "the value itself is never shown")
    }

    @Test(arguments: [
        #"{"status_message": "The resource you requested could not be found.", "status_code": 34}"#,
        #"{"success": false, "status_code": 6, "status_message": "Invalid id: The pre-requisite id is invalid or not found."}"#,
    ])
    func anUnknownMovieIdIsNotFound(_ body: String) throws {
        let error = try error(body, status: 404, operation: "movie", parameters: JSONObject(pairs: ["id": 424242]))
        #expect(error.kind == .notFound)
        #expect(ExitCode(for: error) == .failure)
        #expect(error.message.hasPrefix("no movie with id 424242 (HTTP 404, TMDb code "))
    }

    @Test func aNotFoundOutsideMovieKeepsTMDbsMessage() throws {
        let error = try error(#"{"status_message": "The resource you requested could not be found.", "status_code": 34}"#, status: 404)
        #expect(error.kind == .notFound)
        #expect(error.message == "The resource you requested could not be found. (HTTP 404, TMDb code 34)")
    }

    @Test func anHTMLNotFoundIsNotMistakenForAMissingMovie() throws {
        let error = TMDbProvider().error(
            for: TMDbFixtures.response(text: "<!DOCTYPE html><html><body>Not Found</body></html>", status: 404, headers: ["Content-Type": "text/html"]),
            query: try TMDbFixtures.query("movie", parameters: JSONObject(pairs: ["id": 7])))
        #expect(error.kind == .notFound)
        #expect(!error.message.contains("no movie"))
    }

    @Test func validationErrorsUseTheErrorsList() throws {
        let error = try error(#"{"errors": ["query must be provided"]}"#, status: 422)
        #expect(error.kind == .http)
        #expect(error.message == "TMDb rejected the request: query must be provided (HTTP 422)")
    }

    @Test func rateLimitingSaysToWait() throws {
        let error = try error(#"{"status_code": 25, "status_message": "Your request count (#) is over the allowed limit of (40).", "success": false}"#, status: 429)
        #expect(error.kind == .rateLimited)
        #expect(error.message.hasPrefix("Your request count (#) is over the allowed limit of (40). (HTTP 429, TMDb code 25). Retries ran out"))
    }

    @Test func maintenanceAndOtherServerErrorsKeepTMDbsMessage() throws {
        let error = try error(#"{"success": false, "status_code": 46, "status_message": "The API is undergoing maintenance. Try again later."}"#, status: 503)
        #expect(error.kind == .http)
        #expect(error.message == "The API is undergoing maintenance. Try again later. (HTTP 503, TMDb code 46)")
    }

    @Test func bodiesWithoutTMDbsShapeFallBackToTheGenericMessage() throws {
        let html = TMDbProvider().error(
            for: TMDbFixtures.response(text: "<html><body>Bad gateway</body></html>", status: 502, headers: ["Content-Type": "text/html"]),
            query: try TMDbFixtures.query("popular"))
        #expect(html.message == "the server answered HTTP 502 with an HTML page")
        let bare401 = try error("", status: 401)
        #expect(bare401.kind == .auth)
        #expect(bare401.message.contains("TMDB_ACCESS_TOKEN or TMDB_API_KEY"))
    }
}
