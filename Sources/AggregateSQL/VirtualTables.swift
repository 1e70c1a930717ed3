import AggregateCore
import AggregateJSON
import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// What a table's SQLite module carries: the table and the statement run it fetches for.
final class VirtualTableContext {
    let table: SQLTable
    let run: SQLStatementRun

    init(table: SQLTable, run: SQLStatementRun) {
        self.table = table
        self.run = run
    }
}

/// The plan `xBestIndex` chose, written into `idxStr`: `xFilter` reads it back, and `--plan` reads it from `EXPLAIN`.
struct ScanPlan: Equatable {
    /// One key column the scan pushes down.
    struct Key: Equatable {
        var column: String
        /// Its position in `xFilter`'s arguments (from 1).
        var argument: Int
        /// Whether it is an `IN` list, processed all at once.
        var isList: Bool
        /// Its value when the statement writes it as a constant, else `nil` (it comes from another table).
        var constant: SQLValue?
    }

    var table: String
    var keys: [Key]
    /// The arguments holding `LIMIT` and `OFFSET`, when pushed down.
    var limitArgument: Int?
    var offsetArgument: Int?
    /// Their values, when constants.
    var limit: Int?
    var offset: Int?

    var json: JSONValue {
        var object = JSONObject()
        object["table"] = .string(table)
        object["keys"] = .array(keys.map { key in
            var entry = JSONObject()
            entry["column"] = .string(key.column)
            entry["argument"] = .int(key.argument)
            entry["list"] = .bool(key.isList)
            entry.set("constant", key.constant.map(\.jsonValue))
            return .object(entry)
        })
        object.set("limitArgument", limitArgument.map(JSONValue.int))
        object.set("offsetArgument", offsetArgument.map(JSONValue.int))
        object.set("limit", limit.map(JSONValue.int))
        object.set("offset", offset.map(JSONValue.int))
        return .object(object)
    }

    init(table: String, keys: [Key] = [], limitArgument: Int? = nil, offsetArgument: Int? = nil, limit: Int? = nil, offset: Int? = nil) {
        (self.table, self.keys, self.limitArgument, self.offsetArgument, self.limit, self.offset) = (table, keys, limitArgument, offsetArgument, limit, offset)
    }

    /// Reads a plan back from its `idxStr` text; `nil` for text this module did not write.
    init?(text: String) {
        guard let json = try? JSONParser().parse(Data(text.utf8)), let table = json["table"]?.string else { return nil }
        self.table = table
        keys = (json["keys"]?.array ?? []).compactMap { entry in
            guard let column = entry["column"]?.string, let argument = entry["argument"]?.int else { return nil }
            // Written from `SQLValue.jsonValue`: null, a number or text, which the key columns' reading turns back.
            let constant = entry["constant"].map { SQLKeyValue.sqlValue($0) }
            return Key(column: column, argument: argument, isList: entry["list"]?.bool ?? false, constant: constant)
        }
        limitArgument = json["limitArgument"]?.int
        offsetArgument = json["offsetArgument"]?.int
        limit = json["limit"]?.int
        offset = json["offset"]?.int
    }
}

/// The SQLite virtual-table glue: one eponymous module per table, read-only, whose `xBestIndex` pushes key columns
/// and `LIMIT` down and whose `xFilter` fetches through the statement run.
enum VirtualTables {
    static let constraintEqual = Int32(SQLITE_INDEX_CONSTRAINT_EQ)
    static let constraintLimit = Int32(SQLITE_INDEX_CONSTRAINT_LIMIT)
    static let constraintOffset = Int32(SQLITE_INDEX_CONSTRAINT_OFFSET)

    /// Registers `tables` on `connection`, each fetching for `run`.
    static func register(_ tables: [SQLTable], on connection: SQLiteConnection, run: SQLStatementRun) throws(SQLiteFailure) {
        for table in tables {
            let context = Unmanaged.passRetained(VirtualTableContext(table: table, run: run)).toOpaque()
            let status = sqlite3_create_module_v2(connection.handle, table.name, module, context) { pointer in
                if let pointer { Unmanaged<VirtualTableContext>.fromOpaque(pointer).release() }
            }
            guard status == SQLITE_OK else { throw connection.lastFailure }
        }
    }

    /// The module every table shares; SQLite reads it for as long as the process runs.
    nonisolated(unsafe) static let module: UnsafeMutablePointer<sqlite3_module> = {
        let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        var methods = sqlite3_module()
        methods.iVersion = 1
        // No xCreate: an eponymous-only module, a table that exists without `CREATE VIRTUAL TABLE`.
        methods.xConnect = { db, aux, _, _, vtab, _ in
            guard let db, let aux, let vtab else { return SQLITE_ERROR }
            let context = Unmanaged<VirtualTableContext>.fromOpaque(aux)
            let status = sqlite3_declare_vtab(db, context.takeUnretainedValue().table.declaration)
            guard status == SQLITE_OK else { return status }
            vtab.pointee = TableObject.make(context: aux)
            return vtab.pointee == nil ? SQLITE_NOMEM : SQLITE_OK
        }
        methods.xDisconnect = { vtab in
            sqlite3_free(vtab)
            return SQLITE_OK
        }
        methods.xBestIndex = { vtab, info in
            guard let vtab, let info, let context = TableObject.context(of: vtab) else { return SQLITE_ERROR }
            return bestIndex(table: context.table, info: info, vtab: vtab)
        }
        methods.xOpen = { vtab, cursor in
            guard let vtab, let cursor, let context = TableObject.context(of: vtab) else { return SQLITE_ERROR }
            cursor.pointee = CursorObject.make(ScanCursor(context: context))
            return cursor.pointee == nil ? SQLITE_NOMEM : SQLITE_OK
        }
        methods.xClose = { cursor in
            CursorObject.release(cursor)
            return SQLITE_OK
        }
        methods.xFilter = { cursor, _, idxStr, argc, argv in
            guard let cursor, let scan = CursorObject.cursor(of: cursor) else { return SQLITE_ERROR }
            let arguments = (0..<Int(argc)).map { argv?[$0] }
            do {
                try scan.filter(plan: idxStr.flatMap { ScanPlan(text: String(cString: $0)) }, arguments: arguments)
                return SQLITE_OK
            } catch {
                let failure = (error as? AggregateError) ?? AggregateError(.decoding, "\(error)")
                scan.context.run.failure = scan.context.run.failure ?? failure
                cursor.pointee.pVtab.pointee.zErrMsg = sqliteOwnedString(failure.description)
                return SQLITE_ERROR
            }
        }
        methods.xNext = { cursor in
            CursorObject.cursor(of: cursor)?.position += 1
            return SQLITE_OK
        }
        methods.xEof = { cursor in
            guard let scan = CursorObject.cursor(of: cursor) else { return 1 }
            return scan.position >= scan.rows.count ? 1 : 0
        }
        methods.xColumn = { cursor, result, column in
            guard let scan = CursorObject.cursor(of: cursor) else { return SQLITE_ERROR }
            scan.value(column: Int(column)).setResult(result)
            return SQLITE_OK
        }
        methods.xRowid = { cursor, rowid in
            guard let scan = CursorObject.cursor(of: cursor) else { return SQLITE_ERROR }
            rowid?.pointee = Int64(scan.position)
            return SQLITE_OK
        }
        module.initialize(to: methods)
        return module
    }()

    /// Chooses how to scan: every usable `=`/`IN` on a key column, and `LIMIT`/`OFFSET` when nothing else filters.
    /// A required key column that no constraint can reach fails the statement before any request.
    static func bestIndex(table: SQLTable, info: UnsafeMutablePointer<sqlite3_index_info>, vtab: UnsafeMutablePointer<sqlite3_vtab>) -> Int32 {
        let visibleCount = table.columns.count
        let count = Int(info.pointee.nConstraint)
        var chosen: [Int: Int] = [:]  // key index → constraint index
        var blocked: Set<Int> = []  // keys with an `=` this plan cannot use yet
        var limitConstraint: Int?
        var offsetConstraint: Int?
        var filtersElsewhere = info.pointee.nOrderBy > 0
        for index in 0..<count {
            let constraint = info.pointee.aConstraint[index]
            let op = Int32(constraint.op)
            if op == constraintLimit || op == constraintOffset {
                if constraint.usable != 0 {
                    if op == constraintLimit { limitConstraint = index } else { offsetConstraint = index }
                }
                continue
            }
            let key = Int(constraint.iColumn) - visibleCount
            guard key >= 0, key < table.keyColumns.count, op == constraintEqual else {
                filtersElsewhere = true
                continue
            }
            if constraint.usable == 0 {
                blocked.insert(key)
            } else if chosen[key] == nil {
                chosen[key] = index
            }
        }
        for (key, column) in table.keyColumns.enumerated() where column.isRequired && chosen[key] == nil {
            if blocked.contains(key) { return SQLITE_CONSTRAINT }
            vtab.pointee.zErrMsg = sqliteOwnedString("\(table.name) needs \(column.name) = '...' (a WHERE condition or \(table.name)('...'))")
            return SQLITE_ERROR
        }
        var plan = ScanPlan(table: table.name)
        var argument = 0
        for key in chosen.keys.sorted() {
            guard let index = chosen[key] else { continue }
            argument += 1
            let usage = info.pointee.aConstraintUsage.advanced(by: index)
            usage.pointee.argvIndex = Int32(argument)
            usage.pointee.omit = 1
            let isList = sqlite3_vtab_in(info, Int32(index), -1) != 0
            if isList { sqlite3_vtab_in(info, Int32(index), 1) }
            plan.keys.append(ScanPlan.Key(
                column: table.keyColumns[key].name, argument: argument, isList: isList,
                constant: isList ? nil : constantValue(info, index)))
        }
        // LIMIT and OFFSET bound the fetch only when SQLite applies no other condition or order to the rows.
        if !filtersElsewhere {
            if let index = limitConstraint {
                argument += 1
                info.pointee.aConstraintUsage[index].argvIndex = Int32(argument)
                plan.limitArgument = argument
                if case .integer(let value)? = constantValue(info, index) { plan.limit = Int(clamping: value) }
            }
            if let index = offsetConstraint, plan.limitArgument != nil {
                argument += 1
                info.pointee.aConstraintUsage[index].argvIndex = Int32(argument)
                plan.offsetArgument = argument
                if case .integer(let value)? = constantValue(info, index) { plan.offset = Int(clamping: value) }
            }
        }
        info.pointee.idxStr = sqliteOwnedString(JSONWriter().string(plan.json))
        info.pointee.needToFreeIdxStr = 1
        // Each key pushed down narrows what the API returns; a scan with none reads the most.
        info.pointee.estimatedCost = 1_000_000 / pow(10, Double(plan.keys.count))
        info.pointee.estimatedRows = Int64(plan.limit ?? 20)
        return SQLITE_OK
    }

    /// The right-hand side of constraint `index` when the statement writes it as a constant.
    static func constantValue(_ info: UnsafeMutablePointer<sqlite3_index_info>, _ index: Int) -> SQLValue? {
        var value: OpaquePointer?
        guard sqlite3_vtab_rhs_value(info, Int32(index), &value) == SQLITE_OK, let value else { return nil }
        return SQLValue(sqliteValue: value)
    }

    /// The values of an `IN` list argument, all at once.
    static func listValues(_ list: OpaquePointer?) -> [SQLValue] {
        var values: [SQLValue] = []
        var value: OpaquePointer?
        var status = sqlite3_vtab_in_first(list, &value)
        while status == SQLITE_OK, let current = value {
            values.append(SQLValue(sqliteValue: current))
            status = sqlite3_vtab_in_next(list, &value)
        }
        return values
    }
}

/// A `sqlite3_vtab` followed by a pointer to its table's context, in memory SQLite frees itself.
enum TableObject {
    static let size = MemoryLayout<sqlite3_vtab>.stride + MemoryLayout<UnsafeMutableRawPointer>.stride

    static func make(context: UnsafeMutableRawPointer) -> UnsafeMutablePointer<sqlite3_vtab>? {
        guard let memory = sqlite3_malloc(Int32(size)) else { return nil }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        memory.storeBytes(of: context, toByteOffset: MemoryLayout<sqlite3_vtab>.stride, as: UnsafeMutableRawPointer.self)
        return memory.bindMemory(to: sqlite3_vtab.self, capacity: 1)
    }

    static func context(of vtab: UnsafeMutablePointer<sqlite3_vtab>) -> VirtualTableContext? {
        let pointer = UnsafeMutableRawPointer(vtab).load(fromByteOffset: MemoryLayout<sqlite3_vtab>.stride, as: UnsafeMutableRawPointer.self)
        return Unmanaged<VirtualTableContext>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// A `sqlite3_vtab_cursor` followed by a retained pointer to its ``ScanCursor``.
enum CursorObject {
    static let size = MemoryLayout<sqlite3_vtab_cursor>.stride + MemoryLayout<UnsafeMutableRawPointer>.stride

    static func make(_ cursor: ScanCursor) -> UnsafeMutablePointer<sqlite3_vtab_cursor>? {
        guard let memory = sqlite3_malloc(Int32(size)) else { return nil }
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        memory.storeBytes(of: Unmanaged.passRetained(cursor).toOpaque(), toByteOffset: MemoryLayout<sqlite3_vtab_cursor>.stride, as: UnsafeMutableRawPointer.self)
        return memory.bindMemory(to: sqlite3_vtab_cursor.self, capacity: 1)
    }

    static func cursor(of cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> ScanCursor? {
        guard let cursor else { return nil }
        let pointer = UnsafeMutableRawPointer(cursor).load(fromByteOffset: MemoryLayout<sqlite3_vtab_cursor>.stride, as: UnsafeMutableRawPointer.self)
        return Unmanaged<ScanCursor>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func release(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) {
        guard let cursor else { return }
        let pointer = UnsafeMutableRawPointer(cursor).load(fromByteOffset: MemoryLayout<sqlite3_vtab_cursor>.stride, as: UnsafeMutableRawPointer.self)
        Unmanaged<ScanCursor>.fromOpaque(pointer).release()
        sqlite3_free(cursor)
    }
}

/// One scan of a table: the rows of every combination of its key values.
final class ScanCursor {
    let context: VirtualTableContext
    /// Each row's item and the parameters it was fetched with.
    private(set) var rows: [(item: Item, parameters: JSONObject)] = []
    var position = 0

    init(context: VirtualTableContext) { self.context = context }

    /// Fetches the rows for the key values SQLite passes (one scan per combination of `IN` values).
    func filter(plan: ScanPlan?, arguments: [OpaquePointer?]) throws(AggregateError) {
        let table = context.table
        rows = []
        position = 0
        var combinations: [JSONObject] = [JSONObject()]
        for key in plan?.keys ?? [] {
            guard let column = table.keyColumns.first(where: { $0.name == key.column }), arguments.indices.contains(key.argument - 1) else { continue }
            let argument = arguments[key.argument - 1]
            let values = key.isList ? VirtualTables.listValues(argument) : [SQLValue(sqliteValue: argument)]
            var parameterValues: [JSONValue] = []
            for value in values {
                if let parameter = try SQLKeyValue.parameterValue(value, for: column, in: table), !parameterValues.contains(parameter) {
                    parameterValues.append(parameter)
                }
            }
            combinations = combinations.flatMap { combination in
                parameterValues.map { value in
                    var next = combination
                    next[column.parameter.name] = value
                    return next
                }
            }
        }
        var limit = context.run.defaultLimit
        if let index = plan?.limitArgument, arguments.indices.contains(index - 1), case .integer(let value) = SQLValue(sqliteValue: arguments[index - 1]) {
            var wanted = value
            if let offset = plan?.offsetArgument, arguments.indices.contains(offset - 1), case .integer(let skip) = SQLValue(sqliteValue: arguments[offset - 1]) {
                wanted += max(0, skip)
            }
            // A LIMIT that is an expression was unknown to the plan, which promised --limit at most.
            let ceiling = plan?.limit == nil ? Int64(context.run.defaultLimit) : 10_000
            limit = Int(clamping: max(1, min(wanted, ceiling)))
        }
        for combination in combinations {
            var parameters = combination
            for key in table.keyColumns where parameters[key.parameter.name] == nil {
                if let fallback = key.parameter.defaultValue { parameters[key.parameter.name] = try key.parameter.value(from: fallback) }
            }
            let items = try context.run.items(for: SQLScan(table: table, parameters: parameters, limit: limit))
            rows += items.map { ($0, parameters) }
        }
    }

    /// The current row's value in `column` (visible columns first, then the keys).
    func value(column: Int) -> SQLValue {
        guard rows.indices.contains(position) else { return .null }
        let row = rows[position]
        let table = context.table
        if column < table.columns.count { return table.columns[column].value(of: row.item) }
        let key = column - table.columns.count
        guard table.keyColumns.indices.contains(key) else { return .null }
        return SQLKeyValue.sqlValue(row.parameters[table.keyColumns[key].parameter.name])
    }
}
