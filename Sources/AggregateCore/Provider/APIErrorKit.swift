public import AggregateJSON
import Foundation

/// The pieces every provider's error mapping is made of: readers for the common error-body shapes, one
/// status-to-kind table, and the standard wording. A provider supplies only overrides and its own words.
public enum APIErrorKit {
    /// The kind an unsuccessful HTTP status stands for: 401/403 `auth`, 404 `notFound`, 429 `rateLimited`,
    /// anything else `http`.
    public static func kind(forStatus status: Int) -> AggregateError.Kind {
        switch status {
        case 401, 403: return .auth
        case 404: return .notFound
        case 429: return .rateLimited
        default: return .http
        }
    }

    /// The messages of a GraphQL `errors` list (`{"errors": [{"message": ...}]}`), or `nil` when the body has none.
    /// An entry without a message counts as "an unspecified error".
    public static func graphQLMessages(_ json: JSONValue?) -> [String]? {
        guard let errors = json?["errors"]?.array, !errors.isEmpty else { return nil }
        let messages = errors.compactMap { $0["message"]?.nonEmptyString ?? $0.nonEmptyString }
        return messages.isEmpty ? ["an unspecified error"] : messages
    }

    /// An RFC 7807 problem body's `title` and `detail` (`{"type", "title", "detail", "status"}`).
    public static func problem(_ json: JSONValue?) -> (title: String?, detail: String?)? {
        guard let json, json["title"]?.string != nil || json["detail"]?.string != nil else { return nil }
        return (json["title"]?.nonEmptyString, json["detail"]?.nonEmptyString)
    }

    /// A `{code, message}` body's fields (`message` may also be called `problem`, `status_message` or `error`).
    public static func codeMessage(_ json: JSONValue?) -> (code: String?, message: String)? {
        guard let json else { return nil }
        let message = ["message", "problem", "status_message", "error"].lazy.compactMap { json[$0]?.nonEmptyString }.first
        guard let message else { return nil }
        let code = json["code"]?.nonEmptyString ?? json["code"]?.numberText ?? json["status_code"]?.numberText
        return (code, message)
    }

    /// The error for an unsuccessful response when the body says nothing more useful: 401/403 name the
    /// descriptor's credential variables, 404 is `notFound`, 429 `rateLimited`, others `http`.
    public static func standard(for response: HTTPResponse, descriptor: ProviderDescriptor) -> AggregateError {
        let status = response.status
        switch status {
        case 401:
            return AggregateError(.auth, "the credentials were rejected (HTTP 401). \(descriptor.checkCredentialsAdvice).", httpStatus: status)
        case 403:
            return AggregateError(.auth, "access was refused (HTTP 403). \(descriptor.checkCredentialsAdvice) and the account's access level.", httpStatus: status)
        case 404:
            return AggregateError(.notFound, "not found (HTTP 404)", httpStatus: status)
        case 429:
            return AggregateError(.rateLimited, "rate limited (HTTP 429) and retries ran out; wait before trying again", httpStatus: status)
        default:
            let page = response.looksLikeHTML ? "an HTML page" : response.body.isEmpty ? "an empty body" : "\"\(response.excerpt(limit: 80))\""
            return AggregateError(.http, "the server answered HTTP \(status) with \(page)", httpStatus: status)
        }
    }
}
