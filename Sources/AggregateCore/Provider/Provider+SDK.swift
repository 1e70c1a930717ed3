public import AggregateJSON
public import Foundation

/// One call of an operation: the validated query, the provider's typed plan, and the credential being sent.
public struct Call<Plan: Sendable>: Sendable {
    /// The validated query (parameters, limit, base URL, source, clock).
    public var query: Query
    /// What ``Provider/plan(for:credentials:)`` chose and ``Provider/resolve(_:for:using:)`` looked up.
    public var plan: Plan
    /// The credential the core attaches to requests toward the provider's origin, if any.
    public var credential: ResolvedCredential?

    /// Creates a call.
    public init(query: Query, plan: Plan, credential: ResolvedCredential? = nil) {
        self.query = query
        self.plan = plan
        self.credential = credential
    }

    /// The parameter `key`, typed.
    public subscript<Value>(key: ParameterKey<Value>) -> Value? { query[key] }

    /// The parameter `key` as typed on the command line.
    public func text<Value>(_ key: ParameterKey<Value>) -> String? { query.text(key) }

    /// The most items wanted.
    public var limit: Int { query.limit }

    /// `path` below the base URL with the query items whose value is not `nil`, in order.
    public func url(_ path: String, _ items: [(String, String?)] = []) -> URL {
        query.baseURL.appendingEndpoint(path).appendingQuery(items.compactMap { name, value in value.map { (name, $0) } })
    }
}

/// One operation, or one API variant of it: it owns its request building, its normalizing and what to say
/// when a write is interrupted. Operations are values listed by their provider.
public protocol APIOperation<Plan>: Sendable {
    /// The plan type of the provider the operation belongs to.
    associatedtype Plan: Sendable

    /// The request for the page at `cursor` (`nil` for the first page); `remaining` items are still wanted.
    func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec

    /// The items of one successful response and where the next page is. Pure.
    func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page

    /// This operation's reading of an unsuccessful response, or `nil` for the provider's.
    func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError?

    /// What may have happened when a write got no answer, e.g. "the message may or may not have been saved".
    var interruptedWriteOutcome: String { get }
}

extension APIOperation {
    public func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? { nil }
    public var interruptedWriteOutcome: String { "it may or may not have taken effect" }
}

/// A source of items: one public JSON API, as a small, typed, declarative unit.
///
/// The provider declares; the core runs. The static ``descriptor`` declares the operations, their typed
/// parameters (``ParameterKey``) and the credentials (``AuthVariable``: the variable, how it is sent, whether it is
/// required). The core reads only the declared variables, reports them missing in the one standard error (exit 78),
/// and attaches the chosen credential to requests toward the provider's own origin. The provider supplies:
/// 1. ``plan(for:credentials:)``: a typed plan for the run (API variant, checked values); no network;
/// 2. ``resolve(_:for:using:)``: lookups before the first page (default: none);
/// 3. ``operation(named:plan:)``: the operation (or API variant) that builds each page's request and normalizes
///    its response (``APIOperation``);
/// 4. ``error(for:call:)``: its reading of unsuccessful responses (default: ``APIErrorKit``).
/// Text views are optional (``ProviderTextView``); the emulator is separate (``SandboxProviding``).
///
/// ## Implementation requirements
/// - Be a value type with no stored state and no globals: one instance may serve concurrent runs.
/// - Read parameters through ``ParameterKey``s (`call[Self.lat]`), never by string name; keep run choices in the plan.
/// - `normalize` is a pure function of the response and the call: no network, no clock, no environment.
/// - Every example in the descriptor must run offline; the shared test `ProviderExampleTests` runs them all.
///
/// `docs/adding-a-provider.md` walks through a complete provider.
public protocol Provider: RunnableProvider {
    /// What the provider is and can do.
    static var descriptor: ProviderDescriptor { get }

    /// The descriptor's name, known without making the descriptor (default: `descriptor.name`; a provider states it
    /// as a constant so that a registry lists and finds it by name and makes only the descriptor a run uses).
    static var providerName: String { get }

    /// Creates the provider.
    init()

    /// What a run decided before the first request: an API variant, looked-up ids. Never credentials.
    associatedtype Plan: Sendable = Void

    /// Chooses the plan from the query and the credentials that are set. No network.
    /// - Throws: `usage` or `config` errors worded for this provider (missing credentials are the core's).
    func plan(for query: Query, credentials: Credentials) throws -> Plan

    /// Completes the plan with lookups (e.g. a user id for a name). The client attaches the credential.
    func resolve(_ plan: inout Plan, for query: Query, using client: FetchClient) async throws

    /// Writes what the plan settled back into the parameters the output echoes (e.g. a handle without `@`).
    func echo(_ plan: Plan, into parameters: inout JSONObject)

    /// The credential sent under `plan` (default: the first declared one that is set).
    func credential(for plan: Plan, from credentials: Credentials) -> ResolvedCredential?

    /// The operation (or API variant) that serves the operation `name` under `plan`.
    func operation(named name: String, plan: Plan) -> any APIOperation<Plan>

    /// The provider's reading of an unsuccessful response, after the operation's (default: the error kit's).
    func error(for response: HTTPResponse, call: Call<Plan>) -> AggregateError

    /// How long the API asks us to wait before retrying `response`, if it says so in its own way.
    /// The default reads `Retry-After`.
    func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval?
}

extension Provider where Plan == Void {
    public func plan(for query: Query, credentials: Credentials) throws {}
}

extension Provider {
    public func resolve(_ plan: inout Plan, for query: Query, using client: FetchClient) async throws {}

    public func credential(for plan: Plan, from credentials: Credentials) -> ResolvedCredential? { credentials.first }

    public func echo(_ plan: Plan, into parameters: inout JSONObject) {}

    public func error(for response: HTTPResponse, call: Call<Plan>) -> AggregateError {
        APIErrorKit.standard(for: response, descriptor: Self.descriptor)
    }

    // MARK: The core's side of the stages (what the fetch layer calls)

    /// Hands the provider only its declared variables, asks for the plan, and stops with the standard
    /// missing-credentials error when a credential is required and none is set.

    public func configure(_ query: inout Query) throws {
        query.environment = Self.descriptor.declaredEnvironment(from: query.environment)
        let credentials = Credentials(declaredBy: Self.descriptor, environment: query.environment)
        let plan = try plan(for: query, credentials: credentials)
        if Self.descriptor.requiresCredentials, credential(for: plan, from: credentials) == nil {
            throw Self.descriptor.missingCredentialsError
        }
        echo(plan, into: &query.parameters)
        query.plan = plan
    }

    /// Runs ``resolve(_:for:using:)`` with a client that attaches the run's credential.
    public func resolve(_ query: inout Query, using client: FetchClient) async throws {
        var call = try self.call(for: query)
        let credential = call.credential?.credential
        let attaching = FetchClient(cache: client.cache) { spec in
            var spec = spec
            if spec.credential == nil { spec.credential = credential }
            return try await client.send(spec)
        }
        try await resolve(&call.plan, for: query, using: attaching)
        query.plan = call.plan
    }

    /// The request for the page at `cursor`, with the run's credential.
    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        let call = try self.call(for: query)
        var spec = try operation(named: query.operation, plan: call.plan).request(call, cursor: cursor, remaining: remaining)
        if spec.credential == nil { spec.credential = call.credential?.credential }
        return spec
    }

    /// One successful response read by the query's operation.
    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        let call = try self.call(for: query)
        return try operation(named: query.operation, plan: call.plan).normalize(page, call)
    }

    /// The operation's reading of an unsuccessful response, else the provider's.
    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        guard let call = try? self.call(for: query) else { return APIErrorKit.standard(for: response, descriptor: Self.descriptor) }
        return operation(named: query.operation, plan: call.plan).error(for: response, call) ?? error(for: response, call: call)
    }

    /// The operation's wording for a write that got no answer.
    public func interruptedWriteOutcome(for query: Query) -> String {
        guard let call = try? self.call(for: query) else { return "it may or may not have taken effect" }
        return operation(named: query.operation, plan: call.plan).interruptedWriteOutcome
    }

    /// The typed call for a configured query.
    public func call(for query: Query) throws -> Call<Plan> {
        guard let plan = query.plan as? Plan else {
            throw AggregateError(.config, "the query was not configured by \(Self.descriptor.name) before use")
        }
        let credentials = Credentials(declaredBy: Self.descriptor, environment: query.environment)
        return Call(query: query, plan: plan, credential: credential(for: plan, from: credentials))
    }
}
