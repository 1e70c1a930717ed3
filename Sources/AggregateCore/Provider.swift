public import Foundation

/// A source of items: one public JSON API, described by a static ``ProviderDescriptor``.
///
/// A run goes through fixed stages, each a small method:
/// 1. ``configure(_:)`` checks credentials and picks the API variant (no network; throws `config` errors);
/// 2. ``resolve(_:using:)`` does one-off lookups before the first page (default: none);
/// 3. ``request(for:cursor:remaining:)`` builds the request for one page;
/// 4. the shared ``Fetcher`` sends it (timeouts, retries, size cap, credentials only to the provider's host);
/// 5. ``normalize(_:for:)`` turns one response into items and the next cursor;
/// 6. ``error(for:query:)`` explains an unsuccessful response.
///
/// ## Implementation requirements
/// - Be a value type with no stored state and no globals: one instance may serve concurrent runs.
/// - `normalize` is a pure function of the response and the query: no network, no clock, no environment.
/// - Every example in the descriptor must run offline; the shared test `ProviderExampleTests` runs them all,
///   and `ProviderConformanceTests` checks the descriptor (names, defaults, examples that parse).
/// - The sandbox routes (``SandboxProviding``) answer like the real API, including its auth errors.
///
/// ```swift
/// struct EchoProvider: Provider {
///     static let descriptor = ProviderDescriptor(name: "echo", ...)
///     func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
///         HTTPRequestSpec(url: query.baseURL.appendingEndpoint("/echo"))
///     }
///     func normalize(_ page: RawPage, for query: Query) throws -> Page { ... }
/// }
/// ```
public protocol Provider: SandboxProviding {
    /// What the provider is and can do.
    static var descriptor: ProviderDescriptor { get }

    /// Creates the provider.
    init()

    /// Checks the query's credentials and settings before anything is sent, and records choices in `query.state`.
    /// - Throws: ``AggregateError`` of kind `config` (missing credentials) or `usage`.
    func configure(_ query: inout Query) throws

    /// Performs lookups needed before the first page, such as a user id for a username.
    func resolve(_ query: inout Query, using client: FetchClient) async throws

    /// The request for the page at `cursor` (`nil` for the first page).
    /// - Parameter remaining: how many more items are wanted, to choose a page size.
    func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec

    /// Reads one successful response: its items and where the next page is. Pure.
    /// - Throws: ``AggregateError`` for error bodies that arrive with a 2xx status (e.g. GraphQL `errors`),
    ///   and `decoding` errors for bodies that are not the expected shape.
    func normalize(_ page: RawPage, for query: Query) throws -> Page

    /// The error for an unsuccessful response (after retries), with the API's own message when it has one.
    func error(for response: HTTPResponse, query: Query) -> AggregateError

    /// How long the API asks us to wait before retrying `response`, if it says so in a provider-specific way.
    /// The default reads `Retry-After`.
    func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval?

    /// What may have happened when a request that changes data got no answer, e.g. "the message may or may not
    /// have been saved". The default is "it may or may not have taken effect".
    func interruptedWriteOutcome(for query: Query) -> String
}

extension Provider {
    /// Shortcut for the static descriptor.
    public var descriptor: ProviderDescriptor { Self.descriptor }

    public func configure(_ query: inout Query) throws {}

    public func resolve(_ query: inout Query, using client: FetchClient) async throws {}

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        AggregateError.generic(for: response, descriptor: Self.descriptor)
    }

    public func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? {
        RetryPolicy.retryAfter(response, now: now)
    }

    /// The text view of `result`: the provider's own (``ProviderTextView``), else the generic list.
    public func textView(_ result: ProviderResult, style: TextStyle) -> String {
        (self as? any ProviderTextView)?.renderText(result, style: style) ?? TextRenderer.genericList(result.items, style: style)
    }

    public func interruptedWriteOutcome(for query: Query) -> String { "it may or may not have taken effect" }
}

/// A provider with its own text view; the others show the generic list. Presentation stays apart from fetching.
public protocol ProviderTextView: Provider {
    /// The text view of a successful result (its items, operation and query parameters).
    func renderText(_ result: ProviderResult, style: TextStyle) -> String
}

/// One response as `normalize` sees it: status, headers and body.
public typealias RawPage = HTTPResponse

/// What one page held and where the next one is.
public struct Page: Sendable, Equatable {
    /// Where to go after a page.
    public enum Next: Sendable, Equatable {
        /// Fetch the page at this cursor (an offset, a token or a URL; opaque to the fetch layer).
        case cursor(String)
        /// Numbered pages `current+1 ... total` exist, `pageSize` items each; the fetch layer may fetch the
        /// ones it needs concurrently, passing the page number as the cursor.
        case numberedPages(current: Int, total: Int, pageSize: Int)
    }

    /// The page's items.
    public var items: [Item]
    /// Where the next page is, or `nil` on the last page.
    public var next: Next?
    /// The API's count of all matches, when it gives a meaningful one.
    public var totalCount: Int?

    /// Creates a page.
    public init(items: [Item], next: Next? = nil, totalCount: Int? = nil) {
        self.items = items
        self.next = next
        self.totalCount = totalCount
    }
}

/// A validated request to one provider: the operation, its typed parameters, and the run's settings.
public struct Query: Sendable {
    /// The provider's name.
    public var provider: String
    /// The operation's name.
    public var operation: String
    /// The parameters used, typed, defaults included (shown in JSON output as `query`). Never holds secrets.
    public var parameters: JSONObject
    /// How many items to return at most.
    public var limit: Int
    /// Whether the user gave the limit (`--limit`) rather than leaving the default; text views may show more then.
    public var isLimitExplicit: Bool
    /// The API's base URL for this run (the sandbox's when offline).
    public var baseURL: URL
    /// The environment variables visible to the provider (credentials).
    public var environment: [String: String]
    /// Values the provider chose or looked up (API variant, user id, ...), private to the provider.
    public var state: [String: String]
    /// The typed plan a ``TypedProvider`` chose in `configure` (API variant, looked-up ids), private to it.
    public var plan: (any Sendable)?
    /// Whether this run answers from the sandbox (`--offline`) or a live server; set by the ``Fetcher``.
    public var source: DataSource
    /// The run's clock reading, for requests that carry a timestamp; set by the ``Fetcher`` (fixed in tests).
    public var now: Date

    /// Creates a query.
    public init(
        provider: String, operation: String, parameters: JSONObject = JSONObject(), limit: Int = 20,
        baseURL: URL, environment: [String: String] = [:], state: [String: String] = [:], source: DataSource = .live,
        now: Date = Date()
    ) {
        self.source = source
        self.now = now
        self.isLimitExplicit = false
        self.provider = provider
        self.operation = operation
        self.parameters = parameters
        self.limit = limit
        self.baseURL = baseURL
        self.environment = environment
        self.state = state
    }

    /// The parameter `name` as text (numbers as their literal text).
    public func string(_ name: String) -> String? {
        switch parameters[name] {
        case .string(let text)?: return text
        case .number(let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        default: return nil
        }
    }

    /// The parameter `name` as a number.
    public func double(_ name: String) -> Double? { parameters[name]?.double }

    /// The parameter `name` as a whole number.
    public func int(_ name: String) -> Int? { parameters[name]?.int }

    /// The parameter `name` as a flag.
    public func flag(_ name: String) -> Bool { parameters[name]?.bool ?? false }

    /// The non-empty value of the environment variable `name`.
    public func environmentValue(_ name: String) -> String? {
        guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value
    }
}

/// How text output should look.
public struct TextStyle: Sendable, Equatable {
    /// The terminal width in columns (80 when not a terminal).
    public var width: Int
    /// Whether ANSI colour may be used.
    public var color: Bool

    /// Creates a style.
    public init(width: Int = 80, color: Bool = false) {
        self.width = max(20, width)
        self.color = color
    }
}
