import AggregateCore
package import AggregateHTTP
import AggregateJSON
package import Foundation

/// The rate limiter's token buckets in Redis, shared by every process and machine given the same server: each
/// ``take(_:now:reset:)`` and ``learn(_:claims:now:reset:)`` is **one** Lua script run with `EVALSHA`, so the whole
/// request's buckets change atomically and no two clients ever take the same token.
///
/// The scripts transcribe ``RateBucketState/take(requests:window:now:)`` and
/// ``RateBucketState/learn(_:requests:window:now:)`` (same semantics as the file store, times are the callers'
/// clocks), and reset a damaged or implausible state as the file store does. A bucket is the string key
/// `<prefix>ratelimit:<provider> <budget> <host>` holding the file store's version-1 JSON (times and counts only, no
/// secret), expiring a minute after its last token comes back.
package final class RedisRateLimitStore: RateLimitStoring {
    /// The server.
    package let connection: RedisConnection
    /// What every key starts with (`aggregate:` by default; tests use their own to share one Redis).
    package let prefix: String

    /// Creates a store on `connection` under `prefix`.
    package init(connection: RedisConnection, prefix: String = "aggregate:") {
        self.connection = connection
        self.prefix = prefix
    }

    /// `redis://HOST:PORT/DB`.
    package var location: String { connection.url.description }

    private func redisKey(_ key: String) -> String { prefix + "ratelimit:" + key }

    /// The bound beyond which a stored time is implausible: ``RateLimitHeaders/longestWait`` plus a minute.
    private static func latest(_ now: TimeInterval) -> String { number(now + RateLimitHeaders.longestWait + 60) }

    private static func number(_ value: TimeInterval) -> String { String(format: "%.6f", value) }

    private static func claimArguments(_ claims: [RateBucketClaim]) -> [Data] {
        claims.flatMap { [Data($0.key.utf8), Data(String($0.requests).utf8), Data(number($0.window).utf8)] }
    }

    package func take(_ claims: [RateBucketClaim], now moment: Date, reset: @escaping @Sendable (String) -> Void) throws -> Date? {
        guard !claims.isEmpty else { return nil }
        let now = moment.timeIntervalSince1970
        let arguments = [Data(Self.number(now).utf8), Data(Self.latest(now).utf8)] + Self.claimArguments(claims)
        let reply = try connection.evaluate(Self.takeScript, keys: claims.map { redisKey($0.key) }, arguments: arguments)
        guard let values = reply.elements, let first = values.first?.text else {
            throw RedisError.badReply(server: location, reason: "the bucket script answered \(reply)")
        }
        tellResets(values.dropFirst(), reset: reset)
        guard !first.isEmpty else { return nil }
        guard let ready = TimeInterval(first) else { throw RedisError.badReply(server: location, reason: "the bucket script gave no time") }
        return Date(timeIntervalSince1970: ready)
    }

    package func learn(_ report: RateLimitReport, claims: [RateBucketClaim], now moment: Date, reset: @escaping @Sendable (String) -> Void) throws {
        guard !claims.isEmpty else { return }
        let now = moment.timeIntervalSince1970
        let arguments = [
            Data(Self.number(now).utf8), Data(Self.latest(now).utf8),
            Data((report.retryAfter.map { Self.number($0.timeIntervalSince1970) } ?? "").utf8),
            Data((report.remaining.map { String($0) } ?? "").utf8),
            Data((report.reset.map { Self.number($0.timeIntervalSince1970) } ?? "").utf8),
        ] + Self.claimArguments(claims)
        let reply = try connection.evaluate(Self.learnScript, keys: claims.map { redisKey($0.key) }, arguments: arguments)
        tellResets((reply.elements ?? []).dropFirst(), reset: reset)
    }

    /// Each reset is `<bucket key>\n<reason>`.
    private func tellResets(_ values: ArraySlice<RESPValue>, reset: (String) -> Void) {
        for value in values {
            guard let text = value.text else { continue }
            let parts = text.split(separator: "\n", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            reset("the rate-limit state '\(parts[0])' in \(location) was \(parts[1]); it was reset")
        }
    }

    package func entries(provider: String?, now: Date) throws -> [RateBucketEntry] {
        let keys = try scan(provider: provider)
        guard !keys.isEmpty else { return [] }
        let replies = try connection.pipeline(keys.map { [Data("GET".utf8), Data($0.utf8)] })
        var entries: [RateBucketEntry] = []
        for (key, reply) in zip(keys, replies) {
            let name = String(key.dropFirst((prefix + "ratelimit:").count))
            guard let data = reply.data else { continue }  // expired between the scan and the read
            guard let json = try? JSONParser().parse(data), let state = RateBucketState(json), state.implausibility(now: now.timeIntervalSince1970) == nil else {
                entries.append(RateBucketEntry(key: name, state: nil))
                continue
            }
            entries.append(RateBucketEntry(key: name, state: state))
        }
        return entries.sorted { $0.key < $1.key }
    }

    @discardableResult
    package func clear(provider: String?) throws -> Int {
        let keys = try scan(provider: provider)
        guard !keys.isEmpty else { return 0 }
        return Int(try connection.command([Data("DEL".utf8)] + keys.map { Data($0.utf8) }).integer ?? 0)
    }

    /// The bucket keys of `provider` (all when `nil`), by `SCAN` (never `KEYS`, which blocks a shared server).
    private func scan(provider: String?) throws -> [String] {
        let pattern = Self.globEscaped(redisKey(provider.map { $0 + " " } ?? "")) + "*"
        var cursor = "0"
        var keys: Set<String> = []
        repeat {
            let reply = try connection.command("SCAN", cursor, "MATCH", pattern, "COUNT", "500")
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].text, let found = parts[1].elements else {
                throw RedisError.badReply(server: location, reason: "SCAN answered \(reply)")
            }
            for key in found { if let text = key.text { keys.insert(text) } }
            cursor = next
        } while cursor != "0"
        return keys.sorted()
    }

    /// `text` with the glob characters of `SCAN MATCH` escaped.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\^".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    // MARK: - The scripts

    /// Reading, judging and writing one bucket: the file store's `read`, `implausibility` and version-1 format.
    private static let common = """
        local function num(x) return string.format('%.6f', x) end
        local function load(key, latest)
          local raw = redis.call('GET', key)
          if not raw then return {spent = {}}, nil end
          local ok, v = pcall(cjson.decode, raw)
          if not ok or type(v) ~= 'table' or v.version ~= 1 or type(v.spent) ~= 'table' then return {spent = {}}, 'damaged' end
          for _, f in ipairs({'blockedUntil', 'serverReset', 'serverRemaining'}) do
            if v[f] ~= nil and type(v[f]) ~= 'number' then return {spent = {}}, 'damaged' end
          end
          local s = {spent = {}}
          for _, t in ipairs(v.spent) do
            if type(t) ~= 'number' then return {spent = {}}, 'damaged' end
            s.spent[#s.spent + 1] = t
          end
          for _, t in ipairs(s.spent) do
            if t ~= t or t < 0 or t > latest then return {spent = {}}, 'implausible (a spent time out of range)' end
          end
          local b, r = v.blockedUntil, v.serverReset
          if b ~= nil and (b ~= b or b < 0 or b > latest) then return {spent = {}}, 'implausible (blockedUntil out of range)' end
          if r ~= nil and (r ~= r or r < 0 or r > latest) then return {spent = {}}, 'implausible (serverReset out of range)' end
          if #s.spent > 1000000 then return {spent = {}}, 'implausible (too many spent tokens)' end
          s.blockedUntil, s.serverReset, s.serverRemaining = b, r, v.serverRemaining
          return s, nil
        end
        local function save(key, name, s, now, window)
          local parts = {}
          for i, t in ipairs(s.spent) do parts[i] = num(t) end
          local text = '{"version":1,"key":' .. cjson.encode(name) .. ',"spent":[' .. table.concat(parts, ',') .. ']'
          if s.blockedUntil then text = text .. ',"blockedUntil":' .. num(s.blockedUntil) end
          if s.serverRemaining then text = text .. ',"serverRemaining":' .. string.format('%d', s.serverRemaining) end
          if s.serverReset then text = text .. ',"serverReset":' .. num(s.serverReset) end
          local horizon = now + window
          if s.blockedUntil and s.blockedUntil > horizon then horizon = s.blockedUntil end
          if s.serverReset and s.serverReset > horizon then horizon = s.serverReset end
          redis.call('SET', key, text .. '}', 'PX', math.ceil((horizon - now + 60) * 1000))
        end

        """

    /// ARGV: now, the latest plausible time, then `name requests window` per key. Returns the time the last empty
    /// bucket has a token again (`''` when every bucket gave one), then each reset as `name\\nreason`.
    static let takeScript = RedisScript(common + """
        local now, latest = tonumber(ARGV[1]), tonumber(ARGV[2])
        local out, resets = {''}, {}
        local readyMax = nil
        for i, key in ipairs(KEYS) do
          local base = 2 + (i - 1) * 3
          local name, requests, window = ARGV[base + 1], tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
          local s, why = load(key, latest)
          if why then resets[#resets + 1] = name .. '\\n' .. why end
          local kept = {}
          for _, t in ipairs(s.spent) do if t > now - window and t <= now + 1 then kept[#kept + 1] = t end end
          table.sort(kept)
          s.spent = kept
          if s.serverReset and s.serverReset <= now then s.serverRemaining, s.serverReset = nil, nil end
          if s.blockedUntil and s.blockedUntil <= now then s.blockedUntil = nil end
          local ready = now
          if #s.spent >= requests then ready = s.spent[#s.spent - requests + 1] + window end
          if s.blockedUntil and s.blockedUntil > ready then ready = s.blockedUntil end
          if s.serverRemaining and s.serverRemaining <= 0 and s.serverReset and s.serverReset > ready then ready = s.serverReset end
          if ready <= now then
            s.spent[#s.spent + 1] = now
            if s.serverRemaining then s.serverRemaining = s.serverRemaining - 1 end
          end
          save(key, name, s, now, window)
          if ready > now and (readyMax == nil or ready > readyMax) then readyMax = ready end
        end
        if readyMax then out[1] = num(readyMax) end
        for _, r in ipairs(resets) do out[#out + 1] = r end
        return out
        """)

    /// ARGV: now, the latest plausible time, `Retry-After`, remaining, reset (each `''` when not reported), then
    /// `name requests window` per key. Returns `''`, then each reset as `name\\nreason`.
    static let learnScript = RedisScript(common + """
        local now, latest = tonumber(ARGV[1]), tonumber(ARGV[2])
        local retryAfter, remaining, reset = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
        local out = {''}
        for i, key in ipairs(KEYS) do
          local base = 5 + (i - 1) * 3
          local name, requests, window = ARGV[base + 1], tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
          local s, why = load(key, latest)
          if why then out[#out + 1] = name .. '\\n' .. why end
          if retryAfter then s.blockedUntil = math.max(s.blockedUntil or 0, retryAfter) end
          if remaining then
            if reset then
              s.serverRemaining, s.serverReset = remaining, reset
            else
              local recent = 0
              for _, t in ipairs(s.spent) do if t > now - window then recent = recent + 1 end end
              local ours = requests - recent
              if ours > remaining then
                for _ = 1, math.min(ours - remaining, requests) do s.spent[#s.spent + 1] = now end
              end
            end
          end
          save(key, name, s, now, window)
        end
        return out
        """)
}
