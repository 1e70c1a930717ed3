public import AggregateCore
import AggregateText
public import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Keeps fetched items in a SQLite file (`--to FILE`): one table per provider operation, named and laid out like its
/// virtual table (`tmdb_search`: the visible ``SQLTable/columns``, then `fetched_at`), one row per provider and id.
///
/// A later write of the same item updates its row (an upsert on the primary key `(provider, id)`) and its
/// `fetched_at`, so a file collects a provider's results over many runs without duplicates. A table made before a
/// provider declared a new metric gets that column added. Each call is one transaction: it all lands or none of it
/// does, and a file the call created is removed again when it fails.
///
/// ```swift
/// let store = SQLItemStore(path: "results.sqlite")
/// let written = try store.write(result.items, to: SQLTable(provider: provider, operation: operation))
/// print("wrote \(written.rows) rows to table \(written.table)")
/// ```
public struct SQLItemStore: Sendable {
    /// The items of one table to write.
    public struct Batch: Sendable {
        /// The provider operation's table.
        public var table: SQLTable
        /// The items to keep in it.
        public var items: [Item]

        /// Creates a batch of `items` for `table`.
        public init(table: SQLTable, items: [Item]) {
            self.table = table
            self.items = items
        }
    }

    /// What one table received.
    public struct Written: Sendable, Equatable {
        /// The table's name (`tmdb_search`).
        public var table: String
        /// The rows written (inserted or updated): one per distinct provider and id.
        public var rows: Int
    }

    /// The SQLite file.
    public var path: String
    /// The clock that stamps `fetched_at`.
    public var now: @Sendable () -> Date

    /// The name of the column that says when a row was last written, in ISO 8601 UTC.
    public static let fetchedAtColumn = "fetched_at"

    /// A store that writes into the SQLite file at `path`, created when missing.
    /// - Parameters:
    ///   - path: the file.
    ///   - now: the clock for `fetched_at` (tests fix it).
    public init(path: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.now = now
    }

    /// Writes `items` into `table`'s table of the file, in one transaction.
    /// - Returns: the table's name and how many rows were written.
    /// - Throws: an `ioError` when the file cannot be opened, created or written; an `invalidInput` when it is not a
    ///   SQLite database, or holds a table of that name that is not laid out for it. Nothing is written then.
    @discardableResult
    public func write(_ items: [Item], to table: SQLTable) throws(AggregateError) -> Written {
        let written = try write([Batch(table: table, items: items)])
        return written.first ?? Written(table: table.name, rows: 0)
    }

    /// Writes several tables' items (every table a statement fetched) in one transaction; batches of the same
    /// table are written together, in order.
    /// - Returns: per table, in the order first given, how many rows were written.
    /// - Throws: as ``write(_:to:)``; when any batch fails, none is written.
    @discardableResult
    public func write(_ batches: [Batch]) throws(AggregateError) -> [Written] {
        var merged: [Batch] = []
        for batch in batches {
            if let index = merged.firstIndex(where: { $0.table.name == batch.table.name }) {
                merged[index].items += batch.items
            } else {
                merged.append(batch)
            }
        }
        let created = try prepareFile()
        do {
            return try writeTables(merged, stamp: ISO8601.string(from: now()))
        } catch {
            // Only once the connection is closed (it is gone with `writeTables`' frame) may the file go.
            if created { removeCreatedFile() }
            throw error
        }
    }

    // MARK: - The file

    /// Checks that the file can be opened for writing, or creates it empty (which SQLite takes as an empty
    /// database), with errno's reason where the file system refuses.
    /// - Returns: whether this call created the file, and so must remove it on failure.
    private func prepareFile() throws(AggregateError) -> Bool {
        var status = stat()
        if stat(path, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR { throw ioError(FileSystemReason.describe(errno: EISDIR)) }
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw ioError(FileSystemReason.describe(errno: errno)) }
            close(descriptor)
            return false
        }
        guard errno == ENOENT else { throw ioError(FileSystemReason.describe(errno: errno)) }
        // O_EXCL: the file is ours only if this call made it, so a failure never removes someone else's.
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ioError(FileSystemReason.describe(errno: errno)) }
        close(descriptor)
        return true
    }

    /// Removes the file this call created, and any journal SQLite left beside it.
    private func removeCreatedFile() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// `cannot write to FILE: REASON`.
    private func ioError(_ reason: String) -> AggregateError {
        AggregateError(.ioError, "cannot write to \(path): \(reason)")
    }

    // MARK: - The tables

    /// Writes every batch in one transaction on a connection that is closed when this returns or throws.
    private func writeTables(_ batches: [Batch], stamp: String) throws(AggregateError) -> [Written] {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, create: false)
        } catch {
            throw ioError(error.message)
        }
        do {
            // Another process (`aggregate sql --db`, the sqlite3 tool) may hold the file for a moment.
            sqlite3_busy_timeout(connection.handle, 5000)
            // IMMEDIATE takes the write lock now, so a busy file fails before anything is prepared.
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw failure(error, on: connection)
        }
        do throws(AggregateError) {
            var written: [Written] = []
            for batch in batches {
                written.append(try write(batch, stamp: stamp, on: connection))
            }
            do {
                try connection.execute("COMMIT")
            } catch {
                throw failure(error, on: connection)
            }
            return written
        } catch {
            // The error is worded before the rollback, which would replace SQLite's last error.
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Makes or extends the batch's table, then upserts its items.
    private func write(_ batch: Batch, stamp: String, on connection: SQLiteConnection) throws(AggregateError) -> Written {
        let table = batch.table
        let columns = table.columns.map { (name: $0.name, declaration: $0.type.declaration) } + [(name: Self.fetchedAtColumn, declaration: "TEXT")]
        let name = SQLNames.quoted(table.name)
        do {
            if let existing = try existingColumns(of: table.name, on: connection) {
                for column in columns where !existing.contains(column.name.lowercased()) {
                    try connection.execute("ALTER TABLE \(name) ADD COLUMN \(SQLNames.quoted(column.name)) \(column.declaration)")
                }
            } else {
                let keyed: Set<String> = ["provider", "id", Self.fetchedAtColumn]
                let definitions = columns.map { "\(SQLNames.quoted($0.name)) \($0.declaration)\(keyed.contains($0.name) ? " NOT NULL" : "")" }
                try connection.execute("CREATE TABLE \(name) (\(definitions.joined(separator: ", ")), PRIMARY KEY (\"provider\", \"id\"))")
            }
            let names = columns.map { SQLNames.quoted($0.name) }
            let placeholders = (1...columns.count).map { "?\($0)" }
            let updates = names.filter { $0 != "\"provider\"" && $0 != "\"id\"" }.map { "\($0) = excluded.\($0)" }
            let upsert = try connection.statement(
                "INSERT INTO \(name) (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) "
                    + "ON CONFLICT (\"provider\", \"id\") DO UPDATE SET \(updates.joined(separator: ", "))")
            var keys = Set<[String]>()
            for item in batch.items {
                try upsert.run(table.columns.map { $0.value(of: item) } + [.text(stamp)])
                keys.insert([item.provider, item.id])
            }
            return Written(table: table.name, rows: keys.count)
        } catch let failure as SQLiteFailure {
            throw self.failure(failure, on: connection)
        } catch let error as AggregateError {
            throw error
        } catch {
            throw ioError("\(error)")
        }
    }

    /// The lower-cased column names of the table `name` in the file, or `nil` when it has none of that name.
    /// - Throws: an `invalidInput` error when `name` is something else (a view), or a table whose primary key is not
    ///   `(provider, id)`, which the upsert needs.
    private func existingColumns(of name: String, on connection: SQLiteConnection) throws -> Set<String>? {
        let kind = try connection.statement("SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE")
        try kind.bind([.text(name)])
        guard try kind.step() else { return nil }
        guard kind.value(at: 0) == .text("table") else {
            throw AggregateError(.invalidInput, "\(path): \(name) is a \(kind.value(at: 0).plainText), not a table of kept results; use another file")
        }
        let info = try connection.statement("SELECT name, pk FROM pragma_table_info(?1) ORDER BY pk")
        try info.bind([.text(name)])
        var columns = Set<String>()
        var key: [String] = []
        while try info.step() {
            let column = info.value(at: 0).plainText.lowercased()
            columns.insert(column)
            if case .integer(let position) = info.value(at: 1), position > 0 { key.append(column) }
        }
        guard key == ["provider", "id"] else {
            throw AggregateError(
                .invalidInput, "\(path): table \(name) has no primary key (provider, id), so its rows cannot be kept up to date; use another file")
        }
        return columns
    }

    /// SQLite's refusal as the store's error: a file that is not a database (or is damaged) is invalid input; any
    /// other failure is an I/O error, worded by errno when the operating system refused, else by SQLite.
    private func failure(_ failure: SQLiteFailure, on connection: SQLiteConnection) -> AggregateError {
        let code = sqlite3_extended_errcode(connection.handle) & 0xFF
        switch code {
        case SQLITE_NOTADB:
            return AggregateError(.invalidInput, "\(path) is not a SQLite database")
        case SQLITE_CORRUPT:
            return AggregateError(.invalidInput, "\(path) is a damaged SQLite database (\(failure.message))")
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_PERM, SQLITE_READONLY:
            let system = sqlite3_system_errno(connection.handle)
            return ioError(system != 0 ? FileSystemReason.describe(errno: system) : failure.message)
        default:
            return ioError(failure.message)
        }
    }
}
