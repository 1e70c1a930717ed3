public import AggregateJSON
import Foundation

/// Sends requests for a provider's ``Provider/resolve(_:using:)`` stage through the shared layer
/// (credentials, timeouts, retries, redirects, size cap, counting), returning only successful responses.
public struct FetchClient: Sendable {
    private let exchange: @Sendable (HTTPRequestSpec) async throws -> HTTPResponse
    /// A cache that lives for one run of the process, for lookups done at most once per run.
    public let cache: RunCache

    /// Creates a client from an exchange function.
    public init(cache: RunCache = RunCache(), exchange: @escaping @Sendable (HTTPRequestSpec) async throws -> HTTPResponse) {
        self.cache = cache
        self.exchange = exchange
    }

    /// Sends `request` and returns its successful response.
    /// - Throws: the provider's ``AggregateError`` for an unsuccessful status.
    public func send(_ request: HTTPRequestSpec) async throws -> HTTPResponse {
        try await exchange(request)
    }
}

/// Values computed at most once per run and shared between concurrent invocations (e.g. TMDb's configuration).
public actor RunCache {
    private var values: [String: Task<JSONValue, any Error>] = [:]

    /// Creates an empty cache.
    public init() {}

    /// The value for `key`, computing it with `make` the first time; concurrent callers share one computation.
    /// A failed computation is not cached.
    public func value(for key: String, make: @escaping @Sendable () async throws -> JSONValue) async throws -> JSONValue {
        if let task = values[key] { return try await task.value }
        let task = Task { try await make() }
        values[key] = task
        do {
            return try await task.value
        } catch {
            values[key] = nil
            throw error
        }
    }
}
