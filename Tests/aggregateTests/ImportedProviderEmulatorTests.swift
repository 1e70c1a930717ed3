import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import AggregateYAML
import Foundation
import Testing

/// The emulators of the providers imported from OpenAPI documents answer the errors their documents declare, over
/// a real loopback server: each status asserted here is first looked up among the document's responses for that
/// path, so the test only claims what the document says the API answers.
@Suite(.serialized) struct ImportedProviderEmulatorTests {
    /// The document's declared response statuses of `GET path`.
    static func declared(_ folder: String, _ document: String, path: String) throws -> Set<String> {
        let data = try Data(contentsOf: EmulatorFixtures.providers.appendingPathComponent("\(folder)/\(document)"))
        let root = document.hasSuffix(".json") ? try JSONParser().parse(data) : try YAMLParser.parse(data)
        return Set(root["paths"]?[path]?["get"]?["responses"]?.object?.keys ?? [])
    }

    static func server(_ folder: String) throws -> DefinitionServer {
        try DefinitionServer(files: [EmulatorFixtures.providers.appendingPathComponent("\(folder)/provider.json")])
    }

    @Test func nytimesRefusesAMissingOrWrongKeyAndPastItsMinuteBudget() async throws {
        let declared = try Self.declared("NYTimes", "nytimes.com-article_search_v2.yaml", path: "/articlesearch.json")
        #expect(declared.isSuperset(of: ["200", "401", "429"]))
        let server = try Self.server("NYTimes")
        let missing = try await EmulatorFixtures.get(server, "/nytimes/articlesearch.json?q=moon")
        #expect(missing.status == 401)
        let wrong = try await EmulatorFixtures.get(server, "/nytimes/articlesearch.json?q=moon&api-key=not-the-key")
        #expect(wrong.status == 401)
        #expect(!String(decoding: wrong.body, as: UTF8.self).contains("not-the-key"), "the refused key is not echoed")
        // The definition's budget is the API's documented 5 requests a minute. Six requests that took longer than
        // that minute (the whole test run shares two cores, and once took five minutes here) prove nothing either
        // way, so they are sent again to a fresh emulator, whose window starts anew.
        var statuses: [Int] = []
        for _ in 0..<5 {
            let fresh = try Self.server("NYTimes")
            let started = Date()
            statuses = []
            for _ in 0..<6 { statuses.append(try await EmulatorFixtures.get(fresh, "/nytimes/articlesearch.json?q=moon&api-key=sandbox-nytimes-api-key").status) }
            if Date().timeIntervalSince(started) < 50 { break }
        }
        #expect(statuses == [200, 200, 200, 200, 200, 429])
    }

    @Test func jikanAnswersABadPageAndAnUnknownPathAsItsDocumentDeclares() async throws {
        let declared = try Self.declared("Jikan", "jikan.moe-api-docs.json", path: "/anime")
        #expect(declared.isSuperset(of: ["200", "400"]))
        let server = try Self.server("Jikan")
        let fine = try await EmulatorFixtures.get(server, "/jikan/anime?q=bebop")
        #expect(fine.status == 200)
        let badPage = try await EmulatorFixtures.get(server, "/jikan/anime?q=bebop&page=abc")
        #expect(badPage.status == 400)
        #expect(try badPage.json()["message"]?.string?.contains("page") == true)
        let unknown = try await EmulatorFixtures.get(server, "/jikan/anime/1/nothing-here")
        #expect(unknown.status == 404)
    }

    @Test func devtoRefusesAWrongKeyOnTheReadingList() async throws {
        let declared = try Self.declared("DevTo", "forem.com-api_v1.json", path: "/api/readinglist")
        #expect(declared.contains("401"))
        let server = try Self.server("DevTo")
        let wrong = try await EmulatorFixtures.get(server, "/devto/api/readinglist", headers: ["api-key": "not-the-key"])
        #expect(wrong.status == 401)
        let right = try await EmulatorFixtures.get(server, "/devto/api/readinglist", headers: ["api-key": "sandbox-devto-api-key"])
        #expect(right.status == 200)
        #expect(try right.json().array?.isEmpty == false)
    }
}
