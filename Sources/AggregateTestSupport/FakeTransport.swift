public import AggregateCore
public import Foundation

/// A transport backed by a closure, for tests of the fetch layer without sockets.
public struct FakeTransport: HTTPTransport {
    private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse

    /// Creates a transport that answers with `handler`.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.handler = handler
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await handler(request)
    }

    /// Answers every request with the same JSON body.
    public static func json(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> FakeTransport {
        FakeTransport { request in HTTPResponse(status: status, headers: headers, body: Data(text.utf8), url: request.url) }
    }

    /// Fails every request with a network error.
    public static var failing: FakeTransport {
        FakeTransport { _ in throw AggregateError(.network, "cannot connect (fake transport)") }
    }
}

/// Records the requests a transport saw, for assertions.
public final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [HTTPRequest] = []

    /// Creates an empty log.
    public init() {}

    /// Adds a request.
    public func append(_ request: HTTPRequest) {
        lock.lock()
        stored.append(request)
        lock.unlock()
    }

    /// The requests so far, in order.
    public var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Fetch options for tests: no real waiting, a fixed clock, and events captured.
public func testFetchOptions(timeout: TimeInterval = 5, maxResponseBytes: Int = 32 << 20, events: EventLog? = nil) -> FetchOptions {
    FetchOptions(
        timeout: timeout, maxResponseBytes: maxResponseBytes,
        retry: RetryPolicy(jitter: { 1.0 }),
        sleep: { _ in },
        now: { Date(timeIntervalSince1970: 1_764_424_980) },
        events: { event in events?.append(event) })
}

/// Collects fetch events.
public final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [FetchEvent] = []

    /// Creates an empty log.
    public init() {}

    /// Adds an event.
    public func append(_ event: FetchEvent) {
        lock.lock()
        stored.append(event)
        lock.unlock()
    }

    /// The events so far.
    public var events: [FetchEvent] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

extension ProviderResult {
    /// The result's JSON with `elapsedMs` fixed to 0, so golden files are stable.
    public var stableJSON: String {
        var copy = self
        copy.meta.elapsedMs = 0
        return ResultRenderer.json([copy])
    }
}
