import AggregateCore
import AggregateJSON
import AggregateYAML
import Foundation

/// The one place a YAML document is read, so that the parser's errors read like the JSON reader's.
enum OpenAPIYAML {
    /// - Throws: `.invalidInput` (exit 65) naming the file, the line and the column.
    static func parse(_ data: Data, name: String) throws(AggregateError) -> JSONValue {
        do {
            return try YAMLParser.parse(data)
        } catch {
            throw AggregateError(.invalidInput, "\(name): invalid YAML: \(error.reason) at line \(error.line), column \(error.column)")
        }
    }
}
