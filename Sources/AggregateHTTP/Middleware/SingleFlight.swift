public import AggregateCore
import AggregateText
import Foundation

/// Makes concurrent identical requests wait for one fetch: the first sends, the others get its response (or its
/// error). A server that many clients ask the same question at once (`aggregate serve`) then sends it upstream once.
///
/// Share one value between the runs that should share fetches (``ProviderRunner/singleFlight``). Nothing is kept
/// after a fetch ends: what outlives it is the disk cache's business.
public actor SingleFlight {
    private var inFlight: [String: Task<HTTPResponse, any Error>] = [:]

    /// Creates an empty set of fetches.
    public init() {}

    /// How many fetches are under way (for tests).
    public var count: Int { inFlight.count }

    /// The response of the fetch under way for `key`, else of `fetch`, started now and shared until it ends.
    func response(for key: String, fetch: @escaping @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        if let running = inFlight[key] { return try await running.value }
        let task = Task { try await fetch() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }
}

/// The step that joins a request to an identical one under way (``SingleFlight``). Only requests that read (GET or
/// HEAD, idempotent, no body) are joined; two requests are identical when their provider, method, URL, header fields
/// and credential are. It sits after the disk cache, so a fresh hit never waits, and before retry, so one fetch's
/// retries serve everyone waiting for it.
public struct SingleFlightMiddleware: FetchMiddleware {
    let flights: SingleFlight

    /// A step over `flights`.
    public init(flights: SingleFlight) { self.flights = flights }

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard ["GET", "HEAD"].contains(request.method), request.body?.isEmpty ?? true, exchange.isIdempotent else {
            return try await next(request, exchange)
        }
        var key = "\(exchange.provider)\n\(request.method) \(request.url.absoluteString)"
        for field in request.headers { key += "\n\(field.name.lowercased()): \(field.value)" }
        // The credential takes part only as a digest, so no secret is held as a key.
        if let credential = exchange.credential {
            key += "\n" + SHA256.digest(Array(credential.secret.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        return try await flights.response(for: key) { try await next(request, exchange) }
    }
}
