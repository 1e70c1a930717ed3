import AggregateCore
@testable import AggregateSQL
import AggregateTestSupport
import Foundation
import Testing

/// `SQLItemStore`: results kept in a SQLite file, one row per provider and id, in one transaction per write.
@Suite final class SQLItemStoreTests {
    let folder: URL
    let file: String
    let catalog: SQLCatalog

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        file = folder.appendingPathComponent("results.sqlite").path
        catalog = SQLCatalog(registry: try TestRegistry.providers())
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func table(_ name: String) throws -> SQLTable { try #require(catalog.table(named: name)) }

    func movie(_ id: String, title: String, votes: Decimal = 10) -> Item {
        Item(
            provider: "tmdb", kind: "movie", id: id, title: title, url: "https://www.themoviedb.org/movie/\(id)",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), metrics: ["voteAverage": 7.5, "voteCount": votes], tags: ["Drama"])
    }

    /// A store whose clock says `seconds` after the epoch.
    func store(at seconds: TimeInterval) -> SQLItemStore {
        SQLItemStore(path: file, now: { Date(timeIntervalSince1970: seconds) })
    }

    /// The rows of `sql` on the file, every value as text (NULL as nil).
    func rows(_ sql: String) throws -> [[String?]] {
        let connection = try SQLiteConnection(path: file, create: false)
        let statement = try connection.statement(sql)
        var rows: [[String?]] = []
        let count = Int32(statement.columnNames.count)
        while try statement.step() {
            rows.append((0..<count).map { index in
                let value = statement.value(at: index)
                return value == .null ? nil : value.plainText
            })
        }
        return rows
    }

    func columns(of table: String) throws -> [String] {
        try rows("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").compactMap { $0[0] }
    }

    // MARK: - Writing

    @Test func theTableHasTheVirtualTablesColumnsThenFetchedAt() throws {
        let table = try table("tmdb_popular")
        let written = try store(at: 1_700_000_000).write([movie("1", title: "One"), movie("2", title: "Two")], to: table)
        #expect(written == SQLItemStore.Written(table: "tmdb_popular", rows: 2))
        #expect(try columns(of: "tmdb_popular") == table.columns.map(\.name) + ["fetched_at"])
        let types = try rows("SELECT type FROM pragma_table_info('tmdb_popular') ORDER BY cid").compactMap { $0[0] }
        #expect(types == table.columns.map(\.type.declaration) + ["TEXT"], "JSON columns are TEXT")
        let key = try rows("SELECT name FROM pragma_table_info('tmdb_popular') WHERE pk > 0 ORDER BY pk").compactMap { $0[0] }
        #expect(key == ["provider", "id"])
        let row = try rows("SELECT provider, id, title, created_at, tags, vote_count, vote_average, fetched_at FROM tmdb_popular WHERE id = '1'")
        #expect(row == [["tmdb", "1", "One", "2023-11-14T22:13:20Z", #"["Drama"]"#, "10", "7.5", "2023-11-14T22:13:20Z"]])
    }

    @Test func aSecondWriteUpdatesTheRowsAndTheirFetchedAt() throws {
        let table = try table("tmdb_popular")
        try store(at: 1_700_000_000).write([movie("1", title: "One"), movie("2", title: "Two")], to: table)
        let written = try store(at: 1_700_003_600).write([movie("2", title: "Two, renamed", votes: 99), movie("3", title: "Three"), movie("3", title: "Three")], to: table)
        #expect(written.rows == 2, "one row per provider and id, however often an item comes")
        #expect(try rows("SELECT id, title, vote_count, fetched_at FROM tmdb_popular ORDER BY id") == [
            ["1", "One", "10", "2023-11-14T22:13:20Z"],
            ["2", "Two, renamed", "99", "2023-11-14T23:13:20Z"],
            ["3", "Three", "10", "2023-11-14T23:13:20Z"],
        ])
    }

    @Test func theSameIdOfAnotherProviderIsAnotherRow() throws {
        let table = try table("tmdb_popular")
        var other = movie("1", title: "Elsewhere")
        other.provider = "mirror"
        try store(at: 0).write([movie("1", title: "One"), other], to: table)
        #expect(try rows("SELECT provider, title FROM tmdb_popular ORDER BY provider") == [["mirror", "Elsewhere"], ["tmdb", "One"]])
    }

    @Test func aMetricDeclaredLaterBecomesANewColumn() throws {
        var before = try table("tmdb_popular")
        let runtime = try #require(before.columns.last)
        #expect(runtime.name == "runtime")
        before.columns.removeLast()
        try store(at: 0).write([movie("1", title: "One")], to: before)
        #expect(try !columns(of: "tmdb_popular").contains("runtime"))

        var item = movie("2", title: "Two")
        item.metrics["runtime"] = 126
        try store(at: 60).write([item], to: try table("tmdb_popular"))
        #expect(try columns(of: "tmdb_popular").last == "runtime", "added after fetched_at, as ALTER TABLE adds")
        #expect(try rows("SELECT id, runtime FROM tmdb_popular ORDER BY id") == [["1", nil], ["2", "126"]])
    }

    @Test func severalBatchesGoInOneCallTablesOfTheSameNameTogether() throws {
        let search = try table("tmdb_search")
        let popular = try table("tmdb_popular")
        let written = try store(at: 0).write([
            SQLItemStore.Batch(table: search, items: [movie("1", title: "One")]),
            SQLItemStore.Batch(table: popular, items: [movie("2", title: "Two")]),
            SQLItemStore.Batch(table: search, items: [movie("1", title: "One again"), movie("3", title: "Three")]),
        ])
        #expect(written == [SQLItemStore.Written(table: "tmdb_search", rows: 2), SQLItemStore.Written(table: "tmdb_popular", rows: 1)])
        #expect(try rows("SELECT id, title FROM tmdb_search ORDER BY id") == [["1", "One again"], ["3", "Three"]])
        #expect(try rows("SELECT count(*) FROM tmdb_popular") == [["1"]])
    }

    @Test func noItemsStillMakesTheTable() throws {
        #expect(try store(at: 0).write([], to: try table("kiva_newest")).rows == 0)
        #expect(try rows("SELECT count(*) FROM kiva_newest") == [["0"]])
    }

    // MARK: - Failures

    /// A table whose layout SQLite refuses (a column twice), to make a write fail after others succeeded.
    func broken() throws -> SQLTable {
        var table = try table("tmdb_movie")
        table.columns.append(SQLColumn(name: "title", type: .text, source: .title))
        return table
    }

    @Test func aFailedWriteLeavesNoNewFileBehind() throws {
        let batches = [
            SQLItemStore.Batch(table: try table("tmdb_popular"), items: [movie("1", title: "One")]),
            SQLItemStore.Batch(table: try broken(), items: [movie("2", title: "Two")]),
        ]
        let error = try #require(throws: AggregateError.self) { try store(at: 0).write(batches) }
        #expect(error.kind == .ioError)
        #expect(error.message == "cannot write to \(file): duplicate column name: title")
        #expect(ExitCode(for: error) == .ioError)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no file, no journal")
    }

    @Test func aFailedWriteLeavesAnExistingFileAsItWas() throws {
        try store(at: 0).write([movie("1", title: "One")], to: try table("tmdb_popular"))
        let batches = [
            SQLItemStore.Batch(table: try table("tmdb_popular"), items: [movie("1", title: "Changed"), movie("2", title: "Two")]),
            SQLItemStore.Batch(table: try table("tmdb_search"), items: [movie("3", title: "Three")]),
            SQLItemStore.Batch(table: try broken(), items: [movie("4", title: "Four")]),
        ]
        #expect(throws: AggregateError.self) { try store(at: 60).write(batches) }
        #expect(try rows("SELECT id, title, fetched_at FROM tmdb_popular") == [["1", "One", "1970-01-01T00:00:00Z"]])
        #expect(try rows("SELECT name FROM sqlite_master WHERE type = 'table'") == [["tmdb_popular"]], "no table of the failed call")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["results.sqlite"])
    }

    @Test func aFileThatIsNotADatabaseIsInvalidInputAndIsLeftAlone() throws {
        let text = "title,url\nOne,https://example.com/1\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let error = try #require(throws: AggregateError.self) { try store(at: 0).write([movie("1", title: "One")], to: try table("tmdb_popular")) }
        #expect(error == AggregateError(.invalidInput, "\(file) is not a SQLite database"))
        #expect(ExitCode(for: error) == .dataError)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
    }

    @Test func aTableOfThatNameLaidOutOtherwiseIsInvalidInput() throws {
        let connection = try SQLiteConnection(path: file)
        try connection.execute("CREATE TABLE tmdb_popular (id TEXT PRIMARY KEY, title TEXT); CREATE VIEW tmdb_search AS SELECT 1")
        let popular = try #require(throws: AggregateError.self) { try store(at: 0).write([movie("1", title: "One")], to: try table("tmdb_popular")) }
        #expect(popular.kind == .invalidInput)
        #expect(popular.message == "\(file): table tmdb_popular has no primary key (provider, id), so its rows cannot be kept up to date; use another file")
        let search = try #require(throws: AggregateError.self) { try store(at: 0).write([movie("1", title: "One")], to: try table("tmdb_search")) }
        #expect(search == AggregateError(.invalidInput, "\(file): tmdb_search is a view, not a table of kept results; use another file"))
        #expect(try columns(of: "tmdb_popular") == ["id", "title"], "nothing was added")
    }

    @Test func aPathThatCannotBeOpenedIsAnIOErrorWithTheReason() throws {
        let missing = folder.appendingPathComponent("no-such-folder/results.sqlite").path
        let error = try #require(throws: AggregateError.self) { try SQLItemStore(path: missing).write([], to: try table("tmdb_popular")) }
        #expect(error == AggregateError(.ioError, "cannot write to \(missing): no such file or folder"))
        #expect(ExitCode(for: error) == .ioError)
        let folderError = try #require(throws: AggregateError.self) { try SQLItemStore(path: folder.path).write([], to: try table("tmdb_popular")) }
        #expect(folderError == AggregateError(.ioError, "cannot write to \(folder.path): it is a folder, not a file"))
    }
}
