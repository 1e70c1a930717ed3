import AggregateCore
import AggregateHTTP
import AggregateRedis
import AggregateTestSupport
import Foundation
import Testing

/// A run through the cache and the limiter on Redis, with a marker credential in every place a request and a
/// response can carry one, leaves no trace of it in any Redis key or value.
@Suite(.requiresRedis) struct RedisSecretScanTests {
    let prefix = RedisTestServer.uniquePrefix("secret")
    let marker = "MARKER-s3cr3t-91b2"
    let origin = URL(string: "https://api.example.com")!
    let redis: SharedRedis

    init() throws { redis = try SharedRedis() }

    @Test func noCredentialReachesAnyKeyOrValue() async throws {
        let connection = try redis.connection()
        let cache = HTTPCacheMiddleware(
            settings: HTTPCacheSettings(root: URL(fileURLWithPath: "/nonexistent-aggregate-cache")), freshness: CacheFreshness(),
            operation: "search", now: { Date() }, events: { _ in }, log: HTTPCacheRunLog(),
            store: RedisHTTPCacheStore(connection: connection, prefix: prefix))
        let descriptor = ProviderDescriptor(
            name: "demo", displayName: "Demo", summary: "", docsURL: "", defaultBaseURL: origin.absoluteString, auth: [], authStyle: "",
            paginationStyle: "", operations: [], examples: [], rateBudgets: [RateBudget("api", requests: 50, per: 60)])
        let limiter = RateLimitMiddleware(
            plan: try RateBudgetPlan(descriptor: descriptor, environment: [:]), store: RedisRateLimitStore(connection: connection, prefix: prefix),
            maxWait: 30, sleep: { _ in }, now: { Date() }, events: { _ in }, timeZone: TimeZone(secondsFromGMT: 0) ?? .current)
        let exchange = FetchExchange(
            provider: "demo", origin: origin, credential: .bearer(marker), redactor: Redactor(secrets: [marker]))
        for (path, body) in [("/a", "{\"ok\":true}"), ("/b?q=1", "{\"ok\":2}"), ("/echo", "{\"token\":\"\(marker)\"}")] {
            var request = HTTPRequest(method: "GET", url: origin.appendingEndpoint(path), timeout: 15, maxResponseBytes: 1 << 20)
            request.headers["Authorization"] = "Bearer \(marker)"
            request.headers["X-Api-Key"] = marker
            _ = try await cache.intercept(request, exchange: exchange) { request, exchange in
                try await limiter.intercept(request, exchange: exchange) { request, _ in
                    HTTPResponse(
                        status: 200,
                        headers: ["ETag": "\"v1\"", "x-ratelimit-remaining": "40", "x-ratelimit-reset": "30", "Set-Cookie": "s=\(marker)"],
                        body: Data(body.utf8), url: request.url)
                }
            }
        }
        let dump = try dumpRedis(connection, prefix: prefix)
        let keys = dump.map(\.key)
        #expect(keys.contains(prefix + "ratelimit:demo api api.example.com"))
        #expect(keys.filter { $0.hasPrefix(prefix + "cache:entry:demo/") }.count == 2)  // the echo was not stored
        for item in dump {
            #expect(!item.key.contains(marker), "\(item.key)")
            for value in item.values { #expect(!value.contains(marker), "\(item.key)") }
        }
    }
}
