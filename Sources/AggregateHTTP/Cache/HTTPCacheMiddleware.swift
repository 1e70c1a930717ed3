public import AggregateCore
import AggregateJSON
public import Foundation

/// How a run uses the disk cache (`--refresh`, `--cache-ttl`); no settings at all means no cache (`--no-cache`,
/// `--offline`, and library runs that do not ask for one).
public struct HTTPCacheSettings: Sendable, Equatable {
    /// Whether fresh entries may answer.
    public enum Mode: Sendable, Equatable {
        /// Fresh entries answer; stale ones are revalidated.
        case normal
        /// Every entry is revalidated (or refetched when it cannot be), however fresh (`--refresh`).
        case refresh
    }

    /// The cache root (``CacheLocation/root(environment:)``); entries live in its `http/` folder.
    public var root: URL
    /// Fresh entries answer, or everything is asked again.
    public var mode: Mode
    /// Seconds every answer stays fresh in this run, replacing the provider's and the response's (`--cache-ttl`).
    /// It judges entries as this run reads them; entries keep the provider's and the API's freshness, so the next
    /// run without it is not bound by it.
    public var ttlOverride: TimeInterval?
    /// The size cap of all entries.
    public var maxBytes: Int

    /// Creates settings.
    public init(root: URL, mode: Mode = .normal, ttlOverride: TimeInterval? = nil, maxBytes: Int = HTTPCacheStore.defaultMaxBytes) {
        self.root = root
        self.mode = mode
        self.ttlOverride = ttlOverride
        self.maxBytes = maxBytes
    }
}

/// What the cache did during one run, to tell `meta.source`.
public final class HTTPCacheRunLog: @unchecked Sendable {
    private let lock = NSLock()
    private var hits = 0
    private var revalidations = 0
    private var sent = 0
    /// Requests that are not GETs: never cached, but sent, so the run's answers are not all from the cache.
    private var uncacheable = 0
    private var warnedAboutWriting = false

    /// Creates an empty log.
    public init() {}

    func record(_ outcome: HTTPCacheOutcome) {
        lock.lock()
        defer { lock.unlock() }
        switch outcome {
        case .hit: hits += 1
        case .revalidated: revalidations += 1
        case .miss: sent += 1
        }
    }

    func recordUncacheable() {
        lock.lock()
        uncacheable += 1
        lock.unlock()
    }

    /// True the first time only: one warning per run about a cache that cannot be written is enough.
    func firstWriteFailure() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { warnedAboutWriting = true }
        return !warnedAboutWriting
    }

    /// What the run's `meta.source` is and why, for `--verbose`, e.g. `source: cache (2 answers fresh from the
    /// cache, none from the server)`; `nil` when nothing went through the cache.
    public func summary(otherwise live: DataSource) -> String? {
        let source = self.source(otherwise: live)
        lock.lock()
        defer { lock.unlock() }
        // Runs of POSTs alone (GraphQL) never met the cache: nothing to tell.
        guard hits + revalidations + sent > 0 else { return nil }
        let sent = self.sent + uncacheable
        func answers(_ count: Int) -> String { count == 1 ? "1 answer" : "\(count) answers" }
        let parts = [
            hits > 0 ? "\(answers(hits)) fresh from the cache" : nil,
            revalidations > 0 ? "\(answers(revalidations)) confirmed with 304" : nil,
            sent > 0 ? "\(answers(sent)) from the server" : "none from the server",
        ].compactMap { $0 }
        return "source: \(source.rawValue) (\(parts.joined(separator: ", ")))"
    }

    /// `cache` when every response came fresh from the cache, `revalidated` when the rest were confirmed with 304,
    /// else `live` (any response from the server, or none at all).
    public func source(otherwise live: DataSource) -> DataSource {
        lock.lock()
        defer { lock.unlock() }
        if sent + uncacheable > 0 || hits + revalidations == 0 { return live }
        return revalidations > 0 ? .revalidated : .cache
    }
}

/// The revalidating disk cache, as the first step of the fetch chain (it sees each request before any other step
/// spends anything on it, and a hit goes no further).
///
/// For GET requests only:
/// - A fresh entry answers with no request.
/// - A stale one (or any, with `--refresh`) that has an `ETag` or `Last-Modified` is revalidated with
///   `If-None-Match` / `If-Modified-Since`; a `304` reuses the stored body and renews its freshness.
/// - A `200` is stored when it can be of use: fresh for a while, or revalidatable.
///
/// Freshness is the provider's ``CacheFreshness`` for the request, or the response's `Cache-Control: max-age`,
/// whichever is shorter (`no-cache` makes it 0; `no-store` keeps it out of the cache). That is what an entry stores;
/// `--cache-ttl` replaces it only in the run that gives it, when entries are read.
/// A damaged entry is removed with one warning and fetched again. A response that repeats a credential is not stored.
public struct HTTPCacheMiddleware: FetchMiddleware {
    let store: any HTTPCacheStoring
    let settings: HTTPCacheSettings
    let freshness: CacheFreshness
    let operation: String?
    let now: @Sendable () -> Date
    let events: @Sendable (FetchEvent) -> Void
    let log: HTTPCacheRunLog

    /// Creates the cache step for one run of `operation` of a provider declaring `freshness`; the entries live in
    /// `store`, or on disk under `settings.root` when it is `nil`.
    public init(
        settings: HTTPCacheSettings, freshness: CacheFreshness, operation: String?, now: @escaping @Sendable () -> Date,
        events: @escaping @Sendable (FetchEvent) -> Void, log: HTTPCacheRunLog, store: (any HTTPCacheStoring)? = nil
    ) {
        self.store = store ?? HTTPCacheStore(root: settings.root, maxBytes: settings.maxBytes)
        self.settings = settings
        self.freshness = freshness
        self.operation = operation
        self.now = now
        self.events = events
        self.log = log
    }

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let provider = exchange.provider
        guard request.method.uppercased() == "GET" else {
            let response = try await next(request, exchange)
            log.recordUncacheable()
            if Self.changesServer(request, exchange: exchange), response.isSuccess { forgetAnswers(of: provider) }
            return response
        }
        let shown = exchange.redactor.redact(request.url.absoluteString)
        let key: String
        do {
            key = try store.key(method: request.method, url: request.url, headers: request.headers, credential: exchange.credential)
        } catch {
            warnWriteFailure(error, provider: provider)
            return try await next(request, exchange)
        }

        var stored: HTTPCacheEntry?
        let lookup: HTTPCacheLookup
        do {
            lookup = try store.read(provider: provider, key: key)
        } catch {
            // A store that cannot be read is a miss: the run goes on without it, with one warning.
            warnWriteFailure(error, provider: provider)
            lookup = .missing
        }
        switch lookup {
        case .found(let entry):
            stored = entry
        case .missing: note("miss: nothing stored for GET \(shown)", provider)
        case .damaged(let reason):
            events(FetchEvent(provider: provider, kind: .warning("discarded a damaged cache entry (\(reason)); fetching it again")))
        }

        let clock = now()
        var conditional = request
        if let entry = stored {
            let age = Self.seconds(clock.timeIntervalSince(entry.storedAt))
            let (freshUntil, reason) = judged(entry)
            if settings.mode == .normal, clock < freshUntil {
                note("fresh: stored \(age) ago, fresh for \(Self.seconds(freshUntil.timeIntervalSince(clock))) more (\(reason)); no request sent for GET \(shown)", provider)
                try? store.touch(provider: provider, key: key)
                count(.hit, provider: provider)
                return entry.response(for: request.url)
            }
            let why = settings.mode == .refresh ? "--refresh" : "stale for \(Self.seconds(clock.timeIntervalSince(freshUntil)))"
            if entry.canRevalidate {
                if let etag = entry.etag { conditional.headers["If-None-Match"] = etag }
                if let lastModified = entry.lastModified { conditional.headers["If-Modified-Since"] = lastModified }
                let validators = [entry.etag.map { "If-None-Match \($0)" }, entry.lastModified.map { "If-Modified-Since \($0)" }].compactMap { $0 }
                note("\(why): revalidating with \(validators.joined(separator: " and "))", provider)
            } else {
                note("\(why), and no ETag or Last-Modified to revalidate with: fetching again", provider)
            }
        }

        let response = try await next(conditional, exchange)
        let answered = now()
        if response.status == 304, let entry = stored, conditional.headers["If-None-Match"] != nil || conditional.headers["If-Modified-Since"] != nil {
            var renewed = entry
            for name in ["ETag", "Last-Modified", "Cache-Control", "Expires", "Date"] {
                if let value = response.headers[name] { renewed.headers[name] = value }
            }
            let lifetime = self.lifetime(for: request.url, baseURL: exchange.origin, cacheControl: renewed.headers["Cache-Control"])
            renewed.storedAt = answered
            renewed.freshUntil = answered.addingTimeInterval(lifetime.seconds)
            renewed.freshnessReason = lifetime.reason
            note("not modified (304): reusing the stored body, now fresh for \(describe(lifetime))", provider)
            save(renewed, provider: provider, key: key)
            count(.revalidated, provider: provider)
            return renewed.response(for: request.url)
        }
        count(.miss, provider: provider)
        guard response.status == 200 else { return response }
        if stored?.canRevalidate == true { note("changed on the server: HTTP 200 rather than 304", provider) }
        store(response, url: request.url, shown: shown, exchange: exchange, key: key, at: answered)
        return response
    }

    // MARK: Writes

    /// Whether `request` may change what the server answers: a write (a POST that is not a read such as a GraphQL
    /// query), or PUT, PATCH, DELETE.
    static func changesServer(_ request: HTTPRequest, exchange: FetchExchange) -> Bool {
        ["PUT", "PATCH", "DELETE"].contains(request.method.uppercased()) || (request.method.uppercased() != "HEAD" && !exchange.isIdempotent)
    }

    /// Drops the provider's stored answers after a successful write, so the next read shows what the write changed
    /// (stricter than RFC 9111's invalidation of the one URL, which would miss lists that include the new item).
    private func forgetAnswers(of provider: String) {
        do {
            let removed = try store.clear(provider: provider, keepingCounts: true)
            if removed.entries > 0 { note("a write succeeded: dropped \(removed.entries) stored answers of \(provider)", provider) }
        } catch {
            warnWriteFailure(error, provider: provider)
        }
    }

    // MARK: Storing

    /// Header fields never kept: credentials, cookies, and the connection's own.
    private static let droppedHeaders: Set<String> = Redactor.sensitiveHeaderNames.union(["connection", "keep-alive", "transfer-encoding"])

    private func store(_ response: HTTPResponse, url: URL, shown: String, exchange: FetchExchange, key: String, at answered: Date) {
        let provider = exchange.provider
        let directives = Self.directives(response.headers["Cache-Control"])
        if directives["no-store"] != nil {
            note("not stored: the response says Cache-Control: no-store", provider)
            return
        }
        if response.headers["Vary"]?.contains("*") == true {
            note("not stored: the response says Vary: *", provider)
            return
        }
        var redactor = exchange.redactor
        if let secret = exchange.credential?.secret, !redactor.secrets.contains(secret) { redactor = redactor.adding([secret]) }
        let headers = HTTPHeaders(response.headers.fields.filter { !Self.droppedHeaders.contains($0.name.lowercased()) })
        if headers.contains(where: { redactor.containsSecret($0.value) }) || redactor.containsSecret(response.text) {
            note("not stored: the response repeats a credential", provider)
            return
        }
        let lifetime = self.lifetime(for: url, baseURL: exchange.origin, cacheControl: response.headers["Cache-Control"])
        let entry = HTTPCacheEntry(
            url: shown, status: response.status, headers: headers, body: response.body, storedAt: answered,
            freshUntil: answered.addingTimeInterval(lifetime.seconds), freshnessReason: lifetime.reason)
        // A run's TTL above 0 keeps even an answer the API gives no freshness, for the next runs with that TTL.
        guard lifetime.seconds > 0 || entry.canRevalidate || (settings.ttlOverride ?? 0) > 0 else {
            note("not stored: not fresh for any time (\(lifetime.reason)) and no ETag or Last-Modified to revalidate with", provider)
            return
        }
        note("stored: fresh for \(describe(lifetime))", provider)
        save(entry, provider: provider, key: key)
    }

    private func save(_ entry: HTTPCacheEntry, provider: String, key: String) {
        do {
            try store.write(entry, provider: provider, key: key)
        } catch {
            warnWriteFailure(error, provider: provider)
        }
    }

    /// How long an answer to `url` stays fresh, and why, as its entry stores it: the shorter of the provider's time
    /// and the response's `max-age` (`no-cache`: none). `--cache-ttl` is not part of it (see ``judged(_:)``).
    func lifetime(for url: URL, baseURL: URL, cacheControl: String?) -> (seconds: TimeInterval, reason: String) {
        let declared = freshness.lifetime(for: url, baseURL: baseURL, operation: operation)
        let directives = Self.directives(cacheControl)
        if directives["no-cache"] != nil { return (0, "the response says Cache-Control: no-cache") }
        if let text = directives["max-age"] ?? nil, let maxAge = Int(text), maxAge >= 0, TimeInterval(maxAge) < declared.seconds {
            return (TimeInterval(maxAge), "the response's max-age=\(maxAge), shorter than \(declared.reason)")
        }
        return declared
    }

    /// Until when this run takes `entry` as fresh, and why: the entry's own freshness, or `--cache-ttl` from when
    /// it was stored. The one place a run's TTL applies, so no entry ever stores it.
    func judged(_ entry: HTTPCacheEntry) -> (freshUntil: Date, reason: String) {
        guard let override = settings.ttlOverride else { return (entry.freshUntil, entry.freshnessReason) }
        return (entry.storedAt.addingTimeInterval(override), Self.runTTLReason(override))
    }

    /// `600 s (the provider's 10 min for 'search')`, as a stored lifetime reads in this run's notes; with
    /// `--cache-ttl`, this run's time first, then what the entry keeps for later runs.
    func describe(_ lifetime: (seconds: TimeInterval, reason: String)) -> String {
        let stored = "\(Self.seconds(lifetime.seconds)) (\(lifetime.reason))"
        guard let override = settings.ttlOverride else { return stored }
        return "\(Self.seconds(override)) (\(Self.runTTLReason(override))); stored as fresh for \(stored)"
    }

    static func runTTLReason(_ ttl: TimeInterval) -> String { "the run's cache TTL of \(CacheFreshness.describe(ttl))" }

    /// `Cache-Control`'s directives by lower-case name, with their values (quotes removed) if any.
    static func directives(_ header: String?) -> [String: String?] {
        guard let header else { return [:] }
        var directives: [String: String?] = [:]
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            directives[name] = pieces.count > 1 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil as String?
        }
        return directives
    }

    // MARK: Telling

    private func count(_ outcome: HTTPCacheOutcome, provider: String) {
        log.record(outcome)
        do {
            try store.record(outcome, provider: provider)
        } catch {
            warnWriteFailure(error, provider: provider)
        }
    }

    private func note(_ message: String, _ provider: String) { events(FetchEvent(provider: provider, kind: .cache(message))) }

    private func warnWriteFailure(_ error: any Error, provider: String) {
        guard log.firstWriteFailure() else { return }
        let reason = (error as? AggregateError)?.message ?? "\(error)"
        events(FetchEvent(provider: provider, kind: .warning("the cache cannot be used (\(reason)); continuing without it. Use --no-cache to silence this")))
    }

    static func seconds(_ value: TimeInterval) -> String {
        let whole = max(0, value)
        return whole < 10 ? String(format: "%.1f s", whole) : "\(Int(whole.rounded())) s"
    }
}
