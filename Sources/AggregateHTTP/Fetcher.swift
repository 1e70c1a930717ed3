public import AggregateCore
import AggregateJSON
public import Foundation

/// Settings of the shared fetch layer for one run. (The item limit is part of the ``Query``.)
public struct FetchOptions: Sendable {
    /// Seconds one HTTP exchange may take (`--timeout`).
    public var timeout: TimeInterval
    /// The largest response body accepted.
    public var maxResponseBytes: Int
    /// The most pages read in one run, whatever the API says.
    public var maxPages: Int
    /// The most numbered pages fetched at once when a provider allows concurrent paging.
    public var maxConcurrentPages: Int
    /// When and how to retry.
    public var retry: RetryPolicy
    /// Waits; replaced in tests to run retries without real waiting.
    public var sleep: @Sendable (TimeInterval) async throws -> Void
    /// The clock.
    public var now: @Sendable () -> Date
    /// Receives progress and trace events (for `--verbose` and progress lines).
    public var events: @Sendable (FetchEvent) -> Void
    /// Steps that run before the standard ones (retry, redirect, events, size cap, deadline) on every exchange,
    /// e.g. a cache, a rate limiter or a recorder. Empty by default.
    public var middlewares: [any FetchMiddleware] = []
    /// Steps that see every attempt and every redirect hop, after retry and redirect and before the events, size
    /// cap and deadline: the rate limiter (a wait there is not counted against the timeout). Empty by default.
    public var attemptMiddlewares: [any FetchMiddleware] = []
    /// Steps next to the transport, after the deadline: what really goes over the wire (the recorder, or the
    /// replayer that answers instead of the transport). Empty by default.
    public var wireMiddlewares: [any FetchMiddleware] = []
    /// Whether plain `http://` may go to hosts other than this machine (`--allow-http`); see ``PlainHTTP``.
    /// Off by default: such requests are refused before anything is sent. When on, each run warns once.
    public var allowHTTP = false
    /// Whether results keep every page's raw body (for `--raw`); without it only the parsed items stay in memory.
    public var keepsRawBodies: Bool

    /// Creates options with the documented defaults.
    public init(
        timeout: TimeInterval = 15, maxResponseBytes: Int = 32 << 20, maxPages: Int = 50,
        maxConcurrentPages: Int = 4, retry: RetryPolicy = RetryPolicy(),
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { seconds in
            try await Task.sleep(nanoseconds: Nanoseconds.from(seconds: seconds))
        },
        now: @escaping @Sendable () -> Date = { Date() },
        events: @escaping @Sendable (FetchEvent) -> Void = { _ in },
        keepsRawBodies: Bool = true
    ) {
        self.keepsRawBodies = keepsRawBodies
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.maxPages = maxPages
        self.maxConcurrentPages = maxConcurrentPages
        self.retry = retry
        self.sleep = sleep
        self.now = now
        self.events = events
    }
}

/// Something that happened during a run, for traces and progress displays. URLs are already redacted.
public struct FetchEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A request is about to be sent.
        case request(method: String, url: String, attempt: Int)
        /// A response arrived.
        case response(status: Int, bytes: Int, milliseconds: Double)
        /// Page `number` is being fetched.
        case fetchingPage(number: Int)
        /// A page was read: the run has now read `pages` pages holding `items` distinct items (for progress lines).
        case pageRead(pages: Int, items: Int)
        /// A retry will happen after a wait.
        case retrying(afterSeconds: Double, reason: String, retry: Int, of: Int)
        /// The rate limiter holds the next request for this many seconds, to keep to `budget` (e.g. `60 requests a minute`).
        case waitingForRateLimit(seconds: Double, budget: String)
        /// Something worth telling even without `--verbose`, e.g. paging stopped by a guard.
        case warning(String)
        /// What the disk cache did with a request and why (for `--verbose`).
        case cache(String)
        /// The run finished with this many items.
        case finished(items: Int)
        /// The run failed.
        case failed(String)
    }

    /// The provider's name.
    public var provider: String
    /// What happened.
    public var kind: Kind

    /// Creates an event.
    public init(provider: String, kind: Kind) {
        self.provider = provider
        self.kind = kind
    }
}

/// The shared fetch layer: runs one provider invocation from the first request to normalized items.
///
/// It pages until the limit is reached or the API has no next page (guarding against a repeated cursor, an
/// identical page and too many pages), retries per ``RetryPolicy``, bounds each exchange by the timeout and
/// the size cap, follows redirects itself so that credentials go only to the provider's own host, and
/// redacts every message it produces.
public struct Fetcher: Sendable {
    /// Sends the requests.
    public var transport: any HTTPTransport
    /// Limits and hooks.
    public var options: FetchOptions
    /// Whether `transport` is the live network or the sandbox.
    public var source: DataSource
    /// Shared between invocations of one run.
    public var cache: RunCache

    /// Creates a fetcher.
    public init(transport: any HTTPTransport, options: FetchOptions = FetchOptions(), source: DataSource = .live, cache: RunCache = RunCache()) {
        self.transport = transport
        self.options = options
        self.source = source
        self.cache = cache
    }

    /// Runs `provider` for `query` and returns its result; never throws (failures are in `result.error`).
    public func run(_ provider: any RunnableProvider, query initialQuery: Query) async -> ProviderResult {
        let name = provider.descriptor.name
        let started = Date()
        let stats = FetchStatistics()
        var query = initialQuery
        query.source = source
        query.now = options.now()
        let redactor = Self.redactor(for: provider, query: query)
        let run = Run(fetcher: self, provider: provider, stats: stats, redactor: redactor)
        var collected = Collected(keepsRawBodies: options.keepsRawBodies)
        var failure: AggregateError?
        if options.allowHTTP, PlainHTTP.leavesThisMachine(query.baseURL) {
            options.events(FetchEvent(provider: name, kind: .warning(PlainHTTP.warning(host: query.baseURL.host ?? "?"))))
        }
        do {
            try provider.configure(&query)
            let configured = query
            let client = FetchClient(cache: cache) { spec in try await run.exchange(spec, query: configured) }
            try await provider.resolve(&query, using: client)
            try await run.pages(query: query, into: &collected)
        } catch {
            failure = run.normalizedError(error)
        }
        let elapsed = Date().timeIntervalSince(started) * 1000
        let counted = stats.snapshot()
        let meta = ResultMeta(
            source: source, requests: counted.requests, pages: collected.pages, bytes: counted.bytes,
            elapsedMs: elapsed, totalCount: collected.totalCount, nextCursor: failure == nil ? collected.nextCursor.map(redactor.redactSecrets) : nil)
        if let failure {
            options.events(FetchEvent(provider: name, kind: .failed(failure.message)))
        } else {
            options.events(FetchEvent(provider: name, kind: .finished(items: collected.items.count)))
        }
        return ProviderResult(
            provider: name, operation: query.operation, query: query.parameters,
            items: failure == nil ? collected.items.prefix(query.limit).map(redactor.redactSecrets(in:)) : [], error: failure, meta: meta,
            rawBodies: collected.rawBodies, explicitLimit: query.isLimitExplicit ? query.limit : nil, parseNotes: collected.parseNotes)
    }

    /// The redactor for a run: every credential variable the provider declares, plus any credential it attaches.
    public static func redactor(for provider: any RunnableProvider, query: Query) -> Redactor {
        let names = provider.descriptor.auth.map(\.name)
        return Redactor(secrets: names.compactMap { query.environment[$0] })
    }
}

// MARK: - One run

/// What a run has gathered so far.
private struct Collected {
    var keepsRawBodies: Bool
    var items: [Item] = []
    var seenIDs: Set<String> = []
    var rawBodies: [Data] = []
    var parseNotes = JSONParseNotes()
    var pages = 0
    var totalCount: Int?
    var nextCursor: String?

    /// Adds items not seen before; returns their ids in page order.
    mutating func add(_ page: Page, body: Data, notes: JSONParseNotes) -> [String] {
        pages += 1
        if keepsRawBodies { rawBodies.append(body) }
        parseNotes.replacedSurrogates += notes.replacedSurrogates
        if totalCount == nil { totalCount = page.totalCount }
        for item in page.items where seenIDs.insert(item.id).inserted {
            items.append(item)
        }
        return page.items.map(\.id)
    }
}

private struct Run: Sendable {
    let fetcher: Fetcher
    let provider: any RunnableProvider
    let stats: FetchStatistics
    let redactor: Redactor

    /// The run's fetch chain: the caller's middlewares, retry (with the provider's own wait), redirect, events,
    /// size cap and deadline.
    var chain: FetchChain {
        let provider = provider
        return FetchChain.standard(fetcher.transport, options: options, statistics: stats) { provider.retryDelay(for: $0, now: $1) }
    }

    var name: String { provider.descriptor.name }
    var options: FetchOptions { fetcher.options }

    func emit(_ kind: FetchEvent.Kind) { options.events(FetchEvent(provider: name, kind: kind)) }

    // MARK: Paging

    func pages(query: Query, into collected: inout Collected) async throws {
        var cursor: String?
        var seenCursors: Set<String> = []
        var previousIDs: [String] = []
        while true {
            emit(.fetchingPage(number: collected.pages + 1))
            let spec = try provider.request(for: query, cursor: cursor, remaining: max(1, query.limit - collected.items.count))
            let response = try await exchange(spec, query: query)
            let (page, notes) = try read(response, query: query)
            let ids = collected.add(page, body: response.body, notes: notes)
            emit(.pageRead(pages: collected.pages, items: collected.items.count))
            if collected.items.count >= query.limit {
                collected.nextCursor = Self.describe(page.next)
                return
            }
            if !ids.isEmpty, ids == previousIDs {
                emit(.warning("stopped paging: page \(collected.pages) repeated the previous page"))
                return
            }
            previousIDs = ids
            switch page.next {
            case nil:
                return
            case .cursor(let next):
                guard seenCursors.insert(next).inserted, next != cursor else {
                    emit(.warning("stopped paging: the API returned the cursor \(redactor.redact(next)) twice"))
                    return
                }
                guard collected.pages < options.maxPages else {
                    emit(.warning("stopped paging after \(options.maxPages) pages (the page limit)"))
                    collected.nextCursor = next
                    return
                }
                cursor = next
            case .numberedPages(let current, let total, let pageSize):
                try await numberedPages(after: current, total: total, pageSize: pageSize, query: query, into: &collected)
                return
            }
        }
    }

    /// Fetches the numbered pages still needed for the limit, at most `maxConcurrentPages` at once, in page order.
    /// When duplicates dropped across pages leave the run short, the next batch fills the gap.
    private func numberedPages(after first: Int, total: Int, pageSize: Int, query: Query, into collected: inout Collected) async throws {
        var current = first
        while collected.items.count < query.limit {
            let wanted = query.limit - collected.items.count
            let needed = Int((Double(wanted) / Double(max(1, pageSize))).rounded(.up))
            let last = min(total, current + needed, options.maxPages)
            guard last > current else { break }
            try await numberedBatch((current + 1)...last, pageSize: pageSize, query: query, into: &collected)
            current = last
        }
        if current < total, collected.items.count >= query.limit { collected.nextCursor = String(current + 1) }
    }

    /// Fetches the pages `numbers` concurrently and adds them in page order.
    private func numberedBatch(_ range: ClosedRange<Int>, pageSize: Int, query: Query, into collected: inout Collected) async throws {
        let numbers = Array(range)
        var results: [Int: (HTTPResponse, (page: Page, notes: JSONParseNotes))] = [:]
        try await withThrowingTaskGroup(of: (Int, HTTPResponse, (page: Page, notes: JSONParseNotes)).self) { group in
            var iterator = numbers.makeIterator()
            func startNext() {
                guard let number = iterator.next() else { return }
                group.addTask {
                    emit(.fetchingPage(number: number))
                    let spec = try provider.request(for: query, cursor: String(number), remaining: pageSize)
                    let response = try await exchange(spec, query: query)
                    return (number, response, try read(response, query: query))
                }
            }
            for _ in 0..<min(options.maxConcurrentPages, numbers.count) { startNext() }
            while let (number, response, page) = try await group.next() {
                results[number] = (response, page)
                startNext()
            }
        }
        for number in numbers {
            guard let (response, read) = results[number] else { continue }
            _ = collected.add(read.page, body: response.body, notes: read.notes)
            emit(.pageRead(pages: collected.pages, items: collected.items.count))
        }
    }

    private static func describe(_ next: Page.Next?) -> String? {
        switch next {
        case .cursor(let cursor)?: return cursor
        case .numberedPages(let current, let total, _)? where current < total: return String(current + 1)
        default: return nil
        }
    }

    /// The page in `response`, and what parsing its body had to repair (for `--verbose`).
    private func read(_ response: HTTPResponse, query: Query) throws -> (page: Page, notes: JSONParseNotes) {
        do {
            let (page, notes) = try JSONParseNotes.collecting { try provider.normalize(response, for: query) }
            return (page, notes)
        } catch let error as AggregateError {
            throw error
        } catch {
            throw AggregateError(.decoding, "the response could not be read: \(error)", httpStatus: response.status)
        }
    }

    // MARK: One request, with retries

    /// Sends `spec` through the chain, returning a successful response or throwing the provider's error.
    func exchange(_ spec: HTTPRequestSpec, query: Query) async throws -> HTTPResponse {
        let request = HTTPRequest(
            method: spec.method, url: spec.url, headers: spec.headers, body: spec.body, timeout: options.timeout,
            maxResponseBytes: options.maxResponseBytes)
        let exchange = FetchExchange(
            provider: name, origin: query.baseURL, credential: spec.credential, isIdempotent: spec.isIdempotent, redactor: redactor)
        let response: HTTPResponse
        do {
            response = try await chain.send(request, exchange: exchange)
        } catch let failure as FetchAttemptsError {
            throw interrupted(failure.error, spec: spec, attempt: failure.attempts, query: query)
        }
        guard response.isSuccess else { throw provider.error(for: response, query: query) }
        return response
    }

    private func interrupted(_ error: AggregateError, spec: HTTPRequestSpec, attempt: Int, query: Query) -> AggregateError {
        var final = error
        if !spec.isIdempotent, error.requestMayHaveBeenSent {
            let descriptor = provider.descriptor
            let check = descriptor.operations.first { !$0.writes }.map { " Check with 'aggregate \(descriptor.name) \($0.name)'." } ?? ""
            let what = error.kind == .timeout ? error.message : "the connection failed after the request was sent (\(error.message))"
            final.message = "\(what), so \(provider.interruptedWriteOutcome(for: query)); it was not retried.\(check)"
        } else if !spec.isIdempotent {
            // The connection never opened: unlike a failure after sending, the outcome is certain.
            final.message += "; nothing was sent"
        } else if attempt > 1 {
            final.message += " (after \(attempt) attempts)"
        }
        return final
    }

    // MARK: Errors

    /// Any error as an ``AggregateError`` for this provider, with secrets removed.
    func normalizedError(_ error: any Error) -> AggregateError {
        var final: AggregateError
        switch error {
        case let error as AggregateError: final = error
        case is CancellationError: final = AggregateError(.timeout, "cancelled before it finished")
        default: final = AggregateError(.decoding, "\(error)")
        }
        final.message = redactor.redact(final.message)
        return final.attributed(to: name)
    }
}

extension AggregateError {
    /// The error for an unsuccessful response when the API's body says nothing more useful (see ``APIErrorKit``).
    public static func generic(for response: HTTPResponse, descriptor: ProviderDescriptor) -> AggregateError {
        APIErrorKit.standard(for: response, descriptor: descriptor)
    }
}
