import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// Kiva's error bodies and statuses as one clear line each.
enum KivaErrors {
    /// REST v1's published limits, per minute and address.
    static let unregisteredLimit = 60
    static let registeredLimit = 500

    /// The error for an unsuccessful response.
    /// - Parameter hasAppID: whether the run sent `app_id` (REST's limit depends on it).
    static func error(for response: HTTPResponse, api: KivaAPI, hasAppID: Bool) -> AggregateError {
        let status = response.status
        let json = try? JSONParser().parse(response.body)
        if api == .rest, status == 403 { return lockout(response, message: json.flatMap(apiMessage), hasAppID: hasAppID) }
        if let json, let error = api == .graphql ? graphQLError(json, status: status) : restError(json, status: status) { return error }
        if api == .graphql, status == 401 || status == 403 {
            return AggregateError(
                .auth,
                "Kiva's GraphQL API refused the request (HTTP \(status)). Public loan data needs no credentials, so this address may be blocked for now: wait a while and try again, or use --api rest.",
                httpStatus: status)
        }
        return APIErrorKit.standard(for: response, descriptor: KivaProvider.descriptor)
    }

    /// REST v1 answers an exceeded rate limit with 403 and locks the address out for a while. It is not retried:
    /// retrying would only prolong the lock-out.
    static func lockout(_ response: HTTPResponse, message: String?, hasAppID: Bool) -> AggregateError {
        let limit = response.headers["X-RateLimit-Overall-Limit"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            ?? (hasAppID ? registeredLimit : unregisteredLimit)
        // Read as a number (RateLimitHeaders), so that a hostile header's text never reaches the message.
        let remaining = response.headers["X-RateLimit-Overall-Remaining"].flatMap(RateLimitHeaders.remaining).map { ", \($0) of \(limit) left" } ?? ""
        let said = message.map { ": \($0)" } ?? ""
        let advice = hasAppID
            ? "Wait a few minutes before retrying."
            : "Wait a few minutes before retrying; setting KIVA_APP_ID raises the limit to \(registeredLimit) a minute."
        return AggregateError(
            .rateLimited,
            "Kiva's REST API refused the request (HTTP 403\(said)): more than \(limit) requests a minute\(remaining), so this address is locked out for a while. \(advice)",
            httpStatus: response.status)
    }

    /// The error in a v1 body (`{"code": "org.kiva.InvalidIdentifier", "message": ...}`), if it is one.
    /// - Parameter status: the HTTP status, or `nil` for a body that came with 2xx.
    static func restError(_ json: JSONValue, status: Int?) -> AggregateError? {
        guard json["loans"] == nil, let code = json["code"]?.nonEmptyString else { return nil }
        let http = status.map { "HTTP \($0), " } ?? ""
        let detail = "\(apiMessage(json) ?? "an unspecified error") (\(http)code \(code))"
        switch (code, status) {
        case ("org.kiva.InvalidIdentifier", _), (_, 404?):
            return AggregateError(.notFound, "Kiva's REST API found nothing: \(detail)", httpStatus: status)
        case (_, 429?):
            return AggregateError(.rateLimited, "Kiva's REST API rate limit was reached and retries ran out: \(detail). Wait before trying again.", httpStatus: status)
        default:
            return AggregateError(.http, "Kiva's REST API rejected the request: \(detail)", httpStatus: status)
        }
    }

    /// The error in a GraphQL `errors` list, if there is one.
    static func graphQLError(_ json: JSONValue, status: Int? = nil) -> AggregateError? {
        guard let messages = APIErrorKit.graphQLMessages(json) else { return nil }
        var message = messages.prefix(3).map { TextLayout.truncate($0, to: 300) }.joined(separator: "; ")
        // The sentences below add their own full stop.
        while message.hasSuffix(".") { message.removeLast() }
        let codes = Set(json["errors"]?.array?.compactMap { $0["extensions"]?["code"]?.string } ?? [])
        let http = status.map { " (HTTP \($0))" } ?? ""
        let lowered = message.lowercased()
        if lowered.contains("rate limit") || lowered.contains("too many requests") {
            return AggregateError(.rateLimited, "Kiva's GraphQL API rate limit was reached\(http): \(message). Wait before trying again.", httpStatus: status)
        }
        if codes.contains("UNAUTHENTICATED") || codes.contains("FORBIDDEN") {
            return AggregateError(.auth, "Kiva's GraphQL API refused the query\(http): \(message). The provider reads public loan data only.", httpStatus: status)
        }
        if let status, status >= 500 {
            return AggregateError(.http, "Kiva's GraphQL API failed (HTTP \(status)): \(message). Try again later.", httpStatus: status)
        }
        let hint = codes.contains("BAD_USER_INPUT") || codes.contains("GRAPHQL_VALIDATION_FAILED") ? " Check the search options." : ""
        return AggregateError(.http, "Kiva's GraphQL API rejected the query\(http): \(message).\(hint)", httpStatus: status)
    }

    /// The `message` of a v1 error body.
    private static func apiMessage(_ json: JSONValue) -> String? {
        json["message"]?.nonEmptyString.map { TextLayout.truncate($0, to: 200) }
    }
}
