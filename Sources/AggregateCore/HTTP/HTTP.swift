public import AggregateJSON
public import Foundation

/// HTTP header fields with case-insensitive lookup that keep their order and original spelling.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from fields in order.
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value for `name`, compared case-insensitively; setting replaces every field of that name.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Adds a field, keeping any existing field of the same name.
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A credential and how it travels. The fetch layer attaches it only to requests for the provider's own host.
public enum Credential: Sendable, Equatable {
    /// `Authorization: Bearer <token>`.
    case bearer(String)
    /// A query parameter such as `key=<value>`.
    case queryParameter(name: String, value: String)
    /// A request header such as `X-Api-Key: <value>`.
    case header(name: String, value: String)

    /// The secret value, for redaction.
    public var secret: String {
        switch self {
        case .bearer(let token): return token
        case .queryParameter(_, let value), .header(_, let value): return value
        }
    }
}

/// A request a provider wants sent, before credentials are attached.
public struct HTTPRequestSpec: Sendable, Equatable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The full URL, without credentials.
    public var url: URL
    /// Header fields (without credentials).
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// Whether sending the request twice is harmless. Only idempotent requests are retried automatically.
    public var isIdempotent: Bool
    /// The credential to attach when the request goes to the provider's own host.
    public var credential: Credential?

    /// Creates a request. `isIdempotent` defaults to true for GET, HEAD, PUT, DELETE and OPTIONS.
    public init(
        method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Data? = nil, isIdempotent: Bool? = nil,
        credential: Credential? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
        self.credential = credential
    }

    /// A JSON POST, e.g. a GraphQL query. GraphQL queries are reads, so pass `isIdempotent: true` for them.
    public static func postJSON(url: URL, body: JSONValue, isIdempotent: Bool, credential: Credential? = nil) -> HTTPRequestSpec {
        HTTPRequestSpec(
            method: "POST", url: url,
            headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: JSONWriter().data(body), isIdempotent: isIdempotent, credential: credential)
    }
}

/// A request as it goes on the wire, with credentials attached and a timeout.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The URL, including any credential query parameter.
    public var url: URL
    /// All header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// The most time the whole exchange may take.
    public var timeout: TimeInterval
    /// The largest body the transport may read before failing with `tooLarge`.
    public var maxResponseBytes: Int

    /// Creates a request.
    public init(
        method: String, url: URL, headers: HTTPHeaders = [:], body: Data? = nil, timeout: TimeInterval = 15,
        maxResponseBytes: Int = 32 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// A response: status, headers and the whole body.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data
    /// The URL that answered.
    public var url: URL?

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether the body looks like an HTML page rather than data.
    public var looksLikeHTML: Bool {
        if headers["Content-Type"]?.lowercased().contains("text/html") == true { return true }
        let start = text.prefix(200).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html")
    }

    /// The first `limit` characters of the body on one line, for error messages (callers redact it).
    public func excerpt(limit: Int = 120) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}

/// Sends one HTTP request and returns the whole response, like swift-openapi-runtime's `ClientTransport`.
///
/// A transport does one exchange: no retries, no redirects followed, no credentials added; the fetch layer
/// (``Fetcher``) does those. Implementations must honour `request.timeout` and `request.maxResponseBytes`,
/// throwing ``AggregateError`` of kind `timeout`, `tooLarge` or `network`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns its response, whatever the status.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Whether `host` is a loopback address (``PlainHTTP/isThisMachine(_:)`` also counts the wildcard addresses).
public func isLoopbackHost(_ host: String?) -> Bool {
    guard let host = host?.lowercased() else { return false }
    if host == "localhost" || host == "::1" || host == "[::1]" || host.hasSuffix(".localhost") { return true }
    let parts = host.split(separator: ".")
    return parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil }
}

extension URL {
    /// This URL with `items` appended to its query (percent-encoded).
    public func appendingQuery(_ items: [(String, String)]) -> URL {
        guard !items.isEmpty, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        var existing = components.percentEncodedQueryItems ?? []
        for (name, value) in items {
            existing.append(URLQueryItem(
                name: name.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? name,
                value: value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? value))
        }
        components.percentEncodedQueryItems = existing
        return components.url ?? self
    }

    /// This URL with `path` appended (no double slashes), e.g. base `https://api.meetup.com` + `/2/groups`.
    public func appendingEndpoint(_ path: String) -> URL {
        var base = absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let suffix = path.hasPrefix("/") ? path : "/" + path
        return URL(string: base + suffix) ?? self
    }

    /// The value of the first query parameter named `name`, decoded.
    public func queryValue(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}
