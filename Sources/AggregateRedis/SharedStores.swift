package import AggregateHTTP
package import Foundation

/// What `--store` (or `AGGREGATE_STORE`) names: a folder for the cache and the rate budgets (today's disk layout:
/// `<folder>/http`, `<folder>/ratelimit`), or a Redis server shared with other machines.
package enum StoreLocation: Sendable, Equatable {
    /// A folder, as the cache root.
    case folder(URL)
    /// A Redis server.
    case redis(RedisURL)

    /// Reads `text`: `redis://...` is a server, anything else a folder (relative to the working directory).
    /// - Throws: ``RedisError/badURL(_:)`` for a `redis://` text that cannot be used, or an empty text.
    package init(_ text: String) throws(RedisError) {
        if text.lowercased().hasPrefix("redis://") {
            self = .redis(try RedisURL(text))
        } else if text.isEmpty {
            throw .badURL("it is empty")
        } else if text.contains("://") {
            throw .badURL("only redis:// servers and folders are supported")
        } else {
            self = .folder(URL(fileURLWithPath: text))
        }
    }
}

/// The cache and rate-limit stores of a `--store`, for CLI runs and `aggregate serve` alike.
package struct SharedStores: Sendable {
    /// The token buckets.
    package var rateLimits: any RateLimitStoring
    /// The HTTP cache.
    package var cache: any HTTPCacheStoring
    /// Redis's health, when the stores are a failover of Redis to the local files (`nil` for a folder).
    package var health: StoreHealth?

    /// Opens the stores at `location`. A folder gets the file stores under it. A Redis server is asked `PING` first,
    /// so a wrong address or password is one clear error at once; then each store is a failover of Redis to the file
    /// stores under `localRoot`, which says once through `log` when Redis goes away and when it comes back.
    /// - Parameter prefix: what every Redis key starts with (tests give each run its own).
    /// - Throws: ``RedisError`` when Redis cannot be reached or refuses the login.
    package static func open(
        _ location: StoreLocation, localRoot: URL, prefix: String = "aggregate:", retryInterval: TimeInterval = 5,
        log: @escaping @Sendable (String) -> Void
    ) throws(RedisError) -> SharedStores {
        switch location {
        case .folder(let folder):
            return SharedStores(
                rateLimits: RateLimitStore(directory: folder.appendingPathComponent("ratelimit")), cache: HTTPCacheStore(root: folder), health: nil)
        case .redis(let url):
            let connection = RedisConnection(url: url)
            try connection.ping()
            let health = StoreHealth(name: "redis", retryInterval: retryInterval, log: log)
            return SharedStores(
                rateLimits: FailoverRateLimitStore(
                    shared: RedisRateLimitStore(connection: connection, prefix: prefix),
                    local: RateLimitStore(directory: localRoot.appendingPathComponent("ratelimit")), health: health),
                cache: FailoverHTTPCacheStore(
                    shared: RedisHTTPCacheStore(connection: connection, prefix: prefix), local: HTTPCacheStore(root: localRoot), health: health),
                health: health)
        }
    }
}
