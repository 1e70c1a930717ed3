import AggregateCore
import Foundation

/// Reads an unsuccessful response by a definition's `errors` and `rateLimit`.
struct DefinitionErrorReader {
    let definition: ProviderDefinition
    /// The run's declared environment (`TZ` tells the local time a reset is given in).
    let environment: [String: String]
    let now: Date

    func error(for response: HTTPResponse) -> AggregateError {
        let status = response.status
        let errors = definition.errors
        let message = errors.message.flatMap { rule in (try? response.json()).flatMap { rule.text(in: $0) } }
        if let reset = rateLimitReset(response) {
            let said = message.map { ": \($0)" } ?? ""
            return AggregateError(.rateLimited, "rate limited (HTTP \(status))\(said); \(reset)", httpStatus: status)
        }
        let kind = errors.statusKinds[status] ?? APIErrorKit.kind(forStatus: status)
        let hint = errors.unauthorizedHint ?? "\(definition.descriptor.checkCredentialsAdvice)."
        guard let message else {
            var standard = APIErrorKit.standard(for: response, descriptor: definition.descriptor)
            standard.kind = kind
            if status == 401, errors.unauthorizedHint != nil { standard.message = "the credentials were rejected (HTTP 401). \(hint)" }
            return standard
        }
        return AggregateError(kind, "\(message) (HTTP \(status))" + (status == 401 ? ". \(hint)" : ""), httpStatus: status)
    }

    /// The wait the API asks for: `Retry-After`, or the reset of an exhausted limit.
    func retryDelay(for response: HTTPResponse) -> TimeInterval? {
        guard let limit = definition.rateLimit else { return RetryAfter.delay(response, now: now) }
        if limit.honoursRetryAfter, let wait = RetryAfter.delay(response, now: now) { return wait }
        guard isExhausted(response, limit), let reset = resetDate(response, limit) else { return nil }
        return max(0, reset.timeIntervalSince(now).rounded(.up)) + 1
    }

    // MARK: Rate limits

    private func isExhausted(_ response: HTTPResponse, _ limit: ProviderDefinition.RateLimit) -> Bool {
        guard let header = limit.remainingHeader else { return false }
        return response.headers[header].flatMap(RateLimitHeaders.remaining) == 0
    }

    /// `the limit resets at 14:05 local time`, when the response is a rate limit; else `nil`.
    private func rateLimitReset(_ response: HTTPResponse) -> String? {
        guard let limit = definition.rateLimit, limit.statuses.contains(response.status) else { return nil }
        let retryAfter = limit.honoursRetryAfter ? RetryAfter.delay(response, now: now) : nil
        guard response.status == 429 || isExhausted(response, limit) || retryAfter != nil else { return nil }
        let reset = retryAfter.map { now.addingTimeInterval($0) } ?? resetDate(response, limit)
        guard let reset else { return "wait before trying again" }
        return "the limit resets \(RateLimitReset.describe(reset, now: now, timeZone: RateLimitReset.timeZone(environment: environment)))"
    }

    /// The reset header read by ``RateLimitHeaders`` (bounded; `inf`, `nan` and negative values are ignored).
    private func resetDate(_ response: HTTPResponse, _ limit: ProviderDefinition.RateLimit) -> Date? {
        guard let header = limit.resetHeader, let text = response.headers[header] else { return nil }
        return RateLimitHeaders.reset(text, now: now, epoch: limit.resetIsEpoch)
    }
}
