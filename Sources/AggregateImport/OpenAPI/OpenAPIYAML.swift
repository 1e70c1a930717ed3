import AggregateCore
import AggregateJSON
import AggregateYAML
import Foundation

/// The one place a YAML document is read, so that the parser's errors read like the JSON reader's.
enum OpenAPIYAML {
    /// - Throws: `.invalidInput` (exit 65) naming the file, the line and the column.
    static func parse(_ data: Data, name: String) throws(AggregateError) -> JSONValue {
        // The reader refuses a last line of flow mapping that has no line break after it (reported to the YAML
        // reader's author); one more line break changes no line or column it reports.
        let text = data.last == UInt8(ascii: "\n") ? data : data + Data("\n".utf8)
        do {
            return try YAMLParser.parse(text)
        } catch {
            throw AggregateError(.invalidInput, "\(name): invalid YAML: \(error.reason) at line \(error.line), column \(error.column)")
        }
    }
}
