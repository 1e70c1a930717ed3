import AggregateCore
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import MeetupProvider
import Testing
import aggregate

/// The TMDb provider through the CLI, the real URLSession transport and the shared fetch layer, against the sandbox
/// server on a loopback port.
@Suite(.serialized) struct TMDbLoopbackTests {
    static let sandboxEnvironment = (try? SandboxCatalog(allProviders, sandboxes: allSandboxes).sandbox(named: "tmdb")?.sandboxEnvironment) ?? [:]
    var key: String { Self.sandboxEnvironment["TMDB_API_KEY"] ?? "" }
    var token: String { Self.sandboxEnvironment["TMDB_ACCESS_TOKEN"] ?? "" }

    func harness(_ sandbox: LoopbackSandbox, _ credentials: [String: String]? = nil) -> CLIHarness {
        var environment = credentials ?? ["TMDB_API_KEY": key]
        environment["AGGREGATE_TMDB_BASE_URL"] = sandbox.url + "/tmdb"
        return CLIHarness(environment: environment)
    }

    func result(_ output: CLIHarness.Output) throws -> JSONValue {
        try #require(try JSONParser().parse(output.stdout)["results"]?[0])
    }

    /// The sandbox's popular list, as the offline run gives it (the same routes in-process).
    func popularIDs(limit: Int) async throws -> [String] {
        let output = await CLIHarness().run(["tmdb", "popular", "--offline", "--limit", String(limit), "--format", "json"])
        return try result(output)["items"]?.array?.compactMap { $0["id"]?.string } ?? []
    }

    @Test func allThreeCommandsWorkWithAKeyAndWithAToken() async throws {
        let sandbox = try LoopbackSandbox()
        for credentials in [["TMDB_API_KEY": key], ["TMDB_ACCESS_TOKEN": token]] {
            let search = await harness(sandbox, credentials).run(["tmdb", "search", "the amazing spider-man", "--year", "2012"])
            #expect(search.code == .success, "stderr: \(search.stderr)")
            #expect(search.stdout.hasPrefix("The Amazing Spider-Man (2012)  ★ 6.6  Action, Adventure, Fantasy — "))
            let popular = await harness(sandbox, credentials).run(["tmdb", "popular", "--limit", "3"])
            #expect(popular.code == .success)
            #expect(popular.stdout.split(separator: "\n").count == 3)
            let movie = await harness(sandbox, credentials).run(["tmdb", "movie", "1930"])
            #expect(movie.code == .success)
            #expect(movie.stdout.contains("\nDirector  Marc Webb\n"))
            #expect(movie.stdout.contains("\n  Andrew Garfield as Peter Parker\n"))
        }
    }

    @Test func remainingPagesAreFetchedConcurrentlyInOrderAndExactlyAsNeeded() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["tmdb", "popular", "--limit", "45", "--format", "json"])
        #expect(output.code == .success)
        let result = try result(output)
        let ids = result["items"]?.array?.compactMap { $0["id"]?.string } ?? []
        #expect(ids == (try await popularIDs(limit: 45)))
        #expect(result["meta"]?["pages"] == 3)
        #expect(result["meta"]?["requests"] == 4, "/configuration once, then pages 1, 2 and 3")
        #expect(sandbox.server.requestCount == 4)
    }

    @Test(arguments: [(20, 1), (21, 2), (40, 2), (41, 3), (1000, 3)])
    func onlyThePagesTheLimitNeeds(limit: Int, pages: Int) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["tmdb", "popular", "--limit", String(limit), "--format", "json"])
        #expect(output.code == .success)
        #expect(sandbox.server.requestCount == 1 + pages)
        #expect(try result(output)["meta"]?["pages"] == .int(pages))
    }

    @Test func moviesRepeatedByAShiftingListAreDropped() async throws {
        let sandbox = try LoopbackSandbox(settings: ["tmdb.popular-drift": "3"])
        let output = await harness(sandbox).run(["tmdb", "popular", "--limit", "40", "--format", "json"])
        #expect(output.code == .success)
        let ids = try result(output)["items"]?.array?.compactMap { $0["id"]?.string } ?? []
        #expect(ids.count == 40, "page 2 repeated the last 3 of page 1, so page 3 fills the gap")
        #expect(Set(ids).count == 40)
        #expect(ids == (try await popularIDs(limit: 40)), "page order kept")
        #expect(sandbox.server.requestCount == 4, "/configuration, pages 1 and 2, then page 3 for the 3 dropped")
    }

    @Test func aWrongKeyGetsTMDbsMessageInOneLine() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox, ["TMDB_API_KEY": "0000aaaa0000aaaa0000aaaa0000aaaa"]).run(["tmdb", "popular"])
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: tmdb: Invalid API key: You must be granted a valid key. (HTTP 401, TMDb code 7). Check TMDB_API_KEY.\n")
        #expect(sandbox.server.requestCount == 1, "the first request (/configuration) is refused; auth errors are not retried")
    }

    @Test func aV3KeyGivenAsTheTokenIsExplained() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox, ["TMDB_ACCESS_TOKEN": key]).run(["tmdb", "popular"])
        #expect(output.code == .failure)
        #expect(output.stderr.contains("(HTTP 401, TMDb code 7). TMDB_ACCESS_TOKEN holds 32 hex digits, which looks like a v3 API key"))
        #expect(!output.stderr.contains(key))
    }

    @Test func anUnknownMovieExits1WithOneLine() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["tmdb", "movie", "424242"])
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: tmdb: no movie with id 424242 (HTTP 404, TMDb code 34)\n")
    }

    @Test func aRateLimitHonoursRetryAfter() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; retry-after=1; times=1; path=/tmdb/movie/popular"])
        let output = await harness(sandbox).run(["tmdb", "popular", "--limit", "3", "--verbose"])
        #expect(output.code == .success, "stderr: \(output.stderr)")
        #expect(output.stdout.split(separator: "\n").count == 3)
        #expect(output.stderr.contains("tmdb: retrying in 1.0 s after HTTP 429 (retry 1 of 3)"))
        #expect(sandbox.server.requestCount == 3, "/configuration, the refused page, the page again")
    }

    @Test func aRateLimitThatOutlastsTheRetriesIsReportedWithTMDbsMessage() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; retry-after=0; path=/tmdb/movie/popular"])
        let output = await harness(sandbox).run(["tmdb", "popular"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: tmdb: Your request count (#) is over the allowed limit of (40). (HTTP 429, TMDb code 25). Retries ran out: wait a few seconds and try again.\n")
    }

    @Test func theAPIKeyMarkerIsNeverPrinted() throws {
        let sandbox = try LoopbackSandbox()
        let marker = "MARKER-\(UUID().uuidString)"
        let dataHome = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-tmdb-marker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataHome) }
        for variable in ["TMDB_API_KEY", "TMDB_ACCESS_TOKEN"] {
            let environment = [variable: marker, "AGGREGATE_TMDB_BASE_URL": sandbox.url + "/tmdb", "XDG_DATA_HOME": dataHome.path]
            for extra in [["--verbose"], ["--format", "json", "--verbose"], ["--raw"], ["--format", "ndjson"]] {
                let output = try Binary.run(["tmdb", "search", "spider"] + extra, environment: environment)
                #expect(output.status == 1)
                #expect(!output.stdout.contains(marker) && !output.stderr.contains(marker))
                #expect(output.stderr.contains("HTTP 401, TMDb code 7"))
                if extra == ["--verbose"] {
                    #expect(output.stderr.contains(variable == "TMDB_API_KEY" ? "api_key=***" : "/configuration"))
                }
            }
        }
        let written = FileManager.default.enumerator(atPath: dataHome.path)?.allObjects as? [String] ?? []
        for file in written {
            let contents = (try? String(contentsOfFile: dataHome.appendingPathComponent(file).path, encoding: .utf8)) ?? ""
            #expect(!contents.contains(marker), "\(file) must not hold the key")
        }
    }

    @Test func theImageBaseComesFromTheSandboxsConfiguration() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["tmdb", "search", "amelie", "--format", "json"])
        let item = try #require(try result(output)["items"]?[0])
        #expect(item["imageUrl"]?.string?.hasPrefix("https://image.tmdb.org/t/p/w500/") == true)
        #expect(item["subtitle"] == "Le Fabuleux Destin d'Amélie Poulain")
    }
}
