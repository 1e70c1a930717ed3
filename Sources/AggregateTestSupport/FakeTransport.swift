public import AggregateCore
public import AggregateHTTP
import AggregateRendering
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

/// Values appended from any thread and read back in order, for assertions on what concurrent code did.
public final class Recorder<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Element] = []

    /// Creates an empty recorder.
    public init() {}

    /// Adds a value.
    public func append(_ value: Element) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }

    /// The values so far, in the order they were appended.
    public var values: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The requests a transport saw.
public typealias RequestLog = Recorder<HTTPRequest>
/// The events a fetch emitted.
public typealias EventLog = Recorder<FetchEvent>

extension Recorder where Element == HTTPRequest {
    /// The requests so far, in order.
    public var requests: [HTTPRequest] { values }
}

extension Recorder where Element == FetchEvent {
    /// The events so far, in order.
    public var events: [FetchEvent] { values }
}

/// A counter shared with `@Sendable` closures.
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// Creates a counter at zero.
    public init() {}

    /// Adds one and returns the new value.
    @discardableResult
    public func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
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

extension ProviderResult {
    /// The result's JSON with `elapsedMs` fixed to 0, so golden files are stable.
    public var stableJSON: String {
        var copy = self
        copy.meta.elapsedMs = 0
        return ResultRenderer.json([copy])
    }
}

/// The operation of a test provider that only needs to exist: `GET` of the base URL, read as no items.
public struct NoItemsOperation: APIOperation {
    /// Creates the operation.
    public init() {}

    public func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec { HTTPRequestSpec(url: call.query.baseURL) }

    public func normalize(_ response: HTTPResponse, _ call: Call<Void>) throws -> Page { Page(items: []) }
}
