@testable import AggregateCore
@testable import AggregateHTTP
import AggregateJSON
@testable import AggregateSandboxKit
import AggregateTestSupport
@testable import AggregateText
import Foundation
import Testing

/// The disk cache's parts: hashing, entry files, the store (permissions, LRU, counts), freshness rules, and the
/// sandbox's conditional answers.
@Suite final class HTTPCacheTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-unit-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: root) }

    // MARK: Hashing and dates

    @Test func sha256MatchesTheStandardsTestVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Two blocks: the padding crosses into a second one.
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func httpDatesRoundTripAndRejectOtherShapes() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        for text in ["", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT"] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    // MARK: Entries

    func entry(body: String = "{\"results\":[]}", storedAt: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> HTTPCacheEntry {
        HTTPCacheEntry(
            url: "https://api.example.org/search?q=x", status: 200, headers: ["Content-Type": "application/json", "ETag": "\"abc\""],
            body: Data(body.utf8), storedAt: storedAt, freshUntil: storedAt + 300, freshnessReason: "the provider's default of 5 min")
    }

    @Test func anEntryFileReadsBackAsItWasWritten() throws {
        let original = entry(body: "{\"line\":\"one\\ntwo\"}\n\u{1F600}")
        #expect(try HTTPCacheEntry.decode(original.encoded()) == original)
    }

    @Test func damagedEntryFilesAreRecognisedWithAReason() throws {
        let bytes = entry().encoded()
        let cases: [(Data, String)] = [
            (Data(), "it is empty"),
            (Data("GIF89a".utf8), "it is not in the cache's format"),
            (bytes.prefix(30), "it is cut short"),
            (bytes.dropLast(3), "its body has 11 of 14 bytes"),
            (bytes.dropLast(1) + Data("?".utf8), "its body does not match its checksum"),
        ]
        for (data, reason) in cases {
            #expect(throws: HTTPCacheEntry.Damage.self) { try HTTPCacheEntry.decode(Data(data)) }
            do {
                _ = try HTTPCacheEntry.decode(Data(data))
            } catch {
                #expect(error.reason == reason)
            }
        }
    }

    // MARK: The store

    @Test func foldersAre0700AndFiles0600() throws {
        let store = HTTPCacheStore(root: root)
        let key = try store.key(method: "GET", url: URL(string: "https://api.example.org/a")!, headers: [:], credential: nil)
        try store.write(entry(), provider: "tmdb", key: key)
        try store.record(.miss, provider: "tmdb")
        func permissions(_ url: URL) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber).intValue
        }
        let http = root.appendingPathComponent("http")
        for folder in [root, http, http.appendingPathComponent("tmdb")] { #expect(try permissions(folder) == 0o700, "\(folder.path)") }
        for file in ["salt", "stats.json", ".lock", "tmdb/\(key).entry"] {
            #expect(try permissions(http.appendingPathComponent(file)) == 0o600, "\(file)")
        }
    }

    @Test func keysDependOnMethodURLHeadersAndCredentialButNameNone() throws {
        let store = HTTPCacheStore(root: root)
        let url = URL(string: "https://api.example.org/search?q=x")!
        let base = try store.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: .bearer("token-one-SECRET"))
        #expect(base.count == 64 && base.allSatisfy(\.isHexDigit))
        #expect(try store.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: .bearer("token-one-SECRET")) == base)
        let variants = [
            try store.key(method: "HEAD", url: url, headers: ["Accept": "application/json"], credential: .bearer("token-one-SECRET")),
            try store.key(method: "GET", url: URL(string: "https://api.example.org/search?q=y")!, headers: ["Accept": "application/json"], credential: .bearer("token-one-SECRET")),
            try store.key(method: "GET", url: url, headers: ["Accept": "text/html"], credential: .bearer("token-one-SECRET")),
            try store.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: .bearer("token-two-SECRET")),
            try store.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: .queryParameter(name: "api_key", value: "token-one-SECRET")),
            try store.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: nil),
        ]
        #expect(Set(variants + [base]).count == variants.count + 1)
        // Another cache (another salt) names the same request differently.
        let other = HTTPCacheStore(root: root.appendingPathComponent("other"))
        #expect(try other.key(method: "GET", url: url, headers: ["Accept": "application/json"], credential: .bearer("token-one-SECRET")) != base)
    }

    @Test func theLeastRecentlyUsedEntriesAreEvictedOverTheCap() throws {
        let size = entry(body: String(repeating: "x", count: 1000)).encoded().count
        let store = HTTPCacheStore(root: root, maxBytes: size * 2 + size / 2)
        let keys = try ["a", "b", "c"].map { try store.key(method: "GET", url: URL(string: "https://api.example.org/\($0)")!, headers: [:], credential: nil) }
        let folder = root.appendingPathComponent("http/tmdb")
        try store.write(entry(body: String(repeating: "x", count: 1000)), provider: "tmdb", key: keys[0])
        try store.write(entry(body: String(repeating: "x", count: 1000)), provider: "tmdb", key: keys[1])
        // `a` was stored first but used last: `b` is the least recently used.
        let past = Date(timeIntervalSinceNow: -60)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: folder.appendingPathComponent(keys[1] + ".entry").path)
        try FileManager.default.setAttributes([.modificationDate: past - 60], ofItemAtPath: folder.appendingPathComponent(keys[0] + ".entry").path)
        store.touch(provider: "tmdb", key: keys[0])
        try store.write(entry(body: String(repeating: "x", count: 1000)), provider: "tmdb", key: keys[2])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == [keys[0] + ".entry", keys[2] + ".entry"].sorted())
        #expect(store.statistics().first?.bytes == size * 2)
    }

    @Test func countsAndClearingArePerProvider() throws {
        let store = HTTPCacheStore(root: root)
        for provider in ["tmdb", "kiva"] {
            let key = try store.key(method: "GET", url: URL(string: "https://api.example.org/\(provider)")!, headers: [:], credential: nil)
            try store.write(entry(), provider: provider, key: key)
        }
        try store.record(.hit, provider: "tmdb")
        try store.record(.hit, provider: "tmdb")
        try store.record(.revalidated, provider: "tmdb")
        try store.record(.miss, provider: "kiva")
        let size = entry().encoded().count
        #expect(store.statistics() == [
            .init(provider: "kiva", entries: 1, bytes: size, misses: 1),
            .init(provider: "tmdb", entries: 1, bytes: size, hits: 2, revalidated: 1),
        ])
        #expect(try store.clear(provider: "tmdb") == (1, size))
        #expect(store.statistics() == [.init(provider: "kiva", entries: 1, bytes: size, misses: 1)])
        #expect(try store.clear() == (1, size))
        #expect(store.statistics().isEmpty)
    }

    @Test func aDamagedEntryIsRemovedWhenRead() throws {
        let store = HTTPCacheStore(root: root)
        let key = try store.key(method: "GET", url: URL(string: "https://api.example.org/a")!, headers: [:], credential: nil)
        try store.write(entry(), provider: "tmdb", key: key)
        let file = root.appendingPathComponent("http/tmdb/\(key).entry")
        try Data("half an entry".utf8).write(to: file)
        guard case .damaged(let reason) = store.read(provider: "tmdb", key: key) else {
            Issue.record("a damaged entry must be reported")
            return
        }
        #expect(reason == "it is not in the cache's format")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        guard case .missing = store.read(provider: "tmdb", key: key) else {
            Issue.record("then it is gone")
            return
        }
    }

    // MARK: Freshness

    func middleware(freshness: CacheFreshness = CacheFreshness(defaultSeconds: 300, operations: ["search": 600]), ttl: TimeInterval? = nil) -> HTTPCacheMiddleware {
        HTTPCacheMiddleware(
            settings: HTTPCacheSettings(root: root, ttlOverride: ttl), freshness: freshness, operation: "search", now: { Date() }, events: { _ in },
            log: HTTPCacheRunLog())
    }

    @Test func freshnessIsTheShorterOfTheProvidersTimeAndMaxAge() {
        let url = URL(string: "https://api.example.org/3/search/movie")!
        let base = URL(string: "https://api.example.org/3")!
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: nil).seconds == 600)
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: "public, max-age=60").seconds == 60)
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: "private, max-age=3600, s-maxage=60").seconds == 600)
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: "no-cache").seconds == 0)
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: "max-age=\"30\"").seconds == 30)
        // A run's TTL is not an entry's freshness: it judges entries as they are read (`judged`).
        #expect(middleware(ttl: 5).lifetime(for: url, baseURL: base, cacheControl: "no-cache").seconds == 0)
        #expect(middleware().lifetime(for: url, baseURL: base, cacheControl: "max-age=60").reason == "the response's max-age=60, shorter than the provider's 10 min for 'search'")
    }

    /// Sends two identical GETs through the cache step to a server answering with `headers`; returns how many
    /// reached the server and the cache's notes.
    func twice(answering headers: HTTPHeaders, method: String = "GET") async throws -> (sent: Int, notes: [String]) {
        let counter = FetchStatistics()
        let notes = Recorder<String>()
        let cache = HTTPCacheMiddleware(
            settings: HTTPCacheSettings(root: root), freshness: .standard, operation: nil, now: { Date() },
            events: { if case .cache(let note) = $0.kind { notes.append(note) } }, log: HTTPCacheRunLog())
        let chain = FetchChain([cache], transport: FakeTransport { _ in
            counter.record(bytes: 2)
            return HTTPResponse(status: 200, headers: headers, body: Data("{}".utf8))
        })
        let exchange = FetchExchange(provider: "test", origin: URL(string: "https://api.example.org")!)
        for _ in 0..<2 { _ = try await chain.send(HTTPRequest(method: method, url: URL(string: "https://api.example.org/x")!), exchange: exchange) }
        return (counter.snapshot().requests, notes.values)
    }

    @Test func whatTheServerForbidsOrCannotBeReusedIsNotStored() async throws {
        let stored = try await twice(answering: ["Cache-Control": "max-age=60"])
        #expect(stored.sent == 1)
        let cases: [(HTTPHeaders, String)] = [
            (["Cache-Control": "no-store"], "not stored: the response says Cache-Control: no-store"),
            (["Vary": "*"], "not stored: the response says Vary: *"),
            (["Cache-Control": "no-cache"], "not stored: not fresh for any time (the response says Cache-Control: no-cache) and no ETag or Last-Modified to revalidate with"),
        ]
        for (headers, note) in cases {
            try? FileManager.default.removeItem(at: root)
            let result = try await twice(answering: headers)
            #expect(result.sent == 2, "\(headers)")
            #expect(result.notes.contains(note), "\(result.notes)")
        }
        // no-cache with a validator: stored, and revalidated every time (this server ignores the condition).
        try? FileManager.default.removeItem(at: root)
        let revalidated = try await twice(answering: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
        #expect(revalidated.sent == 2)
        #expect(revalidated.notes.contains { $0.hasPrefix("stale for ") && $0.hasSuffix("revalidating with If-None-Match \"v1\"") })
        #expect(revalidated.notes.contains("changed on the server: HTTP 200 rather than 304"))
        // Only GETs are cached.
        try? FileManager.default.removeItem(at: root)
        #expect(try await twice(answering: ["Cache-Control": "max-age=60"], method: "HEAD").sent == 2)
    }

    @Test func anAPIThatSendsOnlyLastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        // A server with GitHub's validators and Cache-Control, answering through the sandbox's conditional logic.
        let conditional = SandboxConditional()
        let caching = APICaching(validators: .lastModified, cacheControl: "private, max-age=60")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Recorder<Date>()
        clock.append(start)
        let sent = Recorder<HTTPRequest>()
        let transport = FakeTransport { request in
            sent.append(request)
            let answer = conditional.apply(
                caching, request: SandboxRequest(method: request.method, url: request.url, headers: request.headers),
                response: .json(["name": "aggregate"]), now: clock.values.last!)
            return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body, url: request.url)
        }
        let cache = HTTPCacheMiddleware(
            settings: HTTPCacheSettings(root: root), freshness: CacheFreshness(defaultSeconds: 300), operation: nil,
            now: { clock.values.last! }, events: { _ in }, log: HTTPCacheRunLog())
        let chain = FetchChain([cache], transport: transport)
        let exchange = FetchExchange(provider: "github", origin: URL(string: "https://api.github.com")!)
        let request = HTTPRequest(method: "GET", url: URL(string: "https://api.github.com/users/octocat/repos")!)

        let first = try await chain.send(request, exchange: exchange)
        clock.append(start + 59)
        #expect(try await chain.send(request, exchange: exchange) == first, "fresh for max-age=60, shorter than 300 s")
        #expect(sent.values.count == 1)
        clock.append(start + 61)
        let revalidated = try await chain.send(request, exchange: exchange)
        #expect(sent.values.count == 2)
        #expect(sent.values.last?.headers["If-Modified-Since"] == HTTPDate.format(start))
        #expect(sent.values.last?.headers["If-None-Match"] == nil)
        #expect(revalidated.status == 200 && revalidated.body == first.body)
        clock.append(start + 61 + 59)
        _ = try await chain.send(request, exchange: exchange)
        #expect(sent.values.count == 2, "the 304 renewed the answer for another 60 s")
    }

    @Test func aRunIsFromTheCacheOnlyWhenNothingWentToTheServer() async throws {
        let transport = FakeTransport { request in HTTPResponse(status: 200, headers: ["ETag": "\"1\""], body: Data("{}".utf8), url: request.url) }
        let exchange = FetchExchange(provider: "test", origin: URL(string: "https://api.example.org")!)
        let get = HTTPRequest(method: "GET", url: URL(string: "https://api.example.org/config")!)
        let post = HTTPRequest(method: "POST", url: URL(string: "https://api.example.org/graphql")!, body: Data("{}".utf8))
        func run(_ requests: [HTTPRequest]) async throws -> (DataSource, String?) {
            let log = HTTPCacheRunLog()
            let cache = HTTPCacheMiddleware(
                settings: HTTPCacheSettings(root: root), freshness: .standard, operation: nil, now: { Date() }, events: { _ in }, log: log)
            for request in requests { _ = try await FetchChain([cache], transport: transport).send(request, exchange: exchange) }
            return (log.source(otherwise: .live), log.summary(otherwise: .live))
        }
        #expect(try await run([get]) == (.live, "source: live (1 answer from the server)"))
        #expect(try await run([get]) == (.cache, "source: cache (1 answer fresh from the cache, none from the server)"))
        #expect(try await run([get, post]) == (.live, "source: live (1 answer fresh from the cache, 1 answer from the server)"), "a GraphQL read is a POST: sent")
        #expect(try await run([post]) == (.live, nil), "a run of POSTs alone never met the cache")
    }

    @Test func endpointsWinOverOperationsAndMatchWholeSegments() {
        let freshness = CacheFreshness(defaultSeconds: 300, operations: ["search": 600], endpoints: [.init("/configuration", seconds: 86_400)])
        let base = URL(string: "https://api.themoviedb.org/3")!
        #expect(freshness.lifetime(for: URL(string: "https://api.themoviedb.org/3/configuration")!, baseURL: base, operation: "search").seconds == 86_400)
        #expect(freshness.lifetime(for: URL(string: "https://api.themoviedb.org/3/configuration/countries")!, baseURL: base, operation: "search").seconds == 86_400)
        #expect(freshness.lifetime(for: URL(string: "https://api.themoviedb.org/3/configurations")!, baseURL: base, operation: "search").seconds == 600)
        #expect(freshness.lifetime(for: URL(string: "https://api.themoviedb.org/3/movie/1")!, baseURL: base, operation: "movie").seconds == 300)
    }

    // MARK: The sandbox's conditional answers

    @Test func theSandboxAnswersIfNoneMatchWith304() {
        let conditional = SandboxConditional()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let answer = SandboxResponse.json(["a": 1])
        let first = conditional.apply(.etag, request: SandboxRequest(method: "GET", path: "/x"), response: answer, now: now)
        let etag = try! #require(first.headers["ETag"])
        #expect(first.status == 200 && first.body == answer.body && first.headers["Last-Modified"] == nil)
        for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let again = conditional.apply(.etag, request: SandboxRequest(method: "GET", path: "/x", headers: ["If-None-Match": condition]), response: answer, now: now)
            #expect(again.status == 304 && again.body.isEmpty && again.headers["ETag"] == etag, "\(condition)")
        }
        let changed = conditional.apply(
            .etag, request: SandboxRequest(method: "GET", path: "/x", headers: ["If-None-Match": etag]), response: .json(["a": 2]), now: now)
        #expect(changed.status == 200 && changed.headers["ETag"] != etag)
        let post = conditional.apply(.etag, request: SandboxRequest(method: "POST", path: "/x", headers: ["If-None-Match": "*"]), response: answer, now: now)
        #expect(post == answer, "only GET answers are conditional")
        let failure = SandboxResponse.json(["error": "no"], status: 404)
        #expect(conditional.apply(.etag, request: SandboxRequest(method: "GET", path: "/x"), response: failure, now: now) == failure)
    }

    @Test func theSandboxAnswersIfModifiedSinceFromWhenItFirstServedTheBody() {
        let conditional = SandboxConditional()
        let caching = APICaching(validators: .lastModified, cacheControl: "private, max-age=60")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let request = SandboxRequest(method: "GET", path: "/repos")
        let first = conditional.apply(caching, request: request, response: .json(["v": 1]), now: start)
        #expect(first.headers["Last-Modified"] == HTTPDate.format(start))
        #expect(first.headers["ETag"] == nil)
        #expect(first.headers["Cache-Control"] == "private, max-age=60")
        var asking = request
        asking.headers["If-Modified-Since"] = HTTPDate.format(start)
        let same = conditional.apply(caching, request: asking, response: .json(["v": 1]), now: start + 100)
        #expect(same.status == 304 && same.headers["Cache-Control"] == "private, max-age=60")
        let changed = conditional.apply(caching, request: asking, response: .json(["v": 2]), now: start + 200)
        #expect(changed.status == 200 && changed.headers["Last-Modified"] == HTTPDate.format(start + 200))
        let none = conditional.apply(APICaching(validators: .none), request: asking, response: .json(["v": 2]), now: start)
        #expect(none.status == 200 && none.headers["ETag"] == nil && none.headers["Last-Modified"] == nil)
    }
}
