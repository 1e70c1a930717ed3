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
        /// Something worth telling even without `--verbose`, e.g. paging stopped by a guard.
        case warning(String)
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

/// Sends requests for a provider's ``Provider/resolve(_:using:)`` stage through the shared layer
/// (credentials, timeouts, retries, redirects, size cap, counting), returning only successful responses.
public struct FetchClient: Sendable {
    private let exchange: @Sendable (HTTPRequestSpec) async throws -> HTTPResponse
    /// A cache that lives for one run of the process, for lookups done at most once per run.
    public let cache: RunCache

    /// Creates a client from an exchange function.
    public init(cache: RunCache = RunCache(), exchange: @escaping @Sendable (HTTPRequestSpec) async throws -> HTTPResponse) {
        self.cache = cache
        self.exchange = exchange
    }

    /// Sends `request` and returns its successful response.
    /// - Throws: the provider's ``AggregateError`` for an unsuccessful status.
    public func send(_ request: HTTPRequestSpec) async throws -> HTTPResponse {
        try await exchange(request)
    }
}

/// Values computed at most once per run and shared between concurrent invocations (e.g. TMDb's configuration).
public actor RunCache {
    private var values: [String: Task<JSONValue, any Error>] = [:]

    /// Creates an empty cache.
    public init() {}

    /// The value for `key`, computing it with `make` the first time; concurrent callers share one computation.
    /// A failed computation is not cached.
    public func value(for key: String, make: @escaping @Sendable () async throws -> JSONValue) async throws -> JSONValue {
        if let task = values[key] { return try await task.value }
        let task = Task { try await make() }
        values[key] = task
        do {
            return try await task.value
        } catch {
            values[key] = nil
            throw error
        }
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
    public func run(_ provider: any Provider, query initialQuery: Query) async -> ProviderResult {
        let name = type(of: provider).descriptor.name
        let started = Date()
        let stats = RunStatistics()
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
            elapsedMs: elapsed, totalCount: collected.totalCount, nextCursor: failure == nil ? collected.nextCursor : nil)
        if let failure {
            options.events(FetchEvent(provider: name, kind: .failed(failure.message)))
        } else {
            options.events(FetchEvent(provider: name, kind: .finished(items: collected.items.count)))
        }
        return ProviderResult(
            provider: name, operation: query.operation, query: query.parameters,
            items: failure == nil ? Array(collected.items.prefix(query.limit)) : [], error: failure, meta: meta,
            rawBodies: collected.rawBodies, explicitLimit: query.isLimitExplicit ? query.limit : nil)
    }

    /// The redactor for a run: every credential variable the provider declares, plus any credential it attaches.
    public static func redactor(for provider: any Provider, query: Query) -> Redactor {
        let names = type(of: provider).descriptor.auth.map(\.name)
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
    var pages = 0
    var totalCount: Int?
    var nextCursor: String?

    /// Adds items not seen before; returns their ids in page order.
    mutating func add(_ page: Page, body: Data) -> [String] {
        pages += 1
        if keepsRawBodies { rawBodies.append(body) }
        if totalCount == nil { totalCount = page.totalCount }
        for item in page.items where seenIDs.insert(item.id).inserted {
            items.append(item)
        }
        return page.items.map(\.id)
    }
}

/// Counts shared by the concurrent parts of one run.
private final class RunStatistics: @unchecked Sendable {
    private let lock = NSLock()
    private var requests = 0
    private var bytes = 0

    func record(bytes received: Int) {
        lock.lock()
        requests += 1
        bytes += received
        lock.unlock()
    }

    func snapshot() -> (requests: Int, bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (requests, bytes)
    }
}

private struct Run: Sendable {
    let fetcher: Fetcher
    let provider: any Provider
    let stats: RunStatistics
    let redactor: Redactor

    var name: String { type(of: provider).descriptor.name }
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
            let page = try read(response, query: query)
            let ids = collected.add(page, body: response.body)
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
        var results: [Int: (HTTPResponse, Page)] = [:]
        try await withThrowingTaskGroup(of: (Int, HTTPResponse, Page).self) { group in
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
            guard let (response, page) = results[number] else { continue }
            _ = collected.add(page, body: response.body)
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

    private func read(_ response: HTTPResponse, query: Query) throws -> Page {
        do {
            return try provider.normalize(response, for: query)
        } catch let error as AggregateError {
            throw error
        } catch {
            throw AggregateError(.decoding, "the response could not be read: \(error)", httpStatus: response.status)
        }
    }

    // MARK: One request, with retries

    /// Sends `spec` with retries and redirects, returning a successful response or throwing the provider's error.
    func exchange(_ spec: HTTPRequestSpec, query: Query) async throws -> HTTPResponse {
        var attempt = 1
        var waited: TimeInterval = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await sendFollowingRedirects(spec, query: query, attempt: attempt)
            } catch let error as AggregateError where error.kind == .timeout && !spec.isIdempotent {
                // A write that timed out was sent: the server may have acted on it.
                var sent = error
                sent.requestMayHaveBeenSent = true
                throw interrupted(sent, spec: spec, attempt: attempt, query: query)
            } catch let error as AggregateError where error.kind == .network {
                let decision = options.retry.decide(attempt: attempt, retryable: spec.isIdempotent, suggested: nil, waited: waited)
                guard case .retry(let delay) = decision else {
                    throw interrupted(error, spec: spec, attempt: attempt, query: query)
                }
                try await wait(delay, reason: error.message, attempt: attempt)
                waited += delay
                attempt += 1
                continue
            }
            if response.isSuccess { return response }
            let retryable = spec.isIdempotent && RetryPolicy.retryableStatuses.contains(response.status)
            let suggested = provider.retryDelay(for: response, now: options.now())
            let decision = options.retry.decide(attempt: attempt, retryable: retryable, suggested: suggested, waited: waited)
            if case .retry(let delay) = decision {
                try await wait(delay, reason: "HTTP \(response.status)", attempt: attempt)
                waited += delay
                attempt += 1
                continue
            }
            throw provider.error(for: response, query: query)
        }
    }

    private func interrupted(_ error: AggregateError, spec: HTTPRequestSpec, attempt: Int, query: Query) -> AggregateError {
        var final = error
        if !spec.isIdempotent, error.requestMayHaveBeenSent {
            let descriptor = type(of: provider).descriptor
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

    private func wait(_ delay: TimeInterval, reason: String, attempt: Int) async throws {
        emit(.retrying(afterSeconds: delay, reason: redactor.redact(reason), retry: attempt, of: options.retry.maxRetries))
        try await options.sleep(delay)
    }

    /// One attempt: sends the request and follows redirects, attaching credentials only on the provider's host.
    private func sendFollowingRedirects(_ spec: HTTPRequestSpec, query: Query, attempt: Int) async throws -> HTTPResponse {
        let scope = CredentialScope(baseURL: query.baseURL)
        var method = spec.method
        var url = spec.url
        var body = spec.body
        var headers = spec.headers
        for _ in 0...5 {
            try Self.checkScheme(url, allowHTTP: options.allowHTTP)
            var request = HTTPRequest(
                method: method, url: url, headers: headers, body: body, timeout: options.timeout,
                maxResponseBytes: options.maxResponseBytes)
            if let credential = spec.credential, scope.contains(url) {
                switch credential {
                case .bearer(let token): request.headers["Authorization"] = "Bearer \(token)"
                case .header(let name, let value): request.headers[name] = value
                case .queryParameter(let name, let value): request.url = url.appendingQuery([(name, value)])
                }
            }
            emit(.request(method: method, url: redactor.redact(request.url.absoluteString), attempt: attempt))
            let started = Date()
            let response = try await sendWithTimeout(request)
            stats.record(bytes: response.body.count)
            emit(.response(status: response.status, bytes: response.body.count, milliseconds: Date().timeIntervalSince(started) * 1000))
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
                let next = URL(string: location, relativeTo: url)?.absoluteURL
            else { return response }
            if response.status == 303 || (method == "POST" && [301, 302].contains(response.status)) {
                method = "GET"
                body = nil
                headers["Content-Type"] = nil
            }
            // Leaving the provider's origin: no credential is attached there, and none may ride along in the query.
            url = scope.contains(next) ? next : scope.stripped(next, credential: spec.credential, redactor: redactor)
        }
        throw AggregateError(.http, "too many redirects (more than 5)")
    }

    /// Plain http goes only to this machine unless the user opted in, so nothing travels unencrypted by accident.
    static func checkScheme(_ url: URL, allowHTTP: Bool) throws {
        switch url.scheme?.lowercased() {
        case "https": return
        case "http" where PlainHTTP.isAllowed(url, allowHTTP: allowHTTP): return
        case "http": throw AggregateError(.config, PlainHTTP.refusal(host: url.host ?? "?"))
        default: throw AggregateError(.config, "unsupported URL scheme in \(url.absoluteString)")
        }
    }

    private func sendWithTimeout(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transport = fetcher.transport
        let timeout = request.timeout
        let response = try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask { try await transport.send(request) }
            group.addTask {
                try? await Task.sleep(nanoseconds: Nanoseconds.from(seconds: timeout))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw AggregateError(.timeout, "no response within \(Self.seconds(timeout)) (the --timeout); the server may be slow or unreachable")
            }
            return response
        }
        guard response.body.count <= request.maxResponseBytes else {
            throw AggregateError(.tooLarge, "the response is larger than the \(ByteCount.describe(request.maxResponseBytes)) size cap")
        }
        return response
    }

    static func seconds(_ value: TimeInterval) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value) s" }
        return value.rounded() == value ? "\(Int(value)) s" : String(format: "%.1f s", value)
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
    /// The error for an unsuccessful response when the API's body says nothing more useful:
    /// 401/403 name the credential variables, 404 is `notFound`, 429 `rateLimited`, others `http`.
    public static func generic(for response: HTTPResponse, descriptor: ProviderDescriptor) -> AggregateError {
        let status = response.status
        let variables = descriptor.auth.map(\.name).joined(separator: " or ")
        switch status {
        case 401:
            return AggregateError(.auth, "the credentials were rejected (HTTP 401). Check \(variables.isEmpty ? "the credentials" : variables).", httpStatus: status)
        case 403:
            return AggregateError(.auth, "access was refused (HTTP 403). Check \(variables.isEmpty ? "the credentials" : variables) and the account's access level.", httpStatus: status)
        case 404:
            return AggregateError(.notFound, "not found (HTTP 404)", httpStatus: status)
        case 429:
            return AggregateError(.rateLimited, "rate limited (HTTP 429) and retries ran out; wait before trying again", httpStatus: status)
        default:
            let page = response.looksLikeHTML ? "an HTML page" : response.body.isEmpty ? "an empty body" : "\"\(response.excerpt(limit: 80))\""
            return AggregateError(.http, "the server answered HTTP \(status) with \(page)", httpStatus: status)
        }
    }
}
