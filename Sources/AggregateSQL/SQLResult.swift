public import AggregateCore
public import AggregateJSON
import Foundation

/// A statement's rows, and what it fetched for them.
public struct SQLResult: Sendable {
    /// One fetch the statement made.
    public struct Scan: Sendable {
        /// The table.
        public var table: String
        /// The provider's result (items, query, meta, error).
        public var result: ProviderResult
    }

    /// The statement as given.
    public var statement: String
    /// The result's column names, in order.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[SQLValue]]
    /// Every fetch, in the order made.
    public var scans: [Scan]

    /// The fetches that failed (with `partial`; otherwise the statement fails at the first).
    public var failures: [Scan] { scans.filter { $0.result.error != nil } }

    /// The requests each provider was sent, and where its answers came from, in first-use order.
    public var providers: [(provider: String, requests: Int, sources: [String])] {
        var order: [String] = []
        var requests: [String: Int] = [:]
        var sources: [String: [String]] = [:]
        for scan in scans {
            let name = scan.result.provider
            if requests[name] == nil { order.append(name) }
            requests[name, default: 0] += scan.result.meta.requests
            let source = scan.result.meta.source.rawValue
            if !(sources[name] ?? []).contains(source) { sources[name, default: []].append(source) }
        }
        return order.map { ($0, requests[$0] ?? 0, sources[$0] ?? []) }
    }

    /// The JSON form (`Schemas/sql-result.schema.json`):
    /// `{"schemaVersion":1,"columns":[...],"rows":[[...]],"meta":{...}}`.
    public var jsonValue: JSONValue {
        var meta = JSONObject()
        meta["statement"] = .string(statement)
        meta["rowCount"] = .int(rows.count)
        meta["requests"] = .int(scans.reduce(0) { $0 + $1.result.meta.requests })
        meta["providers"] = .array(providers.map { entry in
            ["provider": .string(entry.provider), "requests": .int(entry.requests), "sources": .array(entry.sources.map(JSONValue.string))]
        })
        meta["scans"] = .array(scans.map { scan in
            var object = JSONObject()
            object["table"] = .string(scan.table)
            object["query"] = .object(scan.result.query)
            object["items"] = .int(scan.result.items.count)
            object["requests"] = .int(scan.result.meta.requests)
            object["source"] = .string(scan.result.meta.source.rawValue)
            object["status"] = .string(scan.result.status)
            return .object(object)
        })
        meta["failures"] = .array(failures.map { scan in
            ["table": .string(scan.table), "provider": .string(scan.result.provider), "error": scan.result.error?.jsonValue ?? .null]
        })
        return [
            "schemaVersion": 1, "columns": .array(columns.map(JSONValue.string)), "rows": .array(rows.map { .array($0.map(\.jsonValue)) }),
            "meta": .object(meta),
        ]
    }

    /// Each row as an object keyed by column name (a repeated name gets `_2`, `_3`, …), for NDJSON.
    public var rowObjects: [JSONValue] {
        var keys: [String] = []
        for column in columns {
            var key = column
            var suffix = 2
            while keys.contains(key) {
                key = "\(column)_\(suffix)"
                suffix += 1
            }
            keys.append(key)
        }
        return rows.map { row in .object(JSONObject(zip(keys, row).map { .init($0.0, $0.1.jsonValue) })) }
    }
}
