public import AggregateJSON
import AggregateText
import Foundation

/// Reading JSON bodies with clear errors.
extension HTTPResponse {
    /// The body parsed as JSON.
    /// - Throws: a `decoding` ``AggregateError`` that says whether the body was empty, an HTML page, or
    ///   malformed (with the line and column), never the raw parser error alone.
    public func json() throws -> JSONValue {
        if body.isEmpty {
            throw AggregateError(.decoding, "the API sent an empty body where JSON was expected (HTTP \(status))", httpStatus: status)
        }
        do {
            var notes = JSONParseNotes()
            let value = try JSONParser().parse(body, notes: &notes)
            JSONParseNotes.report(notes)
            return value
        } catch {
            if looksLikeHTML {
                throw AggregateError(.decoding, "the API sent an HTML page instead of JSON (HTTP \(status))", httpStatus: status)
            }
            throw AggregateError(.decoding, "the API sent malformed JSON (HTTP \(status)): \(error.reason) at line \(error.line), column \(error.column)", httpStatus: status)
        }
    }
}
