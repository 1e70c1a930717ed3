import AggregateCore
import Foundation

/// What the error mapping needs to know about the run that failed.
struct TMDbErrorContext: Sendable, Equatable {
    /// The operation's name (`search`, `popular` or `movie`).
    var operation: String
    /// The movie id asked for by `movie`.
    var movieID: String?
    /// The environment variable whose credential was sent, named in auth errors.
    var credentialVariable: String?
    /// Whether `TMDB_ACCESS_TOKEN` holds what looks like a v3 API key, a common mix-up that TMDb answers with 401.
    var tokenLooksLikeAPIKey: Bool = false
}

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

    /// The error for an unsuccessful response, with TMDb's own message when the body has one.
    static func error(for response: HTTPResponse, context: TMDbErrorContext) -> AggregateError {
        let status = response.status
        guard !response.looksLikeHTML, let json = try? JSONParser().parse(response.body),
            var error = bodyError(json, status: status)
        else {
            return AggregateError.generic(for: response, descriptor: TMDbProvider.descriptor)
        }
        switch error.kind {
        case .notFound where context.operation == "movie" && isStatusBody(json):
            error.message = "no movie with id \(context.movieID ?? "?") (\(origin(json, status: status)))"
        case .auth:
            error.message += authAdvice(context)
        case .rateLimited:
            error.message += ". Retries ran out: wait a few seconds and try again."
        default:
            break
        }
        return error
    }

    /// The error a body describes, or `nil` when it is not an error body. `status` is the HTTP status it came with.
    static func bodyError(_ json: JSONValue, status: Int) -> AggregateError? {
        if let messages = json["errors"]?.array, json["results"] == nil, json["id"] == nil {
            let texts = messages.compactMap { $0.nonEmptyString ?? $0["message"]?.nonEmptyString }
            let detail = texts.isEmpty ? "no reason given" : texts.joined(separator: "; ")
            return AggregateError(.http, "TMDb rejected the request: \(detail) (HTTP \(status))", httpStatus: status)
        }
        guard isStatusBody(json), json["success"]?.bool != true else { return nil }
        let code = json["status_code"]?.int
        let message = json["status_message"]?.nonEmptyString ?? "TMDb reported an error"
        return AggregateError(kind(status: status, code: code), "\(message) (\(origin(json, status: status)))", httpStatus: status)
    }

    /// Whether `json` is TMDb's `status_code`/`status_message` envelope.
    static func isStatusBody(_ json: JSONValue) -> Bool {
        json["status_code"]?.int != nil || json["status_message"]?.string != nil
    }

    /// `HTTP 401, TMDb code 7`.
    private static func origin(_ json: JSONValue, status: Int) -> String {
        "HTTP \(status)" + (json["status_code"]?.int.map { ", TMDb code \($0)" } ?? "")
    }

    private static func kind(status: Int, code: Int?) -> AggregateError.Kind {
        switch status {
        case 401, 403: return .auth
        case 404: return .notFound
        case 429: return .rateLimited
        case 200..<300:
            guard let code else { return .http }
            if authCodes.contains(code) { return .auth }
            if notFoundCodes.contains(code) { return .notFound }
            return code == rateLimitCode ? .rateLimited : .http
        default: return .http
        }
    }

    private static func authAdvice(_ context: TMDbErrorContext) -> String {
        if context.tokenLooksLikeAPIKey {
            return ". TMDB_ACCESS_TOKEN holds 32 hex digits, which looks like a v3 API key: set TMDB_API_KEY to it instead (TMDB_ACCESS_TOKEN is the long API Read Access Token)."
        }
        guard let variable = context.credentialVariable else { return ". Check TMDB_ACCESS_TOKEN or TMDB_API_KEY." }
        return ". Check \(variable)."
    }
}
