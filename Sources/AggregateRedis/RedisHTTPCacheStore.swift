package import AggregateHTTP
package import Foundation

/// The HTTP cache in Redis, shared by every process and machine given the same server.
///
/// - `<prefix>cache:salt`: the salt of keys (made once with `SET NX`), so every client computes the same salted
///   hashes the disk cache uses, and no key reveals a URL or a credential.
/// - `<prefix>cache:entry:<provider>/<key>`: an entry in the disk cache's own format (magic line, metadata with the
///   body's length and checksum, body), so damage is recognised the same way. It expires ``retention`` after it
///   went stale.
/// - `<prefix>cache:lru` (a sorted set of last uses), `<prefix>cache:sizes` (bytes per entry) and
///   `<prefix>cache:bytes` (their total): a write stores the entry and evicts the least recently used until the total
///   fits ``maxBytes``, in **one** Lua script, so concurrent writers never overshoot the cap or evict twice.
/// - `<prefix>cache:stats`: hits, revalidations and misses per provider (`HINCRBY`).
package final class RedisHTTPCacheStore: HTTPCacheStoring, @unchecked Sendable {
    /// The server.
    package let connection: RedisConnection
    /// What every key starts with.
    package let prefix: String
    /// The size cap of all entries.
    package let maxBytes: Int
    /// How long an entry is kept after it went stale (for revalidation, or a run's longer `--cache-ttl`).
    package let retention: TimeInterval
    private let lock = NSLock()
    private var cachedSalt: [UInt8]?

    /// Creates a store on `connection` under `prefix`.
    package init(
        connection: RedisConnection, prefix: String = "aggregate:", maxBytes: Int = HTTPCacheStore.defaultMaxBytes,
        retention: TimeInterval = 7 * 86400
    ) {
        self.connection = connection
        self.prefix = prefix
        self.maxBytes = maxBytes
        self.retention = retention
    }

    /// `redis://HOST:PORT/DB`.
    package var location: String { connection.url.description }

    private var lruKey: String { prefix + "cache:lru" }
    private var sizesKey: String { prefix + "cache:sizes" }
    private var bytesKey: String { prefix + "cache:bytes" }
    private var statsKey: String { prefix + "cache:stats" }
    private var entryPrefix: String { prefix + "cache:entry:" }
    private func member(_ provider: String, _ key: String) -> String { HTTPCacheStore.folderName(provider) + "/" + key }

    package func salt() throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        // Read back every time (one round trip, pipelined): a Redis restarted without its data has lost the salt,
        // and servers that kept an old one in memory would write under keys that no other server reads. Offering
        // the salt already known means the first server back puts it again, and every other adopts the one stored.
        var generator = SystemRandomNumberGenerator()
        let fresh = (cachedSalt ?? (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            .map { String(format: "%02x", $0) }.joined()
        // The first client's salt wins; everyone reads back the one stored.
        let replies = try connection.pipeline([
            ["SET", prefix + "cache:salt", fresh, "NX"].map { Data($0.utf8) }, ["GET", prefix + "cache:salt"].map { Data($0.utf8) },
        ])
        guard replies.count == 2, let text = replies[1].text, text.count == 64 else {
            throw RedisError.badReply(server: location, reason: "the cache's salt is missing or damaged")
        }
        let bytes = Array(text.utf8)
        let salt = stride(from: 0, to: 64, by: 2).compactMap { UInt8(String(decoding: bytes[$0..<$0 + 2], as: UTF8.self), radix: 16) }
        guard salt.count == 32 else { throw RedisError.badReply(server: location, reason: "the cache's salt is damaged") }
        cachedSalt = salt
        return salt
    }

    package func read(provider: String, key: String) throws -> HTTPCacheLookup {
        let name = member(provider, key)
        guard let data = try connection.command([Data("GET".utf8), Data((entryPrefix + name).utf8)]).data else { return .missing }
        do {
            return .found(try HTTPCacheEntry.decode(data))
        } catch {
            _ = try remove(memberPrefix: name, exact: true, statsProvider: nil)
            return .damaged(error.reason)
        }
    }

    package func write(_ entry: HTTPCacheEntry, provider: String, key: String) throws {
        let now = Date()
        let data = entry.encoded()
        let keep = max(0, entry.freshUntil.timeIntervalSince(now)) + retention
        let arguments: [Data] = [
            Data(member(provider, key).utf8), data, Data(String(Int64(now.timeIntervalSince1970 * 1000)).utf8),
            Data(String(Int64(max(1, keep * 1000))).utf8), Data(String(maxBytes).utf8), Data(entryPrefix.utf8),
        ]
        _ = try connection.evaluate(Self.writeScript, keys: [entryPrefix + member(provider, key), lruKey, sizesKey, bytesKey], arguments: arguments)
    }

    package func touch(provider: String, key: String) throws {
        let score = String(Int64(Date().timeIntervalSince1970 * 1000))
        try connection.command("ZADD", lruKey, "XX", score, member(provider, key))
    }

    package func record(_ outcome: HTTPCacheOutcome, provider: String) throws {
        try connection.command("HINCRBY", statsKey, provider + "\t" + outcome.rawValue, "1")
    }

    package func statistics() throws -> [HTTPCacheStore.ProviderStatistics] {
        // Entries Redis expired still have their bookkeeping: drop it first, so counts and sizes are of real entries.
        _ = try connection.evaluate(Self.sweepScript, keys: [lruKey, sizesKey, bytesKey], arguments: [Data(entryPrefix.utf8)])
        let replies = try connection.pipeline([["HGETALL", sizesKey].map { Data($0.utf8) }, ["HGETALL", statsKey].map { Data($0.utf8) }])
        guard replies.count == 2, let sizes = replies[0].elements, let counts = replies[1].elements else {
            throw RedisError.badReply(server: location, reason: "HGETALL answered no list")
        }
        var byProvider: [String: HTTPCacheStore.ProviderStatistics] = [:]
        for index in stride(from: 0, to: sizes.count - 1, by: 2) {
            guard let name = sizes[index].text, let bytes = sizes[index + 1].integer else { continue }
            let provider = String(name.prefix { $0 != "/" })
            byProvider[provider, default: .init(provider: provider)].entries += 1
            byProvider[provider, default: .init(provider: provider)].bytes += Int(bytes)
        }
        for index in stride(from: 0, to: counts.count - 1, by: 2) {
            guard let field = counts[index].text, let value = counts[index + 1].integer else { continue }
            let parts = field.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2, let outcome = HTTPCacheOutcome(rawValue: parts[1]) else { continue }
            var figures = byProvider[parts[0]] ?? .init(provider: parts[0])
            switch outcome {
            case .hit: figures.hits = Int(value)
            case .revalidated: figures.revalidated = Int(value)
            case .miss: figures.misses = Int(value)
            }
            byProvider[parts[0]] = figures
        }
        return byProvider.sorted { $0.key < $1.key }.map(\.value)
    }

    @discardableResult
    package func clear(provider: String?, keepingCounts: Bool) throws -> (entries: Int, bytes: Int) {
        try remove(
            memberPrefix: provider.map { HTTPCacheStore.folderName($0) + "/" } ?? "", exact: false,
            statsProvider: keepingCounts ? nil : (provider ?? ""))
    }

    /// Removes the entries whose member starts with `memberPrefix` (or is it, when `exact`) and, unless
    /// `statsProvider` is `nil`, the counts of that provider (all counts for `""`).
    private func remove(memberPrefix: String, exact: Bool, statsProvider: String?) throws -> (entries: Int, bytes: Int) {
        let reply = try connection.evaluate(
            Self.removeScript, keys: [lruKey, sizesKey, bytesKey, statsKey],
            arguments: [entryPrefix, memberPrefix, statsProvider ?? "", statsProvider == nil ? "1" : "0", exact ? "1" : "0"].map { Data($0.utf8) })
        guard let values = reply.elements, values.count == 2, let entries = values[0].integer, let bytes = values[1].integer else {
            throw RedisError.badReply(server: location, reason: "the removal script answered \(reply)")
        }
        return (Int(entries), Int(bytes))
    }

    // MARK: - The scripts

    /// KEYS: entry, lru, sizes, bytes. ARGV: member, data, now (ms), time to live (ms), the cap, the entries' key
    /// prefix. Stores the entry and its bookkeeping, then evicts the least recently used over the cap; returns how
    /// many it evicted.
    static let writeScript = RedisScript("""
        local old = redis.call('HGET', KEYS[3], ARGV[1])
        if old then redis.call('DECRBY', KEYS[4], old) end
        redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
        local size = string.len(ARGV[2])
        redis.call('HSET', KEYS[3], ARGV[1], size)
        redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
        local total = redis.call('INCRBY', KEYS[4], size)
        local cap = tonumber(ARGV[5])
        local evicted = 0
        while total > cap do
          local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
          if #oldest == 0 then break end
          local m = oldest[1]
          local bytes = tonumber(redis.call('HGET', KEYS[3], m) or '0')
          redis.call('DEL', ARGV[6] .. m)
          redis.call('ZREM', KEYS[2], m)
          redis.call('HDEL', KEYS[3], m)
          total = redis.call('DECRBY', KEYS[4], bytes)
          evicted = evicted + 1
        end
        return evicted
        """)

    /// KEYS: lru, sizes, bytes, stats. ARGV: the entries' key prefix, the member prefix (or member), the provider of
    /// the counts to drop (`''`: all), `1` to keep counts, `1` for an exact member. Returns `{entries, bytes}`.
    static let removeScript = RedisScript("""
        local removed, bytes = 0, 0
        local members
        if ARGV[5] == '1' then members = {ARGV[2]} else members = redis.call('HKEYS', KEYS[2]) end
        for _, m in ipairs(members) do
          if ARGV[5] == '1' or string.sub(m, 1, #ARGV[2]) == ARGV[2] then
            local size = redis.call('HGET', KEYS[2], m)
            local existed = redis.call('DEL', ARGV[1] .. m)
            redis.call('ZREM', KEYS[1], m)
            if size then
              redis.call('HDEL', KEYS[2], m)
              redis.call('DECRBY', KEYS[3], size)
            end
            if existed == 1 then
              removed = removed + 1
              bytes = bytes + tonumber(size or '0')
            end
          end
        end
        if ARGV[4] ~= '1' then
          if ARGV[3] == '' then
            redis.call('DEL', KEYS[4])
          else
            for _, o in ipairs({'hits', 'revalidated', 'misses'}) do redis.call('HDEL', KEYS[4], ARGV[3] .. '\\t' .. o) end
          end
        end
        return {removed, bytes}
        """)

    /// KEYS: lru, sizes, bytes. ARGV: the entries' key prefix. Drops the bookkeeping of entries Redis expired.
    static let sweepScript = RedisScript("""
        local swept = 0
        for _, m in ipairs(redis.call('HKEYS', KEYS[2])) do
          if redis.call('EXISTS', ARGV[1] .. m) == 0 then
            local size = redis.call('HGET', KEYS[2], m)
            redis.call('HDEL', KEYS[2], m)
            redis.call('ZREM', KEYS[1], m)
            if size then redis.call('DECRBY', KEYS[3], size) end
            swept = swept + 1
          end
        end
        return swept
        """)
}
