import AggregateCore
public import AggregateJSON
import Foundation

/// One fetch a statement needs: a table's operation with the key values pushed down, for at most `limit` items.
public struct SQLScan: Sendable {
    /// The table read.
    public var table: SQLTable
    /// The operation's parameters: the pushed-down key values, then the defaults.
    public var parameters: JSONObject
    /// The most items the statement can use from it.
    public var limit: Int

    /// The pushed-down values as `column = 'value'` words, for `--plan`, traces and errors.
    public var keyText: String {
        table.keyColumns.compactMap { key in
            parameters[key.parameter.name].map { "\(key.name) = \(SQLKeyValue.literal($0))" }
        }.joined(separator: ", ")
    }
}

/// How key values travel between SQL and the API's parameters.
enum SQLKeyValue {
    /// The SQL value a key column reports for a parameter's value.
    static func sqlValue(_ value: JSONValue?) -> SQLValue {
        switch value {
        case nil, .null?: return .null
        case .bool(let flag)?: return .integer(flag ? 1 : 0)
        case .number(let text)?: return Int64(text).map(SQLValue.integer) ?? Double(text).map(SQLValue.real) ?? .text(text)
        case .string(let text)?: return .text(text)
        case .array(let elements)?: return .text(elements.compactMap(\.string).joined(separator: ","))
        case .object?: return .null
        }
    }

    /// `value` as it would be written in SQL: `'batman'`, `1994`.
    static func literal(_ value: JSONValue) -> String {
        switch sqlValue(value) {
        case .text(let text): return SQLNames.literal(text)
        case let other: return other.plainText
        }
    }

    /// The parameter's value from a SQL value (`NULL` gives `nil`: it matches no row).
    /// - Throws: a `usage` error naming the table and column, in the parameter's own words.
    static func parameterValue(_ value: SQLValue, for key: SQLKeyColumn, in table: SQLTable) throws(AggregateError) -> JSONValue? {
        guard var text = value.parameterText else { return nil }
        if case .boolean = key.parameter.type, case .integer(let number) = value { text = number == 0 ? "false" : "true" }
        do {
            return try key.parameter.value(from: text)
        } catch {
            // The parameter words its rule for the command line (`--year must be …`); here it is a column.
            let rule = error.message.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? error.message
            throw AggregateError(.usage, "\(table.name).\(key.name) \(rule)")
        }
    }
}
