import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate sql` through the built binary: pushdown seen in the trace against the sandbox on loopback, the plan
/// against what the run then sends, results against jq over the providers' own JSON, and the exit codes.
@Suite(.serialized) final class SQLCommandTests {
    static let catalog = try! TestRegistry.builtIn()
    let sandbox: LoopbackSandbox
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-sql-cli-\(UUID().uuidString)")

    init() throws { sandbox = try LoopbackSandbox() }

    deinit { try? FileManager.default.removeItem(at: home) }

    /// Every provider pointed at the loopback sandbox with its demo credentials; this test's own cache and limiter.
    var environment: [String: String] {
        var environment = ["XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path]
        for provider in Self.catalog.registry.providers {
            let name = provider.descriptor.name
            environment["AGGREGATE_\(name.uppercased())_BASE_URL"] = "\(sandbox.url)/\(name)"
            environment.merge(Self.catalog.sandbox(named: name)?.sandboxEnvironment ?? [:]) { current, _ in current }
        }
        return environment
    }

    /// Runs `aggregate sql <statement> <options>` live against the sandbox; returns the output and the requests it saw.
    func sql(_ statement: String, _ options: [String] = []) throws -> (output: Binary.Output, requests: Int) {
        let before = sandbox.server.requestCount
        let output = try Binary.run(["sql", statement] + options, environment: environment)
        return (output, sandbox.server.requestCount - before)
    }

    /// The `→ GET` lines of a `--verbose` trace, for one provider.
    func requestLines(_ output: Binary.Output, provider: String) -> [String] {
        output.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("\(provider): → GET ") }
    }

    @Test func aKeyConditionIsSentAsTheAPIParameter() throws {
        let run = try sql("SELECT title FROM tmdb_search('leon') WHERE year = 1994", ["--verbose"])
        #expect(run.output.status == 0, "\(run.output.stderr)")
        let searches = requestLines(run.output, provider: "tmdb").filter { $0.contains("/search/movie") }
        #expect(searches.count == 1)
        #expect(searches.first?.contains("query=leon") == true && searches.first?.contains("year=1994") == true, "\(searches)")
        #expect(run.output.stdout.contains("Léon: The Professional"))
    }

    @Test func limitFiveFetchesOnePage() throws {
        let five = try sql("SELECT title FROM tmdb_popular LIMIT 5", ["--verbose"])
        #expect(five.output.status == 0, "\(five.output.stderr)")
        #expect(requestLines(five.output, provider: "tmdb").filter { $0.contains("/movie/popular") }.count == 1)
        #expect(five.output.stdout.split(separator: "\n").count == 6, "a header and five rows")
        let forty = try sql("SELECT title FROM tmdb_popular LIMIT 40", ["--verbose", "--no-cache"])
        #expect(requestLines(forty.output, provider: "tmdb").filter { $0.contains("/movie/popular") }.count == 2)
    }

    @Test func aJoinFetchesEachDistinctKeyOnce() throws {
        let run = try sql(
            "WITH wanted(q) AS (VALUES ('swift'), ('rust'), ('swift'), ('rust'), ('swift')) SELECT w.q, g.title FROM wanted w, github_search g WHERE g.query = w.q",
            ["--verbose", "--format", "json"])
        #expect(run.output.status == 0, "\(run.output.stderr)")
        let searches = requestLines(run.output, provider: "github")
        #expect(searches.count == 2, "\(searches)")
        #expect(searches.contains { $0.contains("q=swift") } && searches.contains { $0.contains("q=rust") })
        #expect(run.requests == 2)
        let json = try JSONParser().parse(run.output.stdout)
        #expect(json["meta"]?["providers"]?[0]?["requests"] == .int(2))
    }

    @Test func thePlanSendsNothingAndItsCountsAreWhatTheRunSends() throws {
        for statement in [
            "SELECT title FROM tmdb_search WHERE query = 'leon' AND year = 1994 LIMIT 5",
            "SELECT title FROM tmdb_popular LIMIT 40",
            "SELECT title, stars FROM github_search('swift') LIMIT 45",
            "SELECT s.title, m.subtitle FROM tmdb_movie m, tmdb_search s WHERE s.query = 'batman' AND m.movie_id = s.id",
        ] {
            let plan = try sql(statement, ["--plan", "--format", "json"])
            #expect(plan.output.status == 0, "\(plan.output.stderr)")
            #expect(plan.requests == 0, "--plan sends nothing: \(statement)")
            let planned = try #require(try JSONParser().parse(plan.output.stdout)["totalRequests"]?.int, "\(plan.output.stdout)")
            let run = try sql(statement, ["--no-cache"])
            #expect(run.output.status == 0, "\(run.output.stderr)")
            #expect(run.requests <= planned, "\(statement): planned \(planned), sent \(run.requests)")
            if !statement.contains("m.movie_id") {
                #expect(run.requests == planned, "\(statement): planned \(planned), sent \(run.requests)")
            }
        }
        let text = try sql("SELECT title FROM tmdb_search WHERE query = 'leon' AND year = 1994 LIMIT 5", ["--plan"])
        #expect(text.output.stdout == """
            tmdb_search (tmdb search)
              keys pushed down: query = 'leon', year = 1994
              reads at most 5 items per key values (LIMIT pushed down)
              at most 1 page, 2 requests (1 lookup once per statement)
              rate budget: api: 40 requests a second
            total: at most 2 requests (--max-requests 100)

            """)
    }

    /// jq over `aggregate <provider> --format json`: the same rows as SQL computes.
    func jq(_ filter: String, inputs: [String: [String]]) throws -> JSONValue {
        var arguments = ["-c", "-n"]
        for (name, command) in inputs.sorted(by: { $0.key < $1.key }) {
            let output = try Binary.run(command + ["--offline", "--format", "json", "--quiet"], environment: environment)
            #expect(output.status == 0, "\(output.stderr)")
            let file = home.appendingPathComponent("\(name).json")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try Data(output.stdout.utf8).write(to: file)
            arguments += ["--slurpfile", name, file.path]
        }
        return try JSONParser().parse(CompletionsTests.shell(.jq, arguments + [filter]))
    }

    func rows(_ statement: String) throws -> JSONValue {
        let output = try Binary.run(["sql", statement, "--offline", "--quiet", "--format", "json"], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        return try #require(try JSONParser().parse(output.stdout)["rows"])
    }

    @Test(.requires(.jq))
    func aFilterAndAJoinEqualWhatJqComputesFromTheProvidersJSON() throws {
        let filtered = try rows("SELECT title, vote_average FROM tmdb_popular WHERE vote_average > 8 ORDER BY vote_average DESC, title")
        let expected = try jq(
            "[$p[0].results[0].items[] | select(.metrics.voteAverage > 8) | [.title, .metrics.voteAverage]] | sort_by([-.[1], .[0]])",
            inputs: ["p": ["tmdb", "popular"]])
        #expect(filtered == expected)
        #expect((filtered.array?.count ?? 0) > 2)

        let joined = try rows(
            "SELECT t.title, g.title, g.stars FROM tmdb_popular t, github_search('swift') g WHERE t.vote_average > 8.3 AND g.stars > 10000 ORDER BY t.title, g.stars DESC")
        let product = try jq(
            "[$t[0].results[0].items[] | select(.metrics.voteAverage > 8.3) as $m | $g[0].results[0].items[] | select(.metrics.stars > 10000) | [$m.title, .title, .metrics.stars]] | sort_by([.[0], -.[2]])",
            inputs: ["t": ["tmdb", "popular"], "g": ["github", "search", "swift"]])
        #expect(joined == product)
        #expect((joined.array?.count ?? 0) >= 4)
    }

    @Test func everyFailureIsOneLineAndItsExitCode() throws {
        let syntax = try sql("SELEC title FROM tmdb_popular")
        #expect(syntax.output.status == 64)
        #expect(syntax.output.stderr.hasPrefix("Error: sql: near \"SELEC\": syntax error (at character 1)\n"), "\(syntax.output.stderr)")
        #expect(syntax.output.stdout.isEmpty)

        let missing = try sql("SELECT title FROM github_search WHERE stars > 5")
        #expect(missing.output.status == 64)
        #expect(missing.output.stderr.hasPrefix("Error: sql: github_search needs query = '...'"), "\(missing.output.stderr)")
        #expect(missing.requests == 0)

        let failing = "SELECT p.title, t.title FROM tmdb_popular p LEFT JOIN twitter_timeline('nosuchuser99') t"
        let failed = try sql(failing)
        #expect(failed.output.status == 1, "\(failed.output.stderr)")
        #expect(failed.output.stdout.isEmpty, "no partial rows")
        #expect(failed.output.stderr.hasPrefix("Error: twitter: "), "\(failed.output.stderr)")

        let partial = try sql(failing, ["--partial", "--format", "json"])
        #expect(partial.output.status == 3, "\(partial.output.stderr)")
        let json = try JSONParser().parse(partial.output.stdout)
        #expect(json["rows"]?.array?.count == 20)
        #expect(json["meta"]?["failures"]?[0]?["table"] == .string("twitter_timeline"))
        #expect(partial.output.stderr.contains("warning: twitter_timeline: twitter: "))

        let over = try sql("SELECT title FROM tmdb_popular LIMIT 200", ["--max-requests", "5"])
        #expect(over.output.status == 64)
        #expect(over.output.stderr.contains("may send up to 11 requests, more than --max-requests 5"), "\(over.output.stderr)")
        #expect(over.requests == 0)

        let write = try sql("UPDATE tmdb_popular SET title = 'x'")
        #expect(write.output.status == 64)
        #expect(write.output.stderr.contains("read-only"))

        let noDB = try sql("SELECT 1", ["--db", home.appendingPathComponent("none.sqlite").path])
        #expect(noDB.output.status == 66)
    }

    @Test func everyFormat() throws {
        let statement = "SELECT title, vote_average, tags FROM tmdb_popular LIMIT 2"
        let ndjson = try Binary.run(["sql", statement, "--offline", "-q", "--format", "ndjson"], environment: environment)
        let lines = ndjson.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try JSONParser().parse(Data(lines[0].utf8))
        #expect(first["title"]?.string != nil && first["vote_average"]?.double != nil && first["tags"]?.string?.hasPrefix("[") == true)
        let csv = try Binary.run(["sql", statement, "--offline", "-q", "--format", "csv"], environment: environment)
        #expect(csv.stdout.hasPrefix("title,vote_average,tags\r\n"))
        #expect(csv.stdout.components(separatedBy: "\r\n").count == 4)
        let markdown = try Binary.run(["sql", statement, "--offline", "-q", "--format", "markdown"], environment: environment)
        #expect(markdown.stdout.hasPrefix("| title | vote_average | tags |\n| --- | --- | --- |\n"))
        let text = try Binary.run(["sql", "SELECT title FROM tmdb_popular WHERE title = 'none'", "--offline", "-q"], environment: environment)
        #expect(text.stdout == "(no rows)\n")
        let json = try Binary.run(["sql", statement, "--offline", "-q", "--format", "json"], environment: environment)
        let value = try JSONParser().parse(json.stdout)
        #expect(value["schemaVersion"] == .int(1))
        #expect(value["columns"] == ["title", "vote_average", "tags"])
        #expect(value["meta"]?["providers"]?[0]?["sources"] == ["offline"])
    }

    @Test(.requires(.sqlite3)) func toKeepsWhatEveryTableReadAndDBReadsItBack() throws {
        let file = home.appendingPathComponent("kept.sqlite")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let run = try Binary.run(
            ["sql", "SELECT p.title, g.title FROM tmdb_popular p, github_search g WHERE g.query = p.kind LIMIT 3", "--offline", "--to", file.path],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        // GitHub's emulator finds one repository for 'movie' (the kind every popular movie has).
        #expect(run.stderr.contains("note: sql: wrote to \(file.path): tmdb_popular 20 rows, github_search 1 row"), "\(run.stderr)")
        let output = try CompletionsTests.shell(
            .sqlite3, [file.path, "SELECT count(*), typeof(vote_count), typeof(vote_average) FROM tmdb_popular; SELECT count(*) FROM github_search"])
        #expect(output == "20|integer|real\n1\n")
        let back = try Binary.run(
            ["sql", "SELECT count(*) FROM db.tmdb_popular k JOIN tmdb_popular p ON p.id = k.id", "--offline", "-q", "--db", file.path, "--format", "csv"],
            environment: environment)
        #expect(back.stdout == "count(*)\r\n20\r\n", "\(back.stderr)")
    }

    @Test func tablesAndDescribe() throws {
        let tables = try Binary.run(["sql", "--tables"], environment: environment)
        #expect(tables.status == 0)
        for name in SQLCommandTests.catalog.registry.providers.map(\.descriptor.name) { #expect(tables.stdout.contains("\(name)_")) }
        let describe = try Binary.run(["sql", "--describe", "tmdb_search"], environment: environment)
        #expect(describe.stdout.contains("query            text; required."))
        #expect(describe.stdout.contains("aggregate sql 'SELECT title, url FROM tmdb_search('\\''the amazing spider-man'\\'') LIMIT 5' --offline"))
        // Every table's example runs offline and finds rows.
        for table in SQLCommandTests.catalog.registry.providers.flatMap({ provider in
            provider.descriptor.operations.filter { !$0.writes }.map { "\(provider.descriptor.name)_\($0.name.replacingOccurrences(of: "-", with: "_"))" }
        }) {
            let json = try Binary.run(["sql", "--describe", table, "--format", "json"], environment: environment)
            let example = try #require(try JSONParser().parse(json.stdout)["example"]?.string)
            let run = try Binary.run(["sql", example, "--offline", "-q", "--format", "json"], environment: environment)
            #expect(run.status == 0, "\(example): \(run.stderr)")
            #expect(try JSONParser().parse(run.stdout)["rows"]?.array?.isEmpty == false, "\(example)")
        }
        let typo = try Binary.run(["sql", "--describe", "tmdb_serch"], environment: environment)
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("no table 'tmdb_serch'; did you mean 'tmdb_search'?"), "\(typo.stderr)")
    }
}
