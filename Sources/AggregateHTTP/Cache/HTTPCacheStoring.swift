public import AggregateCore
public import Foundation
import AggregateText

/// What a cache lookup found.
public enum HTTPCacheLookup: Sendable {
    /// Nothing is stored for the key.
    case missing
    /// The stored answer.
    case found(HTTPCacheEntry)
    /// The entry could not be used and was removed; the reason says why.
    case damaged(String)
}

/// What a lookup amounted to, counted per provider for `aggregate cache stats`.
public enum HTTPCacheOutcome: String, Sendable {
    /// A fresh entry answered; nothing was sent.
    case hit = "hits"
    /// The server answered 304 and the stored body was used.
    case revalidated
    /// The answer came from the server.
    case miss = "misses"
}

/// Where the HTTP cache keeps its answers, its salt and its counts.
///
/// ``HTTPCacheMiddleware`` decides what is stored and for how long; a store only keeps entries by provider and
/// key, each written whole (a reader sees a whole old entry or a whole new one), and keeps all entries together
/// within ``maxBytes`` by evicting the least recently used (``touch(provider:key:)`` marks a use).
/// ``HTTPCacheStore`` (files, the default) and the Redis store are the conformers; `FailoverHTTPCacheStore` puts one
/// in front of another.
///
/// Keys are made by ``key(method:url:headers:credential:)`` from the store's ``salt()``: stores that share a salt
/// share keys, and a key reveals neither the URL nor the credential. An entry never holds a credential (the
/// middleware strips and refuses them before ``write(_:provider:key:)``).
///
/// Implementation requirements: `Sendable`; blocking calls are fine; every failure to reach the store is thrown,
/// never a crash (the middleware then goes on without the cache, with one warning).
public protocol HTTPCacheStoring: Sendable {
    /// Where the entries live, for people: `<root>/http`, or `redis://HOST:PORT/DB`.
    var location: String { get }
    /// The size cap of all entries together, in bytes.
    var maxBytes: Int { get }
    /// The store's random salt of keys (32 bytes), made once and shared by everyone using the store.
    func salt() throws -> [UInt8]
    /// The entry for `key`, or why there is none usable (a damaged entry is removed).
    func read(provider: String, key: String) throws -> HTTPCacheLookup
    /// Stores `entry` for `key` whole, then evicts the least recently used entries over ``maxBytes``.
    func write(_ entry: HTTPCacheEntry, provider: String, key: String) throws
    /// Marks the entry as just used, for the LRU order.
    func touch(provider: String, key: String) throws
    /// Adds one `outcome` for `provider` to the counts.
    func record(_ outcome: HTTPCacheOutcome, provider: String) throws
    /// Entries, bytes, hits, revalidations and misses per provider, by name.
    func statistics() throws -> [HTTPCacheStore.ProviderStatistics]
    /// Removes every entry of `provider` (all when `nil`), and its counts unless `keepingCounts`; returns the entries
    /// and bytes removed.
    @discardableResult
    func clear(provider: String?, keepingCounts: Bool) throws -> (entries: Int, bytes: Int)
}

extension HTTPCacheStoring {
    /// The key of a request: a salted hash of the method, the URL, the header fields that vary the answer, and the
    /// credential, so two tokens never share an entry and no key reveals either.
    public func key(method: String, url: URL, headers: HTTPHeaders, credential: Credential?) throws -> String {
        let salt = try self.salt()
        var material = method.uppercased() + "\n" + url.absoluteString + "\n"
        for field in headers.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            let name = field.name.lowercased()
            // Credential headers vary the answer too, but only ever enter the key hashed with the salt.
            let value = Redactor.sensitiveHeaderNames.contains(name) ? SHA256.hex(salt + Array(field.value.utf8)) : field.value
            material += name + ": " + value + "\n"
        }
        if let credential {
            let secret: String
            switch credential {
            case .bearer(let token): secret = "bearer " + token
            case .header(let name, let value): secret = "header " + name.lowercased() + " " + value
            case .queryParameter(let name, let value): secret = "query " + name + " " + value
            }
            material += "credential: " + SHA256.hex(salt + Array(secret.utf8)) + "\n"
        }
        return SHA256.hex(salt + Array(material.utf8))
    }
}
