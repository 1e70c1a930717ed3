import AggregateCore
import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// What SQLite said when it refused: its message, and where in the statement (a byte offset), when it knows.
struct SQLiteFailure: Error, Sendable {
    var message: String
    var offset: Int?
}

/// `SQLITE_TRANSIENT`, which Swift does not import: SQLite copies the bytes before the call returns.
let sqliteTransient = unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)

/// One connection to SQLite, closed when released.
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (or, with `create`, creates) the database at `path`; `":memory:"` is a private in-memory one.
    init(path: String, create: Bool = true) throws(SQLiteFailure) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteFailure(message: message, offset: nil)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The last error's message.
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// The last failure, with its offset in the statement when SQLite gives one.
    var lastFailure: SQLiteFailure {
        let offset = sqlite3_error_offset(handle)
        return SQLiteFailure(message: lastMessage, offset: offset >= 0 ? Int(offset) : nil)
    }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(SQLiteFailure) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastFailure }
    }

    /// Prepares the first statement of `sql`, and says what text follows it.
    func prepare(_ sql: String) throws(SQLiteFailure) -> (statement: SQLiteStatement?, rest: String) {
        var statement: OpaquePointer?
        var rest = ""
        let status = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v2(handle, text, -1, &statement, &tail)
            if let tail { rest = String(cString: tail) }
            return status
        }
        guard status == SQLITE_OK else { throw lastFailure }
        return (statement.map { SQLiteStatement(handle: $0, connection: self) }, rest)
    }

    /// Prepares one statement that must exist.
    func statement(_ sql: String) throws(SQLiteFailure) -> SQLiteStatement {
        guard let statement = try prepare(sql).statement else { throw SQLiteFailure(message: "no statement", offset: nil) }
        return statement
    }
}

/// A prepared statement, finalized when released.
final class SQLiteStatement {
    let handle: OpaquePointer
    /// Kept so that the connection outlives its statements.
    let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the parameters `?1`, `?2`, …
    func bind(_ values: [SQLValue]) throws(SQLiteFailure) {
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, sqliteTransient)
            case .blob(let bytes): status = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
            }
            guard status == SQLITE_OK else { throw connection.lastFailure }
        }
    }

    /// Steps once: `true` while there is a row.
    func step() throws(SQLiteFailure) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastFailure
        }
    }

    /// Runs the statement to its end with `values` bound, ignoring any rows.
    func run(_ values: [SQLValue] = []) throws(SQLiteFailure) {
        try bind(values)
        while try step() {}
    }

    /// The result's column names.
    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { sqlite3_column_name(handle, $0).map { String(cString: $0) } ?? "" }
    }

    /// The current row's value in column `index`.
    func value(at index: Int32) -> SQLValue {
        SQLValue(sqliteValue: sqlite3_column_value(handle, index))
    }

    /// Whether the statement only reads (`SELECT`, `EXPLAIN`, …).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}

extension SQLValue {
    /// Reads a SQLite value (a column's, or a virtual table's argument).
    init(sqliteValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_text(value) else { self = .text(""); return }
            self = .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_blob(value) else { self = .blob([]); return }
            self = .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: self = .null
        }
    }

    /// Sets this value as a virtual table column's result.
    func setResult(_ context: OpaquePointer?) {
        switch self {
        case .null: sqlite3_result_null(context)
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .text(let text): sqlite3_result_text(context, text, -1, sqliteTransient)
        case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), sqliteTransient) }
        }
    }
}

/// `text` copied into memory from `sqlite3_malloc`, for the fields SQLite frees itself (`zErrMsg`, `idxStr`).
func sqliteOwnedString(_ text: String) -> UnsafeMutablePointer<CChar>? {
    let bytes = Array(text.utf8CString)
    guard let memory = sqlite3_malloc(Int32(bytes.count)) else { return nil }
    let pointer = memory.bindMemory(to: CChar.self, capacity: bytes.count)
    for (index, byte) in bytes.enumerated() { pointer[index] = byte }
    return pointer
}
