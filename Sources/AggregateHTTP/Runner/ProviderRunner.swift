public import AggregateCore
public import AggregateJSON
public import Foundation

/// Runs provider invocations the way the command line does, for any app: it builds the query (the base URL from an
/// override, the environment or the provider's default; the emulator's stand-in credentials offline) and picks the
/// transport (the emulators in-process offline, the network otherwise). The command line adds only parsing and
/// printing.
///
/// ```swift
/// // `URLSessionTransport` and this initializer without `makeTransport` come with the AggregateURLSession module.
/// let runner = ProviderRunner(registry: try ProviderRegistry(allProviders), environment: ProcessInfo.processInfo.environment)
/// let offline = ProviderRunner(
///     registry: catalog.registry, environment: [:], offline: SandboxTransport(catalog: catalog), makeTransport: { NoNetworkTransport() })
/// let result = await runner.run(TMDbProvider.self, operation: "search", parameters: ["query": "batman"])
/// ```
public struct ProviderRunner: Sendable {
    /// How one run goes, beside its parameters: the command line's common options.
    public struct Settings: Sendable {
        /// The most items (`--limit`).
        public var limit: Int
        /// Whether the limit was asked for rather than left at the default.
        public var limitIsExplicit: Bool
        /// Answer from the emulators in-process (`--offline`).
        public var offline: Bool
        /// The API's base URL instead of the environment's or the default (`--base-url`).
        public var baseURL: String?
        /// Seconds one exchange may take (`--timeout`).
        public var timeout: TimeInterval
        /// Whether plain http may leave this machine (`--allow-http`).
        public var allowHTTP: Bool
        /// Whether results keep every page's raw body (`--raw`); without it only the items stay in memory.
        public var keepsRawBodies: Bool
        /// The disk cache for live runs, or `nil` for none (the default; `--no-cache`). Offline runs never use it.
        public var cache: HTTPCacheSettings?

        /// Creates settings with the command line's defaults.
        public init(
            limit: Int = 20, limitIsExplicit: Bool = false, offline: Bool = false, baseURL: String? = nil, timeout: TimeInterval = 15,
            allowHTTP: Bool = false, keepsRawBodies: Bool = true
        ) {
            self.limit = limit
            self.limitIsExplicit = limitIsExplicit
            self.offline = offline
            self.baseURL = baseURL
            self.timeout = timeout
            self.allowHTTP = allowHTTP
            self.keepsRawBodies = keepsRawBodies
        }
    }

    /// The providers.
    public var registry: ProviderRegistry
    /// The environment credentials and base URLs are read from (live runs).
    public var environment: [String: String]
    /// What `offline` runs answer from: the emulators in-process (`SandboxTransport`, which keeps the message
    /// board's posts in its store), or `nil` when this app links none (offline runs then fail with a `config` error).
    public var offline: (any OfflineTransport)?
    /// Makes the network transport of live runs.
    public var makeTransport: @Sendable () -> any HTTPTransport
    /// Waits between retries, when not the real clock (tests).
    public var retrySleep: (@Sendable (TimeInterval) async throws -> Void)?
    /// Receives the runs' progress and trace events.
    public var events: @Sendable (FetchEvent) -> Void
    /// Where the rate limiter keeps its buckets, or `nil` for no limiter (`--no-rate-limit`). Offline runs are never
    /// limited: the in-process sandbox counts nothing, so demos run at full speed.
    public var rateLimitStore: (any RateLimitStoring)?
    /// Where the cache of live runs keeps its entries when not on disk under ``Settings/cache``'s root (a Redis
    /// store, or a failover of Redis and the disk); ``Settings/cache`` still turns the cache on and sets its mode.
    public var cacheStore: (any HTTPCacheStoring)?
    /// Records every exchange of the runs (`--record DIR`); each run writes the cassette when it ends.
    public var recorder: CassetteRecorder?
    /// Answers every request from a cassette instead of the network (`--replay DIR`).
    public var replayer: CassetteReplayer?
    /// The clock, when not the real one (tests: the cache's freshness without waiting).
    public var clock: (@Sendable () -> Date)?
    /// Where OAuth2 client-credentials tokens are kept between live runs (``ClientCredentialsTokenCache``), or `nil`
    /// to fetch one token per run. Offline runs keep the emulator's tokens in memory only.
    public var tokenCache: ClientCredentialsTokenCache?
    /// Joins identical requests that runs sharing it send at once (``SingleFlight``: `aggregate serve`), or `nil`.
    public var singleFlight: SingleFlight?

    /// Creates a runner.
    ///
    /// This module links no networking library, so the live transport is the caller's choice: `{ URLSessionTransport() }`
    /// from AggregateURLSession (whose `ProviderRunner` initializer without this parameter picks it), a transport of
    /// the app's own, or `{ NoNetworkTransport() }` for a runner that only answers offline or from a cassette.
    /// - Parameter makeTransport: makes the network transport of a live run; called once per run, only when it goes live.
    public init(
        registry: ProviderRegistry, environment: [String: String], offline: (any OfflineTransport)? = nil,
        makeTransport: @escaping @Sendable () -> any HTTPTransport,
        retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil, events: @escaping @Sendable (FetchEvent) -> Void = { _ in }
    ) {
        self.retrySleep = retrySleep
        self.registry = registry
        self.environment = environment
        self.offline = offline
        self.makeTransport = makeTransport
        self.events = events
    }

    /// The base URL offline runs use: requests never leave the process, it only names them in traces.
    /// Provider names are lower-case words and `-`, so the URL is always valid; the bare host is the last resort.
    public static func offlineBaseURL(for name: String) -> URL {
        URL(string: "http://sandbox.localhost/\(name)") ?? URL(fileURLWithPath: "/").appendingPathComponent(name)
    }

    /// The query for one invocation; `environment` is what the provider may read (default: the runner's).
    /// - Throws: configuration errors, e.g. a bad base URL.
    public func query(
        _ provider: any RunnableProvider, operation: String, parameters: JSONObject, settings: Settings, environment: [String: String]? = nil
    ) throws(AggregateError) -> Query {
        let descriptor = provider.descriptor
        let baseURL = settings.offline
            ? Self.offlineBaseURL(for: descriptor.name)
            : try descriptor.baseURL(override: settings.baseURL, environment: self.environment, allowHTTP: settings.allowHTTP)
        var query = Query(
            provider: descriptor.name, operation: operation, parameters: parameters, limit: settings.limit, baseURL: baseURL,
            environment: settings.offline ? (offline?.standInEnvironment(for: descriptor.name) ?? [:]) : environment ?? self.environment)
        if let replayer {
            // The cassette holds no credential: stand in for the ones that were set while recording.
            for name in replayer.cassette.credentialVariables where query.environment[name]?.isEmpty ?? true {
                query.environment[name] = CassetteReplayer.standInCredential
            }
        }
        query.isLimitExplicit = settings.limitIsExplicit
        return query
    }

    /// The fetcher for a run: the emulators in-process when offline, `transport` or the network otherwise.
    public func fetcher(settings: Settings, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil) -> Fetcher {
        var options = FetchOptions(timeout: settings.timeout, events: events, keepsRawBodies: settings.keepsRawBodies)
        options.allowHTTP = settings.allowHTTP
        if let retrySleep { options.sleep = retrySleep }
        if let clock { options.now = clock }
        if settings.offline {
            return Fetcher(transport: offline ?? NoEmulatorTransport(), options: options, source: .offline, cache: cache)
        }
        return Fetcher(transport: transport ?? makeTransport(), options: options, source: .live, cache: cache)
    }

    /// Runs one invocation of a Swift provider to a result (failures included, never thrown).
    public func run(
        _ provider: any Provider.Type, operation: String, parameters: JSONObject, settings: Settings = Settings(),
        environment: [String: String]? = nil, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil
    ) async -> ProviderResult {
        await run(
            provider.init() as any RunnableProvider, operation: operation, parameters: parameters, settings: settings, environment: environment,
            cache: cache, transport: transport)
    }

    /// Runs one invocation to a result (failures included, never thrown).
    public func run(
        _ provider: any RunnableProvider, operation: String, parameters: JSONObject, settings: Settings = Settings(),
        environment: [String: String]? = nil, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil
    ) async -> ProviderResult {
        do {
            let query = try query(provider, operation: operation, parameters: parameters, settings: settings, environment: environment)
            var fetcher = fetcher(settings: settings, cache: cache, transport: replayer == nil ? transport : NoNetworkTransport(reason: "a replay sends nothing over the network"))
            try addRunSteps(to: &fetcher.options, provider: provider.descriptor, query: query, settings: settings)
            try addTokenStep(to: &fetcher, provider: provider, query: query, settings: settings)
            // The cache goes first, so a hit spends nothing (no rate budget, no retry, no request). A recorded or
            // replayed run bypasses it: the cassette must hold, and answer, every exchange.
            let log = HTTPCacheRunLog()
            if let cacheSettings = settings.cache, !settings.offline, recorder == nil, replayer == nil {
                fetcher.options.middlewares.insert(
                    HTTPCacheMiddleware(
                        settings: cacheSettings, freshness: provider.descriptor.cacheFreshness, operation: operation,
                        now: fetcher.options.now, events: events, log: log, store: cacheStore),
                    at: fetcher.options.middlewares.first is ClientCredentialsMiddleware ? 1 : 0)
            }
            // After the cache (a fresh hit never waits) and the token step: identical requests under way are joined.
            if let singleFlight, recorder == nil, replayer == nil {
                fetcher.options.middlewares.append(SingleFlightMiddleware(flights: singleFlight))
            }
            var result = await fetcher.run(provider, query: query)
            do {
                try recorder?.save()
            } catch where result.error == nil {
                result.error = error.attributed(to: provider.descriptor.name)
            }
            if let summary = log.summary(otherwise: result.meta.source) {
                events(FetchEvent(provider: provider.descriptor.name, kind: .cache(summary)))
            }
            result.meta.source = log.source(otherwise: replayer == nil ? result.meta.source : .replay)
            return result
        } catch {
            return ProviderResult(
                provider: provider.descriptor.name, operation: operation, query: parameters,
                error: error.attributed(to: provider.descriptor.name), meta: ResultMeta(source: source(settings)))
        }
    }

    /// Adds the OAuth2 token step first of all (before the disk cache, which then keys by the token) for a
    /// ``ClientCredentialsProvider``. A replay needs no token: the cassette answers, and never held one.
    func addTokenStep(to fetcher: inout Fetcher, provider: any RunnableProvider, query: Query, settings: Settings) throws(AggregateError) {
        guard replayer == nil, let grant = (provider as? any ClientCredentialsProvider)?.clientCredentialsGrant else { return }
        let step = try ClientCredentialsMiddleware(
            provider: provider.descriptor.name, grant: grant, baseURL: query.baseURL, environment: query.environment, transport: fetcher.transport,
            cache: settings.offline ? nil : tokenCache, options: fetcher.options)
        fetcher.options.middlewares.insert(step, at: 0)
    }

    /// Where a run's answers come from before the cache has its say: the cassette, the emulators or the network.
    func source(_ settings: Settings) -> DataSource {
        if replayer != nil { return .replay }
        return settings.offline ? .offline : .live
    }

    /// Adds the run's own steps to `options`: the replayer (with no waiting: nothing is sent), or the rate limiter
    /// for the provider's budgets and the recorder.
    /// - Throws: a `config` error for a malformed `AGGREGATE_<NAME>_RATE_LIMIT`.
    func addRunSteps(to options: inout FetchOptions, provider descriptor: ProviderDescriptor, query: Query, settings: Settings) throws(AggregateError) {
        if let replayer {
            options.wireMiddlewares.append(replayer.middleware)
            options.sleep = { _ in }
            return
        }
        if let rateLimitStore, !settings.offline {
            let plan = try RateBudgetPlan(descriptor: descriptor, environment: self.environment.merging(query.environment) { _, run in run })
            if !plan.budgets.isEmpty {
                options.attemptMiddlewares.append(RateLimitMiddleware(
                    plan: plan, store: rateLimitStore, maxWait: options.retry.maxTotalWait, sleep: options.sleep, now: options.now,
                    events: options.events, timeZone: RateLimitReset.timeZone(environment: self.environment)))
            }
        }
        if let recorder {
            recorder.noteCredentialVariables(descriptor.auth.map(\.name).filter { !(query.environment[$0]?.isEmpty ?? true) })
            options.wireMiddlewares.append(recorder.middleware)
        }
    }
}

/// The transport of an offline run in an app that links no emulator.
struct NoEmulatorTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw AggregateError(.config, "offline runs need the emulators: link AggregateSandbox and pass its SandboxTransport as `offline`")
    }
}

/// A transport that sends nothing: for a runner that only answers offline or from a cassette (a replay), where a
/// request that would leave the process is a configuration mistake, reported as one line.
public struct NoNetworkTransport: HTTPTransport {
    private let reason: String

    /// Creates the transport; `reason` ends the error line (default: that the run sends nothing over the network).
    public init(reason: String = "this run sends nothing over the network") { self.reason = reason }

    /// Throws a `config` error naming the reason; sends nothing.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw AggregateError(.config, reason)
    }
}
