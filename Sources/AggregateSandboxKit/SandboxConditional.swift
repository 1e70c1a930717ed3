public import AggregateCore
import AggregateText
public import Foundation

/// Adds validators to the sandbox's successful GET answers and turns them into `304 Not Modified` when the
/// request's `If-None-Match` or `If-Modified-Since` shows the client already holds them. Generic: it works on
/// any route's answer, as the provider's ``SandboxProviding/sandboxCaching`` declares.
public final class SandboxConditional: @unchecked Sendable {
    private let lock = NSLock()
    /// For `Last-Modified`: when each request's current body was first served, by request; bounded.
    private var firstServed: [String: (etag: String, date: Date)] = [:]
    private let capacity = 4096

    /// Creates a tracker (one per server or transport: `Last-Modified` dates live as long as it does).
    public init() {}

    /// `response` with validators added, or a `304` for it when the request's conditions match.
    public func apply(_ caching: APICaching, request: SandboxRequest, response: SandboxResponse, now: Date) -> SandboxResponse {
        guard request.method == "GET", response.status == 200 else { return response }
        var answer = response
        if let cacheControl = caching.cacheControl { answer.headers["Cache-Control"] = cacheControl }
        let etag = "\"" + FNV1a.hex(response.body) + "\""
        let sendsETag = caching.validators == .etag || caching.validators == .etagAndLastModified
        let sendsDate = caching.validators == .lastModified || caching.validators == .etagAndLastModified
        if sendsETag { answer.headers["ETag"] = etag }
        var lastModified: Date?
        if sendsDate {
            let date = modified(request: request, etag: etag, now: now)
            lastModified = date
            answer.headers["Last-Modified"] = HTTPDate.format(date)
        }
        if sendsETag, let condition = request.headers["If-None-Match"] {
            return Self.matches(condition, etag: etag) ? notModified(answer) : answer
        }
        if let lastModified, let condition = request.headers["If-Modified-Since"], let since = HTTPDate.parse(condition),
            lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        {
            return notModified(answer)
        }
        return answer
    }

    /// A `304` carrying the answer's validators and `Cache-Control`, without a body.
    private func notModified(_ answer: SandboxResponse) -> SandboxResponse {
        var headers = HTTPHeaders()
        for name in ["ETag", "Last-Modified", "Cache-Control"] { if let value = answer.headers[name] { headers[name] = value } }
        return SandboxResponse(status: 304, headers: headers)
    }

    /// When the body now answered for this request was first served (now, when it changed or was never served).
    private func modified(request: SandboxRequest, etag: String, now: Date) -> Date {
        let key = SandboxResponseMemo.key(request)
        lock.lock()
        defer { lock.unlock() }
        if let known = firstServed[key], known.etag == etag { return known.date }
        if firstServed.count >= capacity { firstServed.removeAll(keepingCapacity: true) }
        let date = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        firstServed[key] = (etag, date)
        return date
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 asks for this header), or is `*`.
    static func matches(_ condition: String, etag: String) -> Bool {
        let strip = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
        return condition.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains { $0 == "*" || strip($0) == strip(etag) }
    }
}
