public import AggregateCore
import AggregateText
public import Foundation

/// What the steps of one exchange know about it.
public struct FetchExchange: Sendable {
    /// The provider's name, for events.
    public var provider: String
    /// The provider's base URL: the credential goes only to its origin (scheme, host, port).
    public var origin: URL
    /// The credential to attach on that origin.
    public var credential: Credential?
    /// Whether the request may be repeated without effect (only those are retried).
    public var isIdempotent: Bool
    /// The attempt this is, from 1 (set by ``RetryMiddleware``).
    public var attempt: Int
    /// Masks every secret in what the steps report.
    public var redactor: Redactor

    /// Creates an exchange.
    public init(provider: String, origin: URL, credential: Credential? = nil, isIdempotent: Bool = true, attempt: Int = 1, redactor: Redactor = Redactor()) {
        self.provider = provider
        self.origin = origin
        self.credential = credential
        self.isIdempotent = isIdempotent
        self.attempt = attempt
        self.redactor = redactor
    }
}

/// One step of the fetch layer, in the spirit of swift-openapi-runtime's `ClientMiddleware`: it sees the request
/// on its way out and the response on its way back, and calls `next` zero or more times. Retry, redirects,
/// the deadline, the size cap and the events are steps; a cache, a rate limiter or a recorder slot in the same way
/// (``FetchOptions/middlewares``), without touching providers.
///
/// Order (outermost first): the disk cache (``HTTPCacheMiddleware``, first of ``FetchOptions/middlewares``, so a
/// fresh hit spends no rate budget and sends nothing, and a revalidation goes through every later step like any
/// request), then the caller's other middlewares, then retry, redirect, events, size cap and deadline.
public protocol FetchMiddleware: Sendable {
    /// Handles `request`, passing it on with `next`.
    func intercept(
        _ request: HTTPRequest, exchange: FetchExchange,
        next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}

/// Middlewares in order (the first sees the request first), ending in a transport.
public struct FetchChain: Sendable {
    /// The steps, outermost first.
    public var middlewares: [any FetchMiddleware]
    /// Does the one exchange at the end.
    public var transport: any HTTPTransport

    /// Creates a chain.
    public init(_ middlewares: [any FetchMiddleware], transport: any HTTPTransport) {
        self.middlewares = middlewares
        self.transport = transport
    }

    /// The standard chain for `options`, outermost first:
    ///
    /// 1. `options.middlewares`: steps that may answer without sending (a cache, so a hit spends no rate budget);
    /// 2. retry, then redirect (which attaches the credential);
    /// 3. `options.attemptMiddlewares`: once per attempt and hop (the rate limiter, which waits outside the deadline);
    /// 4. events, size cap and deadline;
    /// 5. `options.wireMiddlewares`: what goes over the wire, retries included (the recorder, or the replayer);
    ///
    /// then the transport. `retryDelay` reads an API's own "wait this long" (default `Retry-After`).
    public static func standard(
        _ transport: any HTTPTransport, options: FetchOptions, statistics: FetchStatistics? = nil,
        retryDelay: @escaping @Sendable (HTTPResponse, Date) -> TimeInterval? = { RetryAfter.delay($0, now: $1) }
    ) -> FetchChain {
        FetchChain(
            options.middlewares + [
                RetryMiddleware(policy: options.retry, sleep: options.sleep, now: options.now, events: options.events, retryDelay: retryDelay),
                RedirectMiddleware(allowHTTP: options.allowHTTP),
            ] + options.attemptMiddlewares + [
                EventsMiddleware(events: options.events, statistics: statistics),
                SizeCapMiddleware(),
                DeadlineMiddleware(),
            ] + options.wireMiddlewares,
            transport: transport)
    }

    /// Sends `request` through every step.
    public func send(_ request: HTTPRequest, exchange: FetchExchange) async throws -> HTTPResponse {
        try await send(request, exchange: exchange, from: 0)
    }

    private func send(_ request: HTTPRequest, exchange: FetchExchange, from index: Int) async throws -> HTTPResponse {
        guard index < middlewares.count else { return try await transport.send(request) }
        return try await middlewares[index].intercept(request, exchange: exchange) { request, exchange in
            try await send(request, exchange: exchange, from: index + 1)
        }
    }
}

/// Why an exchange ended after retries: the last error and how many attempts were made.
public struct FetchAttemptsError: Error, Sendable {
    /// The last error.
    public var error: AggregateError
    /// The attempts made, from 1.
    public var attempts: Int
}

/// Retries what ``RetryPolicy`` allows: connection errors and 429/502/503/504 of idempotent requests, waiting as
/// the API asks. It returns the last response, successful or not; a connection error that ends the exchange is
/// thrown as ``FetchAttemptsError``, and a write that timed out is marked as possibly sent.
public struct RetryMiddleware: FetchMiddleware {
    let policy: RetryPolicy
    let sleep: @Sendable (TimeInterval) async throws -> Void
    let now: @Sendable () -> Date
    let events: @Sendable (FetchEvent) -> Void
    let retryDelay: @Sendable (HTTPResponse, Date) -> TimeInterval?

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var exchange = exchange
        var waited: TimeInterval = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await next(request, exchange)
            } catch var error as AggregateError where error.kind == .timeout && !exchange.isIdempotent {
                // A write that timed out was sent: the server may have acted on it.
                error.requestMayHaveBeenSent = true
                throw FetchAttemptsError(error: error, attempts: exchange.attempt)
            } catch let error as AggregateError where error.kind == .network {
                let decision = policy.decide(attempt: exchange.attempt, retryable: exchange.isIdempotent, suggested: nil, waited: waited)
                guard case .retry(let delay) = decision else { throw FetchAttemptsError(error: error, attempts: exchange.attempt) }
                try await wait(delay, reason: error.message, exchange: &exchange, waited: &waited)
                continue
            }
            let retryable = exchange.isIdempotent && RetryPolicy.retryableStatuses.contains(response.status)
            guard !response.isSuccess, retryable else { return response }
            let decision = policy.decide(attempt: exchange.attempt, retryable: true, suggested: retryDelay(response, now()), waited: waited)
            guard case .retry(let delay) = decision else { return response }
            try await wait(delay, reason: "HTTP \(response.status)", exchange: &exchange, waited: &waited)
        }
    }

    private func wait(_ delay: TimeInterval, reason: String, exchange: inout FetchExchange, waited: inout TimeInterval) async throws {
        events(FetchEvent(
            provider: exchange.provider,
            kind: .retrying(afterSeconds: delay, reason: exchange.redactor.redact(reason), retry: exchange.attempt, of: policy.maxRetries)))
        try await sleep(delay)
        waited += delay
        exchange.attempt += 1
    }
}

/// Follows redirects itself (at most `limit`, refusing loops), refuses plain http where it is not allowed, and
/// attaches the credential only on the provider's origin.
public struct RedirectMiddleware: FetchMiddleware {
    let allowHTTP: Bool
    let limit = 5

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let scope = CredentialScope(baseURL: exchange.origin)
        var hop = request
        var visited: Set<String> = []
        for _ in 0...limit {
            try Self.checkScheme(hop.url, allowHTTP: allowHTTP)
            // Every hop, the first one too: a provider's next link may point at another origin as a redirect may.
            hop.url = try scope.permitted(hop.url, credential: exchange.credential, redactor: exchange.redactor)
            guard visited.insert(hop.method + " " + hop.url.absoluteString).inserted else {
                throw AggregateError(.http, "the server redirected in a loop (back to \(exchange.redactor.redact(hop.url.absoluteString)))")
            }
            var sent = hop
            if let credential = exchange.credential, scope.contains(hop.url) {
                switch credential {
                case .bearer(let token): sent.headers["Authorization"] = "Bearer \(token)"
                case .header(let name, let value): sent.headers[name] = value
                case .queryParameter(let name, let value): sent.url = hop.url.appendingQuery([(name, value)])
                }
            }
            let response = try await next(sent, exchange)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
                let target = URL(string: location, relativeTo: hop.url)?.absoluteURL
            else { return response }
            if response.status == 303 || (hop.method == "POST" && [301, 302].contains(response.status)) {
                hop.method = "GET"
                hop.body = nil
                hop.headers["Content-Type"] = nil
            }
            if target.user != nil || target.password != nil {
                throw AggregateError(
                    .http, "the server redirected to a URL that names a user or password (\(target.host ?? "?")); refused, since they would be sent as credentials")
            }
            // Leaving the provider's origin: no credential is attached there, and none may ride along (`permitted`, at
            // the top of the loop, strips or refuses it).
            hop.url = target
        }
        throw AggregateError(.http, "too many redirects (more than \(limit))")
    }

    /// Plain http goes only to this machine unless the user opted in, so nothing travels unencrypted by accident.
    static func checkScheme(_ url: URL, allowHTTP: Bool) throws {
        switch url.scheme?.lowercased() {
        case "https": return
        case "http" where PlainHTTP.isAllowed(url, allowHTTP: allowHTTP): return
        case "http": throw AggregateError(.config, PlainHTTP.refusal(host: url.host ?? "?"))
        default: throw AggregateError(.config, "unsupported URL scheme in \(url.absoluteString)")
        }
    }
}

/// Counts requests and bytes across the concurrent parts of one run.
public final class FetchStatistics: @unchecked Sendable {
    private let lock = NSLock()
    private var requests = 0
    private var bytes = 0

    /// Creates empty counts.
    public init() {}

    func record(bytes received: Int) {
        lock.lock()
        requests += 1
        bytes += received
        lock.unlock()
    }

    /// The requests and bytes so far.
    public func snapshot() -> (requests: Int, bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (requests, bytes)
    }
}

/// Tells every request and response (URLs redacted) and counts them.
public struct EventsMiddleware: FetchMiddleware {
    let events: @Sendable (FetchEvent) -> Void
    let statistics: FetchStatistics?

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let url = exchange.redactor.redact(request.url.absoluteString)
        events(FetchEvent(provider: exchange.provider, kind: .request(method: request.method, url: url, attempt: exchange.attempt)))
        let started = Date()
        let response = try await next(request, exchange)
        statistics?.record(bytes: response.body.count)
        let milliseconds = Date().timeIntervalSince(started) * 1000
        events(FetchEvent(provider: exchange.provider, kind: .response(status: response.status, bytes: response.body.count, milliseconds: milliseconds)))
        return response
    }
}

/// Refuses a body larger than the request's `maxResponseBytes` (transports stop reading there too).
public struct SizeCapMiddleware: FetchMiddleware {
    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let response = try await next(request, exchange)
        guard response.body.count <= request.maxResponseBytes else {
            throw AggregateError(.tooLarge, "the response is larger than the \(ByteCount.describe(request.maxResponseBytes)) size cap")
        }
        return response
    }
}

/// Gives up on an exchange after the request's `timeout`, whatever the transport does.
public struct DeadlineMiddleware: FetchMiddleware {
    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let timeout = request.timeout
        return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask { try await next(request, exchange) }
            group.addTask {
                try? await Task.sleep(nanoseconds: Nanoseconds.from(seconds: timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else { throw Self.timeoutError(timeout) }
            return response
        }
    }

    /// The error for an exchange that took longer than `timeout` seconds.
    public static func timeoutError(_ timeout: TimeInterval) -> AggregateError {
        AggregateError(.timeout, "no response within \(seconds(timeout)) (the --timeout); the server may be slow or unreachable")
    }

    static func seconds(_ value: TimeInterval) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value) s" }
        return value.rounded() == value ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
