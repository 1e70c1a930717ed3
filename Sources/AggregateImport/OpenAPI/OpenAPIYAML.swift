import AggregateCore
import AggregateJSON
import Foundation

/// The one place a YAML document is read, so that the parser's errors read like the JSON reader's.
enum OpenAPIYAML {
    /// - Throws: `.invalidInput` (exit 65) naming the file, the line and the column.
    static func parse(_ data: Data, name: String) throws(AggregateError) -> JSONValue {
        throw AggregateError(.invalidInput, "\(name): this build reads OpenAPI documents in JSON only; convert the YAML to JSON first")
    }
}
