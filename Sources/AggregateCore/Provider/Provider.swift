public import AggregateJSON
public import Foundation

extension Provider {
    /// Shortcut for the static descriptor.
    public var descriptor: ProviderDescriptor { Self.descriptor }

    /// The descriptor's name (a provider may state it as a constant, so that it is known without the descriptor).
    public static var providerName: String { descriptor.name }

    public func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? {
        RetryAfter.delay(response, now: now)
    }

    /// The provider's own text view of `result` (``ProviderTextView``), or `nil` for the generic list.
    public func textView(_ result: ProviderResult, style: TextStyle) -> String? {
        (self as? any ProviderTextView)?.renderText(result, style: style)
    }
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
    /// The environment the run was given; `configure` narrows it to the variables the provider declares.
    public var environment: [String: String]
    /// The typed plan the ``Provider`` chose in `configure` (API variant, looked-up ids), private to it.
    public var plan: (any Sendable)?
    /// Whether this run answers from the sandbox (`--offline`) or a live server; set by the ``Fetcher``.
    public var source: DataSource
    /// The run's clock reading, for requests that carry a timestamp; set by the ``Fetcher`` (fixed in tests).
    public var now: Date

    /// Creates a query.
    public init(
        provider: String, operation: String, parameters: JSONObject = JSONObject(), limit: Int = 20,
        baseURL: URL, environment: [String: String] = [:], source: DataSource = .live,
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
