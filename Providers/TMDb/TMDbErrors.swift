import AggregateCore
import AggregateJSON
import Foundation

/// TMDb's two error shapes, explained in one line each.
///
/// - `{"status_code": 7, "status_message": "Invalid API key: ...", "success": false}` (the 404 body has been seen
///   without `success`);
/// - `{"errors": ["query must be provided"]}` (validation, HTTP 422).
enum TMDbErrors {
    /// TMDb codes whose documented HTTP status is 401, 404 and 429, to classify error bodies that arrive with 2xx.
    private static let authCodes: Set<Int> = [3, 7, 10, 14, 16, 17, 30, 31, 32, 33, 35, 36, 38, 39]
    private static let notFoundCodes: Set<Int> = [6, 34, 37]
    private static let rateLimitCode = 25

    /// The JSON body of an unsuccessful response, or `nil` for an HTML page or anything else that is not JSON.
    static func json(_ response: HTTPResponse) -> JSONValue? {
        response.looksLikeHTML ? nil : try? JSONParser().parse(response.body)
    }

    /// The error a body describes, or `nil` when it is not an error body. `status` is the HTTP status it came with.
    static func bodyError(_ json: JSONValue, status: Int) -> AggregateError? {
        if let messages = json["errors"]?.array, json["results"] == nil, json["id"] == nil {
            let texts = messages.compactMap { $0.nonEmptyString ?? $0["message"]?.nonEmptyString }
            let detail = texts.isEmpty ? "no reason given" : texts.joined(separator: "; ")
            return AggregateError(.http, "TMDb rejected the request: \(detail) (HTTP \(status))", httpStatus: status)
        }
        guard isStatusBody(json), json["success"]?.bool != true else { return nil }
        let message = json["status_message"]?.nonEmptyString ?? "TMDb reported an error"
        let errorKind = kind(status: status, code: json["status_code"]?.int)
        return AggregateError(errorKind, "\(message) (\(origin(json, status: status)))", httpStatus: status)
    }

    /// Whether `json` is TMDb's `status_code`/`status_message` envelope.
    private static func isStatusBody(_ json: JSONValue) -> Bool {
        json["status_code"]?.int != nil || json["status_message"]?.string != nil
    }

    /// `HTTP 401, TMDb code 7`.
    static func origin(_ json: JSONValue, status: Int) -> String {
        "HTTP \(status)" + (json["status_code"]?.int.map { ", TMDb code \($0)" } ?? "")
    }

    /// The kit's kind for an unsuccessful status; for a 2xx, the kind of the status TMDb documents for `code`.
    private static func kind(status: Int, code: Int?) -> AggregateError.Kind {
        guard (200..<300).contains(status), let code else { return APIErrorKit.kind(forStatus: status) }
        if authCodes.contains(code) { return .auth }
        if notFoundCodes.contains(code) { return .notFound }
        return code == rateLimitCode ? .rateLimited : .http
    }
}
