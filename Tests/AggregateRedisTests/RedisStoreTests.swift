import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateRedis
import AggregateTestSupport
import Foundation
import Testing

/// A Redis for the store tests: `AGGREGATE_REDIS_URL`, else a private server that lives as long as the test's suite
/// value; each test uses its own key prefix.
final class SharedRedis: @unchecked Sendable {
    private let server: RedisTestServer?
    private let text: String

    init() throws {
        if let shared = RedisTestServer.environmentURL {
            server = nil
            text = shared
        } else {
            let own = try RedisTestServer()
            server = own
            text = own.url()
        }
    }

    func url() throws -> RedisURL { try RedisURL(text) }

    func connection() throws -> RedisConnection { RedisConnection(url: try url(), timeout: 5) }
}

/// Every key under `prefix`, and every value of those keys as text (strings, hashes, sorted sets).
func dumpRedis(_ redis: RedisConnection, prefix: String) throws -> [(key: String, values: [String])] {
    var cursor = "0"
    var keys: [String] = []
    repeat {
        let reply = try redis.command("SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000")
        let parts = reply.elements ?? []
        cursor = parts.first?.text ?? "0"
        keys += (parts.last?.elements ?? []).compactMap(\.text)
    } while cursor != "0"
    var dump: [(key: String, values: [String])] = []
    for key in keys {
        let type = try redis.command("TYPE", key).text ?? ""
        let reply: RESPValue
        switch type {
        case "string": reply = try redis.command("GET", key)
        case "hash": reply = try redis.command("HGETALL", key)
        case "zset": reply = try redis.command("ZRANGE", key, "0", "-1", "WITHSCORES")
        default: reply = .array([])
        }
        dump.append((key, reply.text.map { [$0] } ?? (reply.elements ?? []).compactMap(\.text)))
    }
    return dump
}

@Suite(.requiresRedis) struct RedisRateLimitStoreTests {
    let prefix = RedisTestServer.uniquePrefix("rate")
    let redis: SharedRedis

    init() throws { redis = try SharedRedis() }

    private func store() throws -> RedisRateLimitStore {
        RedisRateLimitStore(connection: try redis.connection(), prefix: prefix)
    }

    /// 120 takes at the same moment from 4 clients on 8 threads: exactly the budget's 10 get a token, and every
    /// other is told when the next comes.
    @Test func concurrentClientsNeverTakeMoreThanTheBudget() async throws {
        let stores = try (0..<4).map { _ in try store() }
        // An hour's window: Redis expires a bucket on its own clock a window after its horizon, and the takes below
        // once took minutes of a loaded CI machine before the entries were read.
        let claim = RateBucketClaim(key: "demo api h:1", requests: 10, window: 3600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let results = Results<Result<Date?, any Error>>()
        try await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: 120) { index in
                results.append(Result { try stores[index % 4].take([claim], now: now, reset: { _ in }) })
            }
        }
        let values = try results.values.map { try $0.get() }
        #expect(values.count == 120)
        #expect(values.filter { $0 == nil }.count == 10)
        #expect(values.compactMap { $0 }.allSatisfy { $0 == now.addingTimeInterval(3600) })
        let entry = try #require(try stores[0].entries(provider: "demo", now: now).first)
        #expect(entry.key == "demo api h:1")
        #expect(entry.state?.spent.count == 10)
        // A window later the tokens are back.
        #expect(try stores[1].take([claim], now: now.addingTimeInterval(3600.5), reset: { _ in }) == nil)
    }

    /// The Lua scripts and the file store agree on every step of a long random sequence of takes and reports.
    @Test func theScriptsMatchTheFileStoreStepByStep() throws {
        let buckets = try store()
        let file = RateLimitStore(directory: nil)
        let claims = [RateBucketClaim(key: "demo a h", requests: 3, window: 2.29), RateBucketClaim(key: "demo b h", requests: 5, window: 10.45)]
        var generator = SeededGenerator(state: 7)
        var now = 1_800_000_000.0
        for step in 0..<300 {
            now += Double(UInt64.random(in: 0...900, using: &generator)) / 1000
            let moment = Date(timeIntervalSince1970: now)
            if UInt64.random(in: 0...4, using: &generator) == 0 {
                var report = RateLimitReport(HTTPResponse(status: 200, headers: [:], url: URL(fileURLWithPath: "/")), now: moment)
                report.remaining = Int(UInt64.random(in: 0...4, using: &generator))
                if Bool.random(using: &generator) { report.reset = moment.addingTimeInterval(Double(UInt64.random(in: 1...5, using: &generator))) }
                if UInt64.random(in: 0...5, using: &generator) == 0 { report.retryAfter = moment.addingTimeInterval(1.5) }
                try buckets.learn(report, claims: claims, now: moment, reset: { _ in })
                file.learn(report, claims: claims, now: moment, reset: { _ in })
            } else {
                let one = try buckets.take(claims, now: moment, reset: { _ in })
                let two = file.take(claims, now: moment, reset: { _ in })
                #expect(abs((one?.timeIntervalSince1970 ?? 0) - (two?.timeIntervalSince1970 ?? 0)) < 0.001, "step \(step)")
            }
        }
        let redisStates = try buckets.entries(provider: "demo", now: Date(timeIntervalSince1970: now))
        let fileStates = file.entries(provider: "demo", now: Date(timeIntervalSince1970: now))
        #expect(redisStates.map(\.key) == fileStates.map(\.key))
        #expect(redisStates.map { $0.state?.spent.count } == fileStates.map { $0.state?.spent.count })
    }

    @Test func damagedAndImplausibleStatesAreResetOnceWithAReason() throws {
        let buckets = try store()
        let raw = try redis.connection()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try raw.command("SET", prefix + "ratelimit:tmdb api h", #"{"version":1,"spent":[],"blockedUntil":1e308}"#)
        try raw.command("SET", prefix + "ratelimit:tmdb search h", "not json")
        let reasons = Results<String>()
        let claims = [RateBucketClaim(key: "tmdb api h", requests: 2, window: 1), RateBucketClaim(key: "tmdb search h", requests: 2, window: 1)]
        #expect(try buckets.take(claims, now: now, reset: { reasons.append($0) }) == nil)
        #expect(reasons.values == [
            "the rate-limit state 'tmdb api h' in \(buckets.location) was implausible (blockedUntil out of range); it was reset",
            "the rate-limit state 'tmdb search h' in \(buckets.location) was damaged; it was reset",
        ])
        #expect(try buckets.take(claims, now: now, reset: { reasons.append($0) }) == nil)
        #expect(reasons.values.count == 2)
        #expect(try buckets.clear(provider: "tmdb") == 2)
        #expect(try buckets.entries(provider: nil, now: now).isEmpty)
    }
}

@Suite(.requiresRedis) struct RedisHTTPCacheStoreTests {
    let prefix = RedisTestServer.uniquePrefix("cache")
    let redis: SharedRedis

    init() throws { redis = try SharedRedis() }

    private func entry(_ body: String, freshFor seconds: TimeInterval = 300) -> HTTPCacheEntry {
        let now = Date()
        return HTTPCacheEntry(
            url: "https://api.example.org/x", status: 200, headers: ["ETag": "\"e\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"],
            body: Data(body.utf8), storedAt: now, freshUntil: now.addingTimeInterval(seconds), freshnessReason: "test")
    }

    @Test func entriesRoundTripWithTheirValidatorsAndShareTheSalt() throws {
        let one = RedisHTTPCacheStore(connection: try redis.connection(), prefix: prefix)
        let two = RedisHTTPCacheStore(connection: try redis.connection(), prefix: prefix)
        let url = try #require(URL(string: "https://api.example.org/search?q=x"))
        let key = try one.key(method: "GET", url: url, headers: [:], credential: .bearer("token"))
        #expect(try two.key(method: "GET", url: url, headers: [:], credential: .bearer("token")) == key)
        #expect(try one.key(method: "GET", url: url, headers: [:], credential: .bearer("other")) != key)
        let stored = entry("{\"a\":1}")
        try one.write(stored, provider: "tmdb", key: key)
        guard case .found(let read) = try two.read(provider: "tmdb", key: key) else { Issue.record("not found"); return }
        #expect(read.etag == "\"e\"" && read.lastModified == stored.lastModified && read.body == stored.body)
        try two.record(.hit, provider: "tmdb")
        try two.record(.miss, provider: "tmdb")
        let size = stored.encoded().count
        #expect(try one.statistics() == [.init(provider: "tmdb", entries: 1, bytes: size, hits: 1, misses: 1)])
        // The key lives as long as the entry is fresh plus the retention.
        let raw = try redis.connection()
        let ttl = try #require(try raw.command("PTTL", prefix + "cache:entry:tmdb/" + key).integer)
        #expect(ttl > 7 * 86_400_000 && ttl <= 7 * 86_400_000 + 300_000)
        #expect(try one.clear(provider: "tmdb", keepingCounts: false) == (1, size))
        guard case .missing = try two.read(provider: "tmdb", key: key) else { Issue.record("still there"); return }
        #expect(try one.statistics().isEmpty)
    }

    @Test func theLeastRecentlyUsedGoFirstOverTheCap() throws {
        let sample = entry(String(repeating: "x", count: 1000))
        let size = sample.encoded().count
        let store = RedisHTTPCacheStore(connection: try redis.connection(), prefix: prefix, maxBytes: size * 3)
        for index in 0..<3 {
            try store.write(sample, provider: "kiva", key: "k\(index)")
            Thread.sleep(forTimeInterval: 0.002)  // distinct millisecond scores for the order
        }
        try store.touch(provider: "kiva", key: "k0")
        Thread.sleep(forTimeInterval: 0.002)
        try store.write(sample, provider: "kiva", key: "k3")
        Thread.sleep(forTimeInterval: 0.002)
        try store.write(sample, provider: "kiva", key: "k4")
        var present: [String] = []
        for index in 0..<5 {
            if case .found = try store.read(provider: "kiva", key: "k\(index)") { present.append("k\(index)") }
        }
        #expect(present == ["k0", "k3", "k4"])
        #expect(try store.statistics().first?.bytes == size * 3)
    }

    @Test func damagedAndExpiredEntriesLeaveNoBookkeeping() throws {
        let store = RedisHTTPCacheStore(connection: try redis.connection(), prefix: prefix)
        let raw = try redis.connection()
        try store.write(entry("one"), provider: "tmdb", key: "a")
        try store.write(entry("two"), provider: "tmdb", key: "b")
        try raw.command("SET", prefix + "cache:entry:tmdb/a", "aggregate-http-cache 1\nbroken")
        guard case .damaged(let reason) = try store.read(provider: "tmdb", key: "a") else { Issue.record("not damaged"); return }
        #expect(reason == "it is cut short")
        try raw.command("DEL", prefix + "cache:entry:tmdb/b")  // as if it had expired
        #expect(try store.statistics().isEmpty)
        #expect(try raw.command("GET", prefix + "cache:bytes").integer == 0)
    }
}

/// Redis goes away and comes back: the failover answers from the local stores meanwhile, says so once, and shares
/// state through Redis again once it is back.
@Suite(.requiresRedisServer, .serialized) final class StoreFailoverTests {
    let server: RedisTestServer
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-failover-\(UUID().uuidString)")

    init() throws { server = try RedisTestServer() }
    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test func localStoresAnswerDuringAnOutageAndRedisIsSharedAgainAfter() throws {
        let lines = Results<String>()
        let health = StoreHealth(retryInterval: 0, log: { lines.append($0) })
        let connection = RedisConnection(url: try RedisURL(server.url()), timeout: 2)
        let shared = RedisRateLimitStore(connection: connection, prefix: "t:")
        let limits = FailoverRateLimitStore(shared: shared, local: RateLimitStore(directory: folder.appendingPathComponent("ratelimit")), health: health)
        let cache = FailoverHTTPCacheStore(
            shared: RedisHTTPCacheStore(connection: connection, prefix: "t:"), local: HTTPCacheStore(root: folder), health: health)
        let claim = RateBucketClaim(key: "demo api h", requests: 2, window: 60)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try limits.take([claim], now: now, reset: { _ in }) == nil)
        #expect(health.description == "redis: up")

        server.stop()
        // The local bucket is fresh: two more tokens, then a wait; the cache works on disk.
        #expect(try limits.take([claim], now: now, reset: { _ in }) == nil)
        #expect(try limits.take([claim], now: now, reset: { _ in }) == nil)
        #expect(try limits.take([claim], now: now, reset: { _ in }) != nil)
        let key = try cache.key(method: "GET", url: URL(fileURLWithPath: "/x"), headers: [:], credential: nil)
        try cache.write(HTTPCacheEntry(url: "u", status: 200, headers: [:], body: Data("b".utf8), storedAt: now, freshUntil: now + 60, freshnessReason: "r"), provider: "demo", key: key)
        guard case .found = try cache.read(provider: "demo", key: key) else { Issue.record("the disk cache did not answer"); return }
        #expect(lines.values.count == 1)
        #expect(lines.values.first?.hasPrefix("redis: down since ") == true)
        #expect(lines.values.first?.contains("cannot reach \(server.url())") == true)
        guard case .down = health.current else { Issue.record("not down"); return }
        #expect(health.description.hasPrefix("redis: down since "))

        try server.restart()
        // Back on Redis (empty after the restart): its own bucket, shared with any other client of it.
        #expect(try limits.take([claim], now: now, reset: { _ in }) == nil)
        #expect(health.description == "redis: up")
        #expect(lines.values.count == 2)
        #expect(lines.values.last?.hasPrefix("redis: up again") == true)
        let other = RedisRateLimitStore(connection: RedisConnection(url: try RedisURL(server.url())), prefix: "t:")
        #expect(try other.take([claim], now: now, reset: { _ in }) == nil)
        #expect(try limits.take([claim], now: now, reset: { _ in }) != nil)
    }

    /// While down, the shared store is tried once per interval, not on every call.
    @Test func aDownStoreIsRetriedOncePerInterval() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let health = StoreHealth(retryInterval: 5, clock: { clock.now }, log: { _ in })
        let failing = CountingStore(fails: true)
        let limits = FailoverRateLimitStore(shared: failing, local: RateLimitStore(directory: nil), health: health)
        let claim = RateBucketClaim(key: "demo api h", requests: 100, window: 60)
        for _ in 0..<10 { _ = try limits.take([claim], now: clock.now, reset: { _ in }) }
        #expect(failing.calls == 1)
        clock.advance(5)
        for _ in 0..<10 { _ = try limits.take([claim], now: clock.now, reset: { _ in }) }
        #expect(failing.calls == 2)
        failing.fails = false
        clock.advance(5)
        for _ in 0..<10 { _ = try limits.take([claim], now: clock.now, reset: { _ in }) }
        #expect(failing.calls == 12)
        #expect(health.isUp)
    }
}

/// Collects values from many threads.
final class Results<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T] = []
    func append(_ value: T) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }
    var values: [T] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    func advance(_ seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

/// A shared store that counts its calls and fails while told to.
final class CountingStore: RateLimitStoring, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var failing: Bool
    init(fails: Bool) { failing = fails }
    var calls: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
    var fails: Bool {
        get { lock.lock(); defer { lock.unlock() }; return failing }
        set { lock.lock(); failing = newValue; lock.unlock() }
    }
    var location: String { "counting" }
    private func call() throws {
        lock.lock()
        count += 1
        let fail = failing
        lock.unlock()
        if fail { throw RedisError.unreachable(server: "redis://test:1/0", reason: "connection refused") }
    }
    func take(_ claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws -> Date? {
        try call()
        return nil
    }
    func learn(_ report: RateLimitReport, claims: [RateBucketClaim], now: Date, reset: @escaping @Sendable (String) -> Void) throws { try call() }
    func entries(provider: String?, now: Date) throws -> [RateBucketEntry] {
        try call()
        return []
    }
    func clear(provider: String?) throws -> Int {
        try call()
        return 0
    }
}
