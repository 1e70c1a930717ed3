import AggregateCore
import AggregateJSON
import Foundation

/// When X's rate-limit window resets: the `x-rate-limit-reset` header X sends with every response.
struct TwitterRateLimit: Equatable {
    /// When the window resets (the header is in epoch seconds).
    var reset: Date

    /// Reads the header through ``RateLimitHeaders`` (epoch seconds, at most two days ahead of `now`); `nil`
    /// without a usable `x-rate-limit-reset`.
    init?(headers: HTTPHeaders, now: Date) {
        guard let text = headers["x-rate-limit-reset"], let reset = RateLimitHeaders.reset(text, now: now, epoch: true),
              reset.timeIntervalSince1970 > 0
        else { return nil }
        self.reset = reset
    }

    /// Seconds to wait before a retry can succeed: up to the reset, plus one because the header has whole seconds
    /// and our clock and X's may differ a little.
    func secondsUntilReset(now: Date) -> TimeInterval {
        max(0, reset.timeIntervalSince(now).rounded(.up)) + 1
    }

    /// `at 14:03 local time (in 12 min)`; the date is added when the reset is not today (the wording every
    /// rate-limit error uses, ``RateLimitReset``).
    func describeReset(now: Date, timeZone: TimeZone) -> String {
        RateLimitReset.describe(reset, now: now, timeZone: timeZone)
    }
}

/// Maps X's error answers, in both APIs' shapes, to one clear line each.
///
/// Shapes: v2 problem objects `{title, detail, type, status}` (with `errors[]` for invalid requests); v1.1
/// `{"errors":[{"code","message"}]}`; v1.1's `{"request","error":"Not authorized."}` for protected accounts; and
/// a plain-text `Rate limit exceeded` body on 429.
enum TwitterErrors {
    static let advice = TwitterProvider.descriptor.checkCredentialsAdvice

    static func error(for response: HTTPResponse, username: String, now: Date, timeZone: TimeZone) -> AggregateError {
        let status = response.status
        let json = try? JSONParser().parse(response.body)
        let codes = json?["errors"]?.array?.compactMap { $0["code"]?.int } ?? []
        let apiMessage = message(in: json, response: response)
        let type = json?["type"]?.string ?? ""
        let said = apiMessage.map { ": \($0)" } ?? ""

        if status == 429 || codes.contains(88) || type.hasSuffix("/rate-limit-exceeded") || type.hasSuffix("/usage-capped") {
            return rateLimited(response, said: said, usageCapped: type.hasSuffix("/usage-capped"), now: now, timeZone: timeZone)
        }
        if codes.contains(34) || codes.contains(50) {
            return AggregateError(.notFound, "no user named @\(username)", httpStatus: status)
        }
        if codes.contains(63) {
            return AggregateError(.notFound, "@\(username) is suspended", httpStatus: status)
        }
        if codes.contains(453) {
            return AggregateError(
                .auth,
                "API v1.1's user timeline needs a higher access level than this app has (HTTP \(status), code 453). Use --api v2 (the default), or change the app's access level in the X developer portal.",
                httpStatus: status)
        }
        if let json, json["request"] != nil, let error = json["error"]?.nonEmptyString {
            // v1.1 answers a protected account's timeline with this shape, not with an error code.
            return AggregateError(
                .auth, "@\(username)'s posts are protected: only approved followers can see them (HTTP \(status): \(error))", httpStatus: status)
        }
        switch status {
        case 401:
            let detail = codes.isEmpty ? "" : ", code \(codes[0])"
            return AggregateError(.auth, "the API token was rejected (HTTP 401\(detail)). \(advice).", httpStatus: status)
        case 403:
            if json?["reason"]?.string == "client-not-enrolled" || type.hasSuffix("/client-forbidden") {
                // ClientForbiddenProblem defines `reason` and `registration_url`, nothing that names the enrollment.
                return AggregateError(
                    .auth,
                    "access was refused (HTTP 403, client-not-enrolled): the token's app must belong to a Project with the needed access level. Attach it in the X developer portal.",
                    httpStatus: status)
            }
            return AggregateError(.auth, "access was refused (HTTP 403\(said)). \(advice) and the app's access level.", httpStatus: status)
        case 400:
            return AggregateError(.http, "the API rejected the request (HTTP 400\(said))", httpStatus: status)
        case 404:
            return AggregateError(.notFound, "not found (HTTP 404\(said))", httpStatus: status)
        default:
            if let apiMessage {
                let later = status >= 500 ? "; try again later" : ""
                return AggregateError(.http, "the API answered HTTP \(status): \(apiMessage)\(later)", httpStatus: status)
            }
            return APIErrorKit.standard(for: response, descriptor: TwitterProvider.descriptor)
        }
    }

    /// The API's own words: v1.1 `errors[].message`, v2 `detail` (or `title`) plus any `errors[].message`,
    /// or a short plain-text body.
    static func message(in json: JSONValue?, response: HTTPResponse) -> String? {
        if let json {
            var parts: [String] = []
            if let problem = APIErrorKit.problem(json), let text = problem.detail ?? problem.title { parts.append(text) }
            for error in json["errors"]?.array ?? [] {
                let text = error["message"]?.nonEmptyString ?? error["detail"]?.nonEmptyString
                let code = error["code"]?.int.map { "code \($0): " } ?? ""
                if let text { parts.append(code + text) }
            }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
        guard !response.body.isEmpty, !response.looksLikeHTML else { return nil }
        let text = response.excerpt(limit: 160)
        return text.isEmpty ? nil : text
    }

    /// A rate limit that could not be waited out within the retry budget: says when the window resets.
    static func rateLimited(_ response: HTTPResponse, said: String, usageCapped: Bool, now: Date, timeZone: TimeZone) -> AggregateError {
        if usageCapped {
            return AggregateError(
                .rateLimited, "the app's usage cap was reached (HTTP \(response.status)\(said)); more reads need a higher cap in the X developer portal",
                httpStatus: response.status)
        }
        let when = TwitterRateLimit(headers: response.headers, now: now).map { "the limit resets \($0.describeReset(now: now, timeZone: timeZone))" }
            ?? "X counts requests in 15-minute windows, so wait up to 15 minutes"
        return AggregateError(.rateLimited, "rate limited (HTTP \(response.status)\(said)); \(when)", httpStatus: response.status)
    }
}
