import AggregateRedis
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate serve --store redis://...` as real processes: servers on separate "machines" (each its own cache
/// folder) spend one rate budget and read one cache through one Redis, and a Redis that goes away costs answers
/// nothing.
@Suite(.requiresRedis, .serialized) final class ServeSharedStoreTests {
    /// Kiva REST's budget, shrunk on the sandbox and in the servers alike.
    static let budget = ["AGGREGATE_KIVA_RATE_LIMIT": "10/10m", "TZ": "UTC"]

    static func answers(_ urls: [String]) async throws -> [(status: Int, text: String)] {
        try await withThrowingTaskGroup(of: (status: Int, text: String).self) { group in
            for url in urls {
                group.addTask {
                    let answer = try await ServeCommandTests.get(url)
                    return (answer.status, String(decoding: answer.body, as: UTF8.self))
                }
            }
            var all: [(status: Int, text: String)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
    }

    /// A started server, waited for off the cooperative pool.
    static func start(_ arguments: [String], environment: [String: String]) async throws -> ServeCommandTests.Running {
        try await onOwnThread { try ServeCommandTests.start(arguments, environment: environment) }
    }

    static func health(_ server: ServeCommandTests.Running) async throws -> String? {
        let answer = try await ServeCommandTests.get(server.url + "/healthz")
        let document = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        return document?["store"] as? String
    }

    /// Three servers, 60 different searches at once spread over them: the sandbox allows 10, and exactly 10 reach it;
    /// every other client gets the limiter's "resets" answer (429), none the API's 403.
    @Test func threeServersSpendOneBudget() async throws {
        let own = RedisTestServer.environmentURL == nil ? try RedisTestServer() : nil
        let redis = try #require(RedisTestServer.sharedURL(or: own))
        defer { own?.stop() }
        let sandbox = try LoopbackSandbox(settings: ["kiva.rate-limit": "10/10m"])
        let environment = Self.budget.merging(["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva"]) { $1 }
        var servers: [ServeCommandTests.Running] = []
        for _ in 0..<3 { servers.append(try await Self.start(["--store", redis], environment: environment)) }
        defer { for server in servers where server.process.isRunning { server.process.terminate() } }

        let urls = (0..<60).map { "\(servers[$0 % 3].url)/v1/kiva/search?api=rest&query=word\($0)&limit=1" }
        let answers = try await Self.answers(urls)
        #expect(answers.count == 60)
        #expect(sandbox.server.requestCount == 10)
        #expect(answers.filter { $0.status == 200 }.count == 10)
        for answer in answers where answer.status != 200 {
            #expect(answer.status == 429, "\(answer.text)")
            #expect(answer.text.contains("the rate limit (10 requests per 10 min) is spent; the limit resets"), "\(answer.text)")
        }
        #expect(!answers.contains { $0.text.contains("HTTP 403") })
        for server in servers { #expect(try await Self.health(server) == "redis: up") }
    }

    /// Redis killed mid-run: the server keeps answering from its local store and says so once, in its log and in
    /// `/healthz`; once Redis is back, what one server fetches another reads from the shared cache.
    @Test(.requiresRedisServer) func aRedisOutageCostsNoAnswers() async throws {
        let redis = try RedisTestServer()
        defer { redis.stop() }
        let sandbox = try LoopbackSandbox()
        let environment = ["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva", "TZ": "UTC"]
        let first = try await Self.start(["--store", redis.url()], environment: environment)
        let second = try await Self.start(["--store", redis.url()], environment: environment)
        defer { for server in [first, second] where server.process.isRunning { server.process.terminate() } }
        let search = "/v1/kiva/search?api=rest&limit=1&query="

        #expect(try await Self.answers([first.url + search + "before"]).map(\.status) == [200])
        redis.stop()
        let during = try await Self.answers([first.url + search + "during", first.url + search + "during-too"])
        #expect(during.map(\.status) == [200, 200], "\(during.map(\.text))")
        #expect(try await Self.health(first)?.hasPrefix("redis: down since ") == true)
        let reader = first.reader
        #expect(try await onOwnThread { reader.line(containing: "serve: redis", timeout: 10) } != nil)

        try redis.restart()
        // The server tries Redis again at most every 5 s, on a request's use of the store.
        var health: String?
        for attempt in 0..<30 where health != "redis: up" {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            _ = try await Self.answers([first.url + search + "after\(attempt)"])
            health = try await Self.health(first)
        }
        #expect(health == "redis: up")
        let before = sandbox.server.requestCount
        #expect(try await Self.answers([first.url + search + "shared"]).map(\.status) == [200])
        #expect(sandbox.server.requestCount == before + 1)
        #expect(try await Self.answers([second.url + search + "shared"]).map(\.status) == [200])
        #expect(sandbox.server.requestCount == before + 1, "the second server should read the first's answer from Redis")
    }
    /// A marker credential held by a `serve --store redis://...`: after answers, a failed run, the web page, the
    /// descriptor, `/metrics` and `/healthz`, no response, no log line and no Redis key or value holds it.
    @Test(.requiresRedisServer) func theServersCredentialIsInNoResponseLogMetricOrRedisEntry() async throws {
        let redis = try RedisTestServer()
        defer { redis.stop() }
        let marker = "org.example.MARKER7f3a9c"
        let sandbox = try LoopbackSandbox()
        let environment = ["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva", "KIVA_APP_ID": marker, "TZ": "UTC"]
        let server = try await Self.start(["--store", redis.url()], environment: environment)
        defer { if server.process.isRunning { server.process.terminate() } }

        let paths = [
            "/v1/kiva/search?api=rest&query=water&limit=3", "/v1/kiva/search?api=rest&query=water&limit=3", "/v1/kiva/newest?api=rest&limit=2",
            "/v1/kiva/search?api=rest&status=nonsense", "/?provider=kiva&operation=search&api=rest&query=water&limit=2",
            "/v1/providers/kiva", "/metrics", "/healthz",
        ]
        let answers = try await Self.answers(paths.map { server.url + $0 })
        #expect(answers.filter { $0.status == 200 }.count >= 6, "\(answers.map(\.status))")
        #expect(sandbox.server.requestCount >= 2)
        for answer in answers { #expect(!answer.text.contains(marker), "\(answer.text.prefix(300))") }
        let reader = server.reader
        #expect(try await onOwnThread { reader.line(containing: "/metrics", timeout: 10) } != nil, "the access log has the requests")
        #expect(try await onOwnThread { reader.line(containing: "MARKER7f3a9c", timeout: 1) } == nil)

        let connection = RedisConnection(url: try RedisURL(redis.url()))
        let keys = (try connection.command("KEYS", "*").elements ?? []).compactMap(\.text)
        #expect(keys.contains { $0.contains("cache:entry:kiva/") }, "\(keys)")
        #expect(keys.contains { $0.contains("ratelimit:kiva") }, "\(keys)")
        for key in keys {
            #expect(!key.contains(marker), "\(key)")
            let reply: RESPValue
            switch try connection.command("TYPE", key).text ?? "" {
            case "string": reply = try connection.command("GET", key)
            case "hash": reply = try connection.command("HGETALL", key)
            case "zset": reply = try connection.command("ZRANGE", key, "0", "-1", "WITHSCORES")
            default: reply = .array([])
            }
            let values = reply.data.map { [$0] } ?? (reply.elements ?? []).compactMap(\.data)
            for value in values { #expect(!String(decoding: value, as: UTF8.self).contains(marker), "\(key)") }
        }
    }
}

extension ServeCommandTests.Running: @unchecked Sendable {}
