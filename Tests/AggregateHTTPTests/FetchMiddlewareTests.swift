import AggregateCore
import AggregateHTTP
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// A replaying cache, the kind of step issue 11 leaves room for: it answers repeated GETs itself.
private final class ReplayCache: FetchMiddleware, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String: HTTPResponse] = [:]
    private var hitCount = 0

    var hits: Int { locked { hitCount } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let key = request.method + " " + request.url.absoluteString
        if let cached = locked({ stored[key] }) {
            locked { hitCount += 1 }
            return cached
        }
        let response = try await next(request, exchange)
        locked { stored[key] = response }
        return response
    }
}

@Suite struct FetchMiddlewareTests {
    let query = Query(
        provider: "pager", operation: "list", limit: 20, baseURL: URL(string: "https://api.example.com")!,
        environment: ["PAGER_TOKEN": "tok-secret-123"])

    @Test func aMiddlewareSlotsInWithoutTouchingTheProvider() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return HTTPResponse(status: 200, body: Data(#"{"items": [1, 2]}"#.utf8), url: request.url)
        }
        let cache = ReplayCache()
        var options = testFetchOptions()
        options.middlewares = [cache]
        let first = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query)
        let second = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query)
        #expect(first.items.map(\.id) == ["1", "2"] && second.items.map(\.id) == ["1", "2"])
        #expect(log.requests.count == 1, "the second run is answered by the cache")
        #expect(cache.hits == 1)
        #expect(log.requests.first?.headers["Authorization"] == "Bearer tok-secret-123", "the credential is attached after the cache's step")
    }

    @Test func aRedirectLoopIsRefusedBeforeTheLimit() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            let target = request.url.path == "/items" ? "/a" : "/items"
            return HTTPResponse(status: 302, headers: ["Location": target], url: request.url)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query)
        #expect(result.error?.kind == .http)
        #expect(result.error?.message == "the server redirected in a loop (back to https://api.example.com/items)")
        #expect(log.requests.count == 2)
    }

    @Test func theChainAloneFetchesADocumentWithRetries() async throws {
        let attempts = Counter()
        let transport = FakeTransport { request in
            return attempts.increment() == 1
                ? HTTPResponse(status: 503, url: request.url)
                : HTTPResponse(status: 200, body: Data(#"{"ok": true}"#.utf8), url: request.url)
        }
        let body = try await Fetcher(transport: transport, options: testFetchOptions()).fetchDocument(URL(string: "https://example.com/doc.json")!)
        #expect(String(decoding: body, as: UTF8.self) == #"{"ok": true}"#)
        #expect(attempts.increment() == 3, "two requests were sent")
    }

    @Test func theCredentialGoesOnlyToTheProvidersOrigin() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            switch (request.url.port, request.url.path) {
            case (nil, "/items"): return HTTPResponse(status: 302, headers: ["Location": "https://api.example.com:8443/items2"], url: request.url)
            default: return HTTPResponse(status: 200, body: Data(#"{"items": [1]}"#.utf8), url: request.url)
            }
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query)
        #expect(result.error == nil)
        #expect(log.requests.map { $0.headers["Authorization"] } == ["Bearer tok-secret-123", nil], "another port is another origin")
    }

    @Test func pagingArithmeticNeverTraps() {
        let items = Array(1...45)
        #expect(SandboxPaging.page(items, number: 3, size: 20) == [41, 42, 43, 44, 45])
        #expect(SandboxPaging.page(items, number: Int.max, size: 20).isEmpty)
        #expect(SandboxPaging.page(items, number: 0, size: 20).isEmpty)
        #expect(SandboxPaging.page(items, number: 2, size: Int.max).isEmpty)
        #expect(SandboxPaging.slice(items, offset: Int.max, limit: Int.max).isEmpty)
        #expect(SandboxPaging.slice(items, offset: 40, limit: Int.max) == [41, 42, 43, 44, 45])
        #expect(SandboxPaging.slice(items, offset: -1, limit: 5).isEmpty)
        #expect(SandboxPaging.pageCount(45, size: 20) == 3)
    }
}
