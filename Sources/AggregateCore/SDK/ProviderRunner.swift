public import Foundation

/// Runs provider invocations the way the command line does, for any app: it builds the query (the base URL from an
/// override, the environment or the provider's default; the emulator's stand-in credentials offline) and picks the
/// transport (the emulators in-process offline, the network otherwise). The command line adds only parsing and
/// printing.
///
/// ```swift
/// let runner = ProviderRunner(registry: try ProviderRegistry(allProviders), environment: ProcessInfo.processInfo.environment)
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

    /// The providers, and the emulators `offline` runs answer from.
    public var registry: ProviderRegistry
    /// The environment credentials and base URLs are read from (live runs).
    public var environment: [String: String]
    /// Where offline writes persist (the message board's posts), or `nil` for a read-only sandbox.
    public var sandboxStore: SandboxStore?
    /// Makes the network transport of live runs.
    public var makeTransport: @Sendable () -> any HTTPTransport
    /// Waits between retries, when not the real clock (tests).
    public var retrySleep: (@Sendable (TimeInterval) async throws -> Void)?
    /// Receives the runs' progress and trace events.
    public var events: @Sendable (FetchEvent) -> Void

    /// Creates a runner.
    public init(
        registry: ProviderRegistry, environment: [String: String], sandboxStore: SandboxStore? = nil,
        makeTransport: @escaping @Sendable () -> any HTTPTransport = { URLSessionTransport() },
        retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil, events: @escaping @Sendable (FetchEvent) -> Void = { _ in }
    ) {
        self.retrySleep = retrySleep
        self.registry = registry
        self.environment = environment
        self.sandboxStore = sandboxStore
        self.makeTransport = makeTransport
        self.events = events
    }

    /// The base URL offline runs use: requests never leave the process, it only names them in traces.
    public static func offlineBaseURL(for name: String) -> URL { URL(string: "http://sandbox.localhost/\(name)")! }

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
            environment: settings.offline ? (registry.sandbox(named: descriptor.name)?.sandboxEnvironment ?? [:]) : environment ?? self.environment)
        query.isLimitExplicit = settings.limitIsExplicit
        return query
    }

    /// The fetcher for a run: the emulators in-process when offline, `transport` or the network otherwise.
    public func fetcher(settings: Settings, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil) -> Fetcher {
        var options = FetchOptions(timeout: settings.timeout, events: events, keepsRawBodies: settings.keepsRawBodies)
        options.allowHTTP = settings.allowHTTP
        if let retrySleep { options.sleep = retrySleep }
        if settings.offline {
            return Fetcher(transport: SandboxTransport(registry: registry, store: sandboxStore), options: options, source: .offline, cache: cache)
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
            return await fetcher(settings: settings, cache: cache, transport: transport).run(provider, query: query)
        } catch {
            return ProviderResult(
                provider: provider.descriptor.name, operation: operation, query: parameters,
                error: error.attributed(to: provider.descriptor.name), meta: ResultMeta(source: settings.offline ? .offline : .live))
        }
    }
}
