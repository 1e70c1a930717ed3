import AggregateJSON
import AggregateSandboxKit
import Foundation
@testable import KivaProvider
@testable import MeetupProvider
@testable import TMDbProvider
import Testing

/// The TMDb, Kiva and Meetup emulators answer invalid values of documented parameters the way
/// `../shared/api/*.md` documents; parameters the APIs do not document are ignored, as the APIs do.
@Suite struct DocumentedParameterRulesTests {
    // MARK: TMDb: invalid input is HTTP 400 with status_code 47.

    func tmdb(_ path: String, _ query: [(String, String)]) throws -> (status: Int, json: JSONValue) {
        try TMDbSandboxTests().get(path, query)
    }

    @Test(arguments: [
        ("/search/movie", [("query", "batman"), ("language", "english")], "language"),
        ("/search/movie", [("query", "batman"), ("language", "en-us")], "language"),
        ("/search/movie", [("query", "batman"), ("region", "us")], "region"),
        ("/search/movie", [("query", "batman"), ("include_adult", "maybe")], "include_adult"),
        ("/search/movie", [("query", "batman"), ("year", "1989x")], "year"),
        ("/search/movie", [("query", "batman"), ("primary_release_year", "89")], "primary_release_year"),
        ("/movie/popular", [("region", "GBR")], "region"),
        ("/movie/popular", [("language", "fr_FR")], "language"),
        ("/movie/268", [("language", "xx-")], "language"),
    ])
    func tmdbRejectsInvalidValuesWithCode47(_ path: String, _ query: [(String, String)], _ parameter: String) throws {
        let answer = try tmdb(path, query)
        #expect(answer.status == 400)
        #expect(answer.json["status_code"] == 47)
        #expect(answer.json["success"] == false)
        #expect(answer.json["status_message"]?.string?.contains(parameter) == true)
    }

    @Test func tmdbAcceptsDocumentedValuesAndIgnoresUnknownParameters() throws {
        let valid = try tmdb("/search/movie", [("query", "batman"), ("language", "en-US"), ("region", "US"), ("include_adult", "false"), ("year", "1989")])
        #expect(valid.status == 200)
        #expect(try tmdb("/movie/popular", [("language", "de"), ("sort", "whatever")]).status == 200)
    }

    // MARK: Kiva REST v1: documented enums, Kiva's {code, message} body.

    func kiva(_ query: [(String, String)]) throws -> SandboxResponse {
        try KivaRESTSandboxTests().get("/v1/loans/search.json", query)
    }

    @Test(arguments: [[("region", "europe")], [("region", "af,xx")], [("country_code", "KEN")], [("country_code", "K1")]])
    func kivaRejectsValuesOutsideTheDocumentedOnes(_ query: [(String, String)]) throws {
        let response = try kiva(query)
        #expect(response.status == 400)
        #expect(response.parsedBody["code"] == "org.kiva.InvalidParameter")
        #expect(response.parsedBody["message"]?.string?.contains(query[0].0) == true)
    }

    @Test func kivaAcceptsDocumentedValues() throws {
        #expect(try kiva([("region", "af")]).status == 200)
        #expect(try kiva([("country_code", "KE,ug")]).status == 200)
        #expect(try kiva([("region", "af"), ("unknown_parameter", "1")]).status == 200)
        #expect(try kiva([("sort_by", "repayment_term")]).status == 200, "a documented sort_by value")
    }

    // MARK: Meetup v2: the catch-all 400 with details.

    let meetup = MeetupSandboxTests()

    @Test(arguments: [
        ("lat=north&lon=-0.13", "lat"), ("lat=91&lon=-0.13", "lat"), ("lat=51.5&lon=-181", "lon"), ("lat=51.5&lon=-0.13&radius=far", "radius"),
        ("lat=51.5&lon=-0.13&order=popularity", "order"), ("lat=51.5&lon=-0.13&desc=maybe", "desc"),
    ])
    func meetupRejectsInvalidValuesWith400(_ query: String, _ name: String) throws {
        let response = try #require(meetup.v2(query + "&key=\(meetup.key)"))
        #expect(response.status == 400, "\(query)")
        let body = try JSONParser().parse(response.body)
        #expect(body["code"] == "bad_request")
        #expect(body["problem"]?.string == "Invalid \(name)", "\(query)")
    }

    @Test func meetupOrdersAsDocumented() throws {
        func names(_ query: String) throws -> [String] {
            let response = try #require(meetup.v2("lat=51.509980&lon=-0.133700&key=\(meetup.key)&" + query))
            #expect(response.status == 200)
            return try JSONParser().parse(response.body)["results"]?.array?.compactMap { $0["name"]?.string } ?? []
        }
        func members(_ query: String) throws -> [Int] {
            let response = try #require(meetup.v2("lat=51.509980&lon=-0.133700&key=\(meetup.key)&" + query))
            return try JSONParser().parse(response.body)["results"]?.array?.compactMap { $0["members"]?.int } ?? []
        }
        let byMembers = try members("order=members")
        #expect(byMembers.count > 2 && byMembers == byMembers.sorted(by: >), "largest first")
        #expect(try members("order=members&desc=true") == byMembers.reversed())
        let byName = try names("order=name")
        #expect(byName == byName.sorted { $0.localizedCaseInsensitiveCompare($1) == .orderedAscending })
        #expect(try names("order=location") == names(""))
        #expect(try names("unknown_parameter=1") == names(""), "undocumented parameters are ignored")
    }
}
