import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSQL
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Synchronization
import Testing

/// The engine over the offline sandbox, through the library's `ProviderRunner`: pushdown, one fetch per key
/// values, the plan, the budget, failures and the statements SQLite refuses.
@Suite struct SQLEngineTests {
    static let catalog = try! TestRegistry.builtIn()

    /// Runs `statement` offline and returns the result and every request sent (`provider: path?query`).
    func run(_ statement: String, options: SQLEngine.Options = SQLEngine.Options()) async throws(AggregateError) -> (SQLResult, [String]) {
        let requests = Mutex<[String]>([])
        let runner = ProviderRunner(
            registry: Self.catalog.registry, environment: [:], offline: SandboxTransport(catalog: Self.catalog), makeTransport: { NoNetworkTransport() },
            events: { event in
                guard case .request(_, let url, _) = event.kind else { return }
                let path = url.replacingOccurrences(of: "http://sandbox.localhost", with: "")
                requests.withLock { $0.append(path) }
            })
        let engine = SQLEngine(catalog: SQLCatalog(registry: Self.catalog.registry))
        let result = try await engine.run(statement, options: options, runner: runner, settings: ProviderRunner.Settings(offline: true))
        return (result, requests.withLock { $0 })
    }

    func expectUsage(_ statement: String, contains text: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let (_, requests) = try await run(statement)
            Issue.record("expected a usage error, sent \(requests)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == .usage, sourceLocation: sourceLocation)
            #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test func aKeyConditionBecomesTheAPIParameterAndOtherConditionsStayWithSQLite() async throws {
        let (result, requests) = try await run("SELECT title, year FROM tmdb_search WHERE query = 'leon' AND year = 1994")
        #expect(requests.count == 1)
        #expect(requests[0].contains("query=leon") && requests[0].contains("year=1994"), "\(requests)")
        #expect(result.rows.map { $0[0] } == [.text("Léon: The Professional")])
        #expect(result.rows.map { $0[1] } == [.integer(1994)], "the key column reports the value pushed down")

        let (filtered, sent) = try await run("SELECT title FROM tmdb_popular WHERE vote_average > 8.3")
        #expect(sent.count == 1)
        let all = try await run("SELECT title, vote_average FROM tmdb_popular").0
        let expected = all.rows.filter { row in if case .real(let value) = row[1] { return value > 8.3 } else { return false } }.map { $0[0] }
        #expect(!expected.isEmpty)
        #expect(filtered.rows.map { $0[0] } == expected)
    }

    @Test func requiredKeysCanBeTableValuedFunctionArguments() async throws {
        let (result, requests) = try await run("SELECT title FROM tmdb_search('batman') WHERE year = 1989")
        #expect(result.rows == [[.text("Batman")]])
        #expect(requests.count == 1 && requests[0].contains("query=batman") && requests[0].contains("year=1989"), "\(requests)")
    }

    @Test func aRequiredKeyLeftUnconstrainedFailsBeforeAnyRequest() async {
        await expectUsage("SELECT title FROM tmdb_search", contains: "tmdb_search needs query = '...'")
        await expectUsage("SELECT title FROM tmdb_search WHERE query LIKE 'bat%'", contains: "tmdb_search needs query = '...'")
        await expectUsage("SELECT * FROM meetup_groups WHERE lat = 51.5", contains: "meetup_groups needs lon = '...'")
    }

    @Test func limitIsPushedDownOnlyWhenSQLiteAppliesNothingElse() async throws {
        let five = try await run("SELECT title FROM tmdb_popular LIMIT 5")
        #expect(five.0.rows.count == 5)
        #expect(five.0.scans.map(\.result.query).count == 1)
        #expect(five.0.scans.first?.result.items.count == 5, "only five items asked for")
        let forty = try await run("SELECT title FROM tmdb_popular LIMIT 40")
        #expect(forty.1.count == 2, "40 items are two pages of 20: \(forty.1)")
        let offset = try await run("SELECT title FROM tmdb_popular LIMIT 2 OFFSET 3")
        let all = try await run("SELECT title FROM tmdb_popular").0.rows
        #expect(offset.0.rows == Array(all[3..<5]))
        #expect(offset.0.scans.first?.result.items.count == 5)
        // A condition on a visible column or an ORDER BY: SQLite needs every row before it can count.
        let filtered = try await run("SELECT title FROM tmdb_popular WHERE vote_average > 0 LIMIT 1")
        #expect(filtered.0.scans.first?.result.items.count == 20)
        let ordered = try await run("SELECT title FROM tmdb_popular ORDER BY title LIMIT 1")
        #expect(ordered.0.scans.first?.result.items.count == 20)
        #expect(ordered.0.rows == [all.map { $0[0] }.min { $0.plainText < $1.plainText }].compactMap { $0.map { [$0] } })
        let counted = try await run("SELECT count(*) FROM tmdb_popular LIMIT 1")
        #expect(counted.0.rows == [[.integer(20)]])
    }

    @Test func aJoinFetchesEachDistinctKeyOnce() async throws {
        let (result, requests) = try await run(
            "SELECT p.title, g.title FROM tmdb_popular p, github_search g WHERE g.query = p.kind LIMIT 30")
        // Twenty popular movies, each joined to the one sample repository about movies.
        #expect(result.rows.count == 20)
        // Every popular movie has kind 'movie': one distinct key, one GitHub search, however many outer rows.
        #expect(requests.filter { $0.hasPrefix("/github/") }.count == 1, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("/tmdb/") }.count == 1, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("/github/") }.allSatisfy { $0.contains("q=movie") })

        let (joined, sent) = try await run("SELECT p.title, m.subtitle FROM tmdb_popular p JOIN tmdb_movie m ON m.movie_id = p.id LIMIT 3")
        #expect(joined.rows.count == 3)
        #expect(sent.filter { $0.contains("/movie/") && !$0.contains("popular") }.count == 3, "\(sent)")
    }

    @Test func anInListScansOncePerDistinctValue() async throws {
        let (result, requests) = try await run("SELECT DISTINCT query FROM tmdb_search WHERE query IN ('batman', 'leon', 'batman')")
        #expect(requests.count == 2, "\(requests)")
        #expect(Set(result.rows.map { $0[0] }) == [.text("batman"), .text("leon")])
    }

    @Test func theTablesAreReadOnly() async {
        await expectUsage("DELETE FROM tmdb_popular", contains: "tmdb_popular may not be modified: the provider tables are read-only")
        await expectUsage("INSERT INTO messageboard_list(title) VALUES ('x')", contains: "read-only")
    }

    @Test func aSyntaxErrorSaysWhere() async {
        await expectUsage("SELEC title FROM tmdb_popular", contains: "near \"SELEC\": syntax error (at character 1)")
        await expectUsage("SELECT title FROM tmdb_popular WHERE FROM", contains: "near \"FROM\": syntax error (at character 38)")
        await expectUsage("SELECT 1; SELECT 2", contains: "give one SQL statement")
        await expectUsage("SELECT title FROM no_such_table", contains: "no such table: no_such_table")
    }

    @Test func aKeyValueOfTheWrongTypeNamesTheColumn() async {
        await expectUsage("SELECT title FROM tmdb_search('x') WHERE year = 'soon'", contains: "tmdb_search.year must be a whole number, not 'soon'")
    }

    @Test func maxRequestsStopsAStatementBeforeItSendsTooMany() async throws {
        do {
            _ = try await run("SELECT title FROM tmdb_popular LIMIT 100", options: SQLEngine.Options(maxRequests: 3))
            Issue.record("expected the budget to refuse")
        } catch {
            #expect(error.message.contains("may send up to 6 requests, more than --max-requests 3"), "\(error.message)")
        }
        // An IN list's length is known only while running: the run stops at the scan that would pass the budget.
        do {
            _ = try await run("SELECT title FROM tmdb_search WHERE query IN ('a', 'b', 'c', 'd')", options: SQLEngine.Options(maxRequests: 2))
            Issue.record("expected the budget to stop the run")
        } catch {
            #expect(error.message.contains("the statement needs more than --max-requests 2 requests: 2 sent, and tmdb_search (query = 'c') may send 1 more"), "\(error.message)")
        }
    }

    @Test func aFailingTableFailsTheStatementUnlessPartial() async throws {
        let statement = "SELECT p.title, t.title FROM tmdb_popular p LEFT JOIN twitter_timeline('nosuchuser99') t"
        do {
            _ = try await run(statement)
            Issue.record("expected the provider's error")
        } catch {
            #expect(error.provider == "twitter")
            #expect(error.kind == .notFound)
        }
        let (result, _) = try await run(statement, options: SQLEngine.Options(partial: true))
        #expect(result.rows.count == 20)
        #expect(result.failures.map(\.table) == ["twitter_timeline"])
        #expect(result.jsonValue["meta"]?["failures"]?[0]?["error"]?["kind"] == .string("notFound"))
    }

    @Test func thePlanSaysWhatTheRunThenSends() async throws {
        let engine = SQLEngine(catalog: SQLCatalog(registry: Self.catalog.registry))
        let single = try engine.plan("SELECT title FROM tmdb_search WHERE query = 'leon' AND year = 1994 LIMIT 5")
        #expect(single.scans.count == 1)
        #expect(single.scans[0].keys.map(\.column) == ["query", "year"])
        #expect(single.scans[0].keys.map(\.source) == [.constant(.text("leon")), .constant(.integer(1994))])
        #expect(single.scans[0].limit == 5 && single.scans[0].limitPushed)
        #expect(single.scans[0].pages == 1)
        let join = try engine.plan("SELECT p.title, g.title FROM tmdb_popular p, github_search g WHERE g.query = p.title LIMIT 10")
        #expect(join.scans.map(\.table.name) == ["tmdb_popular", "github_search"])
        #expect(join.scans[1].isJoined && join.scans[1].scans == 20)
        #expect(join.totalRequests == 2 + 20)
        let text = join.text(maxRequests: 100) { _ in "none" }
        #expect(text.contains("query from another table, row by row"))
        #expect(text.contains("per outer row: at most 1 page, 1 request; at most 20 outer rows: 20 requests"))
    }

    @Test func aDatabaseIsAttachedAsDB() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-sql-db-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try await run("SELECT 1", options: SQLEngine.Options(database: file.path))
            Issue.record("a missing file is refused")
        } catch {
            #expect(error.kind == .noInput)
        }
        _ = FileManager.default.createFile(atPath: file.path, contents: Data())
        _ = try await run("CREATE TABLE db.seen AS SELECT title FROM tmdb_popular LIMIT 3", options: SQLEngine.Options(database: file.path))
        let (result, requests) = try await run(
            "SELECT s.title FROM db.seen s JOIN tmdb_popular p ON p.title = s.title", options: SQLEngine.Options(database: file.path))
        #expect(result.rows.count == 3)
        #expect(requests.count == 1)
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("not a database, just text that is long enough".utf8))
        do {
            _ = try await run("SELECT 1", options: SQLEngine.Options(database: file.path))
            Issue.record("a file that is not a database is refused")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.contains("--db \(file.path):"))
        }
    }
}
