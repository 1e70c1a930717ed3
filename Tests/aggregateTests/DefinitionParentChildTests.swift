import AggregateCore
import AggregateJSON
import AggregateSandbox
import Foundation
import Testing

/// Parent->child operations and record filters of the `family` fixture definition: over loopback (the generic
/// emulator on 127.0.0.1 with the real URLSession transport) and end to end through the built binary.
@Suite(.serialized) struct DefinitionParentChildTests {
    static let family = DefinitionFixtures.folder.appendingPathComponent("family/provider.json")

    static func server() throws -> DefinitionServer { try DefinitionServer(files: [family]) }

    static func run(_ operation: String, _ parameters: JSONObject = [:], limit: Int = 20, on server: DefinitionServer) async throws -> ProviderResult {
        try await server.run(operation, provider: "family", parameters, limit: limit, token: nil)
    }

    // MARK: Over loopback

    @Test func eachParentRecordsChildrenArePagedInTurnWithTheParentsFields() async throws {
        let result = try await Self.run("author-books", ["query": "a"], on: try Self.server())
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.items.map(\.id) == ["a1", "a2", "a3", "b1"], "ada's two pages, bob's one, cy's empty one; the record without a handle is skipped")
        #expect(result.items.map { $0.extra["author"] } == [.string("Ada Lovelace"), .string("Ada Lovelace"), .string("Ada Lovelace"), .string("Bob Kahn")])
        #expect(result.items.first?.extra["authorHandle"] == .string("ada"))
        // authors p1, ada p1, ada p2, bob, authors p2, cy.
        #expect(result.meta.requests == 6)
        #expect(result.meta.nextCursor == nil)
    }

    @Test(arguments: [(1, 2), (2, 2), (3, 3), (4, 4)])
    func theLimitBoundsTheFanOut(_ limit: Int, _ requests: Int) async throws {
        let result = try await Self.run("author-books", ["query": "a"], limit: limit, on: try Self.server())
        #expect(result.items.map(\.id) == Array(["a1", "a2", "a3", "b1"].prefix(limit)))
        #expect(result.meta.requests == requests, "no child is asked once \(limit) items are in")
        #expect(result.meta.nextCursor != nil)
    }

    @Test func theDeclaredCapBoundsTheParents() async throws {
        let result = try await Self.run("first-author-books", ["query": "a"], on: try Self.server())
        #expect(result.items.map(\.id) == ["a1", "a2", "a3"])
        #expect(result.meta.requests == 3, "one parent page, ada's two pages, and not bob's nor the parent's second page")
        #expect(result.meta.nextCursor == nil)
    }

    @Test func aParentWithoutRecordsGivesAnEmptyResult() async throws {
        let result = try await Self.run("orphan-books", on: try Self.server())
        #expect(result.error == nil)
        #expect(result.items.isEmpty)
        #expect(result.meta.requests == 1)
    }

    @Test func aFailingChildNamesTheProviderAndTheParentRecord() async throws {
        let result = try await Self.run("ghost-books", on: try Self.server())
        let error = try #require(result.error)
        #expect(error.kind == .notFound)
        #expect(error.httpStatus == 404)
        #expect(error.message == "not found (HTTP 404) (the request for handle 'ghost', from a record of 'ghosts')")
        #expect(result.meta.requests == 2)
    }

    @Test func theEmulatorServesKeyedSamplesAndA404ForAnUnknownValue() async throws {
        let server = try Self.server()
        let bob = try await Self.run("books", ["handle": "bob"], on: server)
        #expect(bob.items.map(\.id) == ["b1"])
        let nobody = try await Self.run("books", ["handle": "nobody"], on: server)
        #expect(nobody.error?.httpStatus == 404)
    }

    @Test func filteredRecordsAreLeftOutAndPagingGoesOn() async throws {
        let server = try Self.server()
        let all = try await Self.run("published", on: server)
        #expect(all.items.map(\.id) == ["s4", "s6", "s8"], "drafts, a thin book and a withdrawn one are left out")
        #expect(all.meta.requests == 3, "the first page holds only drafts, and paging goes on past it")
        let two = try await Self.run("published", limit: 2, on: server)
        #expect(two.items.map(\.id) == ["s4", "s6"])
        #expect(two.meta.requests == 2)
    }

    // MARK: Through the binary

    @Test func theBinaryShowsEveryParentAndChildRequestUnderVerbose() throws {
        let server = try Self.server()
        let base = server.server.baseURL.appendingEndpoint("/family").absoluteString
        let run = try Binary.run(["--provider-file", Self.family.path, "family", "author-books", "a", "--base-url", base, "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Notes\nEngines\nLetters\nTCP\n")
        let sent = run.stderr.split(separator: "\n").filter { $0.contains("→ GET") }.map { line in
            line.split(separator: " ").last.map { String($0.dropFirst(base.count)) } ?? ""
        }
        #expect(sent == [
            "/authors?q=a&page=1", "/authors/ada/books?per_page=2", "/authors/ada/books?per_page=2&page=2", "/authors/bob/books?per_page=2",
            "/authors?q=a&page=2", "/authors/cy/books?per_page=2",
        ])
    }

    @Test func theBinaryRunsOfflineWithTheRequestCountAndThePlan() throws {
        let offline = try Binary.run(["--provider-file", Self.family.path, "family", "author-books", "a", "--offline", "--limit", "3", "--format", "json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        let result = try JSONParser().parse(Data(offline.stdout.utf8))["results"]?[0]
        #expect(result?["items"]?.array?.compactMap { $0["id"]?.string } == ["a1", "a2", "a3"])
        #expect(result?["meta"]?["requests"] == .int(3))
        #expect(result?["items"]?[0]?["extra"]?["author"] == .string("Ada Lovelace"))

        let plan = try Binary.run(["--provider-file", Self.family.path, "sql", "SELECT title FROM family_author_books WHERE query = 'a' LIMIT 3", "--plan"])
        #expect(plan.status == 0, "\(plan.stderr)")
        // 2 pages of books for 3 items, plus the lookups: 3 author pages for the cap of 5 and one request per author.
        #expect(plan.stdout.contains("at most 2 pages, 10 requests (8 lookups"), "\(plan.stdout)")
    }

    @Test func theBinaryRunsAFilterAndGivesEmptyAndFailingParentsTheirUsualOutput() throws {
        let published = try Binary.run(["--provider-file", Self.family.path, "family", "published", "--offline"])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stdout == "Thick\nMiddle\nLast\n")

        let orphans = try Binary.run(["--provider-file", Self.family.path, "family", "orphan-books", "--offline", "--format", "json"])
        #expect(orphans.status == 0, "\(orphans.stderr)")
        #expect(try JSONParser().parse(Data(orphans.stdout.utf8))["results"]?[0]?["items"] == .array([]))

        let ghost = try Binary.run(["--provider-file", Self.family.path, "family", "ghost-books", "--offline"])
        #expect(ghost.status == 1)
        let errors = ghost.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }
        #expect(errors == ["Error: family: not found (HTTP 404) (the request for handle 'ghost', from a record of 'ghosts')"], "\(ghost.stderr)")
    }

    // MARK: GitHub's user-repos, through the binary against the sandbox

    @Test func githubUserReposSearchesUsersThenAsksForEachOnesRepositories() throws {
        let sandbox = try LoopbackSandbox()
        let environment = ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github"]
        let run = try Binary.run(["github", "user-repos", "swift", "--verbose"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let sent = run.stderr.split(separator: "\n").filter { $0.contains("→ GET") }.compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(sent == [
            sandbox.url + "/github/search/users?q=swift&per_page=30", sandbox.url + "/github/users/tidewater-dev/repos?per_page=30",
            sandbox.url + "/github/users/lamplighter/repos?per_page=30", sandbox.url + "/github/users/quietloom/repos?per_page=30",
        ])
        let titles = run.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(titles == ["tidewater-dev/harbor-swift", "tidewater-dev/moon-phase-cli", "lamplighter/gaslight", "lamplighter/wick", "quietloom/loom-swift"],
                "the fork tidewater-dev/swift-argument-parser is left out by the filter")

        let two = try Binary.run(["github", "user-repos", "swift", "--limit", "2", "--type", "owner", "--format", "json", "--verbose"], environment: environment)
        #expect(two.status == 0, "\(two.stderr)")
        let result = try JSONParser().parse(Data(two.stdout.utf8))["results"]?[0]
        #expect(result?["meta"]?["requests"] == .int(2), "the first user's repositories are enough for two items")
        #expect(result?["items"]?.array?.compactMap { $0["extra"]?["user"]?.string } == ["tidewater-dev", "tidewater-dev"])
        #expect(two.stderr.contains("/github/users/tidewater-dev/repos?type=owner&per_page=30"), "\(two.stderr)")
    }

    @Test func githubReposOfAnUnknownUserAndAFailingChildAreOneLineErrors() throws {
        let sandbox = try LoopbackSandbox()
        let unknown = try Binary.run(["github", "repos", "no-such-user"], environment: ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: github: Not Found (HTTP 404)\n")

        let failing = try LoopbackSandbox(faults: ["status=404; path=/github/users/lamplighter/"])
        let run = try Binary.run(["github", "user-repos", "swift"], environment: ["AGGREGATE_GITHUB_BASE_URL": failing.url + "/github"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.hasPrefix("Error: github: ") == true)
        #expect(lines.first?.hasSuffix("(HTTP 404) (the request for username 'lamplighter', from a record of 'users')") == true, "\(run.stderr)")
    }

    @Test func githubSQLPlansTheUserSearchAndEachUsersRequest() throws {
        let plan = try Binary.run(["sql", "SELECT title FROM github_user_repos WHERE query = 'swift' LIMIT 5", "--plan", "--offline"])
        #expect(plan.status == 0, "\(plan.stderr)")
        // One page of repositories for 5 items, plus the lookups: one user-search page (30 a page) and one request per user (at most 10).
        #expect(plan.stdout.contains("at most 1 page, 12 requests (11 lookups"), "\(plan.stdout)")
    }
}
