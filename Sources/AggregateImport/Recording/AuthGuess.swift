import AggregateCore
import AggregateJSON
import Foundation

/// The credentials a recording shows: the recorder wrote `***` for each, so a redacted header or query parameter
/// says how the API takes one (`Authorization: Bearer ***` is a bearer token, `api_key=***` a query key).
struct AuthGuess {
    /// The definition's `auth` entries.
    var entries: [JSONValue] = []
    /// The query parameters that carry a credential, which are not the operations' parameters.
    var parameters: Set<String> = []
    var report = ImportReport()

    static func infer(_ exchange: RecordedExchange, credentialVariables: [String], prefix: String) -> AuthGuess {
        var guess = AuthGuess()
        // `aggregate get --header` records its own stand-in names, which say nothing about the API.
        var variables = credentialVariables.filter { !$0.hasPrefix("AGGREGATE_") }.makeIterator()
        func entry(_ kind: String, parameter: String?, fallback: String, why: String) {
            let variable = variables.next() ?? "\(prefix)_\(fallback)"
            var members: [JSONObject.Member] = [.init("variable", .string(variable)), .init("in", .string(kind))]
            if let parameter { members.append(.init("parameter", .string(parameter))) }
            // Nothing in a recording shows the API refusing a request without it.
            members.append(.init("required", false))
            guess.entries.append(.object(JSONObject(members)))
            guess.report.add(.guessed, exchange.pointer + "/request", "auth: \(variable) sent \(why) (optional: check whether the API needs it)")
        }
        for field in exchange.requestHeaders.fields where field.value.contains(Redactor.mask) {
            if field.name.lowercased() == "authorization", field.value.lowercased().hasPrefix("bearer ") {
                entry("bearer", parameter: nil, fallback: "TOKEN", why: "as 'Authorization: Bearer' (the recorded header was redacted)")
            } else {
                entry("header", parameter: field.name, fallback: "API_KEY", why: "in the header \(field.name) (the recorded value was redacted)")
            }
        }
        for item in exchange.query where item.value == Redactor.mask {
            entry("query", parameter: item.name, fallback: "API_KEY", why: "as the query parameter \(item.name) (the recorded value was redacted)")
            guess.parameters.insert(item.name)
        }
        if guess.entries.isEmpty {
            guess.report.add(.guessed, exchange.pointer + "/request", "auth: none (no header or parameter in the recording was redacted)")
        }
        return guess
    }
}
