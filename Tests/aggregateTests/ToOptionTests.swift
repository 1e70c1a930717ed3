import AggregateCore
import AggregateJSON
import AggregateSQL
import AggregateTestSupport
import Foundation
import Testing

/// `--to FILE` through the built binary: the items kept in a SQLite file, read back with the sqlite3 tool.
@Suite final class ToOptionTests {
    let folder: URL
    let file: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-to-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        file = folder.appendingPathComponent("results.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The rows `sqlite3 -json FILE SQL` prints (none: an empty array).
    func query(_ sql: String) throws -> [JSONValue] {
        let path = try #require(OptionalTool.sqlite3.path, "sqlite3 is required here but not installed")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-json", file, sql]
        let out = Pipe()
        let err = Pipe()
        (process.standardOutput, process.standardError, process.standardInput) = (out, err, FileHandle.nullDevice)
        let output = try Binary.collect(process.launched(), out: out, err: err, timeout: 30, arguments: ["sqlite3", sql])
        #expect(output.status == 0, "sqlite3 \(sql): \(output.stderr)")
        let text = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? [] : try #require(JSONParser().parse(text).array)
    }

    /// The columns documented for every table in docs/sql-store.md, in order.
    static func documentedColumns() throws -> [String] {
        let doc = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/sql-store.md"), encoding: .utf8)
        let rows = doc.split(separator: "\n").filter { $0.hasPrefix("| `") }
        return rows.compactMap { row in row.split(separator: "`").dropFirst().first.map(String.init) }
    }

    @Test(.requires(.sqlite3)) func popularOfflineKeepsTwentyRowsAndASecondRunUpdatesThem() throws {
        let plain = try Binary.run(["tmdb", "popular", "--offline"])
        let first = try Binary.run(["tmdb", "popular", "--offline", "--to", file])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == plain.stdout, "the output is rendered as usual")
        #expect(first.stderr.split(separator: "\n").contains("note: tmdb: wrote 20 rows to \(file) (table tmdb_popular)"), "\(first.stderr)")

        let table = try #require(SQLCatalog(registry: try TestRegistry.providers()).table(named: "tmdb_popular"))
        let schema = try query("SELECT name, type, pk FROM pragma_table_info('tmdb_popular') ORDER BY cid")
        let names = schema.compactMap { $0["name"]?.string }
        #expect(names == table.columns.map(\.name) + ["fetched_at"])
        // docs/sql-store.md lists the item's columns, then (after a row for the metrics) fetched_at.
        let documented = try Self.documentedColumns()
        #expect(names == documented.dropLast() + ["popularity", "vote_average", "vote_count", "runtime"] + documented.suffix(1))
        #expect(documented.last == "fetched_at")
        #expect(schema.filter { $0["pk"] != .int(0) }.compactMap { $0["name"]?.string } == ["provider", "id"])
        #expect(schema.first { $0["name"] == "tags" }?["type"] == "TEXT")

        let rows = try query("SELECT provider, id, title, fetched_at, vote_average, tags ->> '$[0]' AS genre FROM tmdb_popular")
        #expect(rows.count == 20)
        #expect(rows.allSatisfy { $0["provider"] == "tmdb" && $0["genre"]?.string != nil })
        let dune = try #require(rows.first { $0["title"] == "Dune" })
        guard case .number(let average)? = dune["vote_average"] else { Issue.record("vote_average is not a number: \(dune)"); return }
        #expect(Double(average) == 7.786, "the metric as a REAL: \(average)")
        let stamp = try #require(dune["fetched_at"]?.string)
        #expect(ISO8601.date(from: stamp) != nil && stamp.hasSuffix("Z"), "\(stamp)")

        Thread.sleep(forTimeInterval: 1.1)  // fetched_at has whole seconds
        let second = try Binary.run(["tmdb", "popular", "--offline", "--to", file, "--quiet"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.isEmpty, "no note with --quiet: \(second.stderr)")
        #expect(try query("SELECT count(*) AS n FROM tmdb_popular").first?["n"] == .int(20), "upserted, not appended")
        let again = try query("SELECT fetched_at FROM tmdb_popular WHERE id = '\(try #require(dune["id"]?.string))'").first?["fetched_at"]?.string
        #expect(try #require(again) > stamp, "a second run updates fetched_at")

        // Another operation gets its own table in the same file.
        let search = try Binary.run(["tmdb", "search", "batman", "--offline", "--to", file, "--limit", "3"])
        #expect(search.stderr.split(separator: "\n").contains("note: tmdb: wrote 3 rows to \(file) (table tmdb_search)"), "\(search.stderr)")
        #expect(try query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0["name"]?.string } == ["tmdb_popular", "tmdb_search"])
    }

    @Test func aFailedRunWritesNothing() throws {
        let output = try Binary.run(["tmdb", "movie", "999999999", "--offline", "--to", file])
        #expect(output.status == 1)
        #expect(!output.stderr.contains("wrote"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func toWithRawIsAUsageError() throws {
        let output = try Binary.run(["tmdb", "popular", "--offline", "--raw", "--to", file])
        #expect(output.status == 64)
        #expect(output.stderr.hasPrefix("Error: tmdb: --to keeps the items; it cannot be used with --raw, which prints the response bodies instead\nUsage: aggregate tmdb popular"))
        #expect(output.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aFileThatCannotBeWrittenEndsWithItsExitCodeAfterTheResults() throws {
        let missing = folder.appendingPathComponent("no-such-folder/results.sqlite").path
        let output = try Binary.run(["tmdb", "popular", "--offline", "--quiet", "--to", missing])
        #expect(output.status == 74)
        #expect(output.stderr == "Error: tmdb: cannot write to \(missing): no such file or folder\n")
        #expect(output.stdout.contains("Dune (2021)"), "what was fetched is still shown")

        try Data("title,url\n".utf8).write(to: URL(fileURLWithPath: file))
        let notDatabase = try Binary.run(["tmdb", "popular", "--offline", "--quiet", "--to", file, "--format", "json"])
        #expect(notDatabase.status == 65)
        #expect(notDatabase.stderr == "Error: tmdb: \(file) is not a SQLite database\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "title,url\n", "the file is left as it was")
    }

    @Test func compareRefusesToInsideAnInvocation() throws {
        let output = try Binary.run(["compare", "tmdb popular --to \(file)", "kiva", "--offline"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("--help, --raw, --fields and --to cannot be used inside a compare invocation"), "\(output.stderr)")
    }

    @Test func helpListsIt() throws {
        let help = try Binary.run(["tmdb", "--help"])
        #expect(help.stdout.contains("--to <FILE>") || help.stdout.contains("--to FILE"), "\(help.stdout)")
        #expect(help.stdout.contains("Also keep the items in the SQLite database FILE"))
    }

    // MARK: - Completion: a file name after --to

    @Test(.requires(.bash)) func bashCompletesAFileAfterTo() throws {
        let script = try CompletionsTests.script("bash")
        let files = try CompletionsTests.definitions()
        defer { try? FileManager.default.removeItem(at: script); try? FileManager.default.removeItem(at: files) }
        #expect(try CompletionsTests.candidates(script, ["aggregate", "tmdb", "popular", "--to", files.path + "/b"]).sorted()
            == [files.path + "/board.json", files.path + "/bookshelf.json"])
        #expect(try CompletionsTests.candidates(script, ["aggregate", "tmdb", "popular", "--t"]).contains("--to"))
    }

    @Test(.requires(.zsh)) func zshCompletesAFileAfterTo() throws {
        let script = try CompletionsTests.script("zsh")
        let files = try CompletionsTests.definitions()
        defer { try? FileManager.default.removeItem(at: script); try? FileManager.default.removeItem(at: files) }
        #expect(try CompletionsTests.zshCandidates(script, "aggregate tmdb popular --to \(files.path)/bo").map(\.word).sorted() == ["board.json", "bookshelf.json"])
    }

    @Test(.requires(.fish)) func fishCompletesAFileAfterTo() throws {
        let script = try CompletionsTests.script("fish")
        let files = try CompletionsTests.definitions()
        defer { try? FileManager.default.removeItem(at: script); try? FileManager.default.removeItem(at: files) }
        let output = try CompletionsTests.shell(.fish, ["--no-config", "-c", "source '\(script.path)'; complete -C 'aggregate tmdb popular --to \(files.path)/b'"])
        #expect(output.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == ["\(files.path)/board.json", "\(files.path)/bookshelf.json"])
    }
}

private extension Process {
    /// The process, started.
    func launched() throws -> Process {
        try run()
        return self
    }
}
