public import AggregateJSON
public import Foundation

/// How long a provider's answers stay fresh in the disk cache: plain data in its descriptor, so a declarative
/// provider definition can carry it too (`{"defaultSeconds": 300, "operations": {"search": 600},
/// "endpoints": [{"pathPrefix": "/configuration", "seconds": 86400}]}`).
///
/// The most specific declaration wins: an endpoint, then the operation, then the default. The response's own
/// `Cache-Control: max-age` shortens it (see ``HTTPCacheMiddleware``); `--cache-ttl` replaces both.
public struct CacheFreshness: Sendable, Equatable {
    /// A path below the provider's base URL whose answers keep for their own time, e.g. TMDb's `/configuration`.
    public struct Endpoint: Sendable, Equatable {
        /// The path relative to the base URL, matched as a prefix at a segment boundary (`/configuration`).
        public var pathPrefix: String
        /// Seconds its answers stay fresh.
        public var seconds: TimeInterval

        /// Creates an endpoint rule.
        public init(_ pathPrefix: String, seconds: TimeInterval) {
            self.pathPrefix = pathPrefix
            self.seconds = seconds
        }
    }

    /// What a provider that declares nothing gets: five minutes.
    public static let standardSeconds: TimeInterval = 300
    /// The default for a provider that declares nothing.
    public static let standard = CacheFreshness()

    /// Seconds answers stay fresh when no operation or endpoint says otherwise.
    public var defaultSeconds: TimeInterval
    /// Seconds per operation name.
    public var operations: [String: TimeInterval]
    /// Seconds per endpoint, checked before the operation.
    public var endpoints: [Endpoint]

    /// Creates a declaration.
    public init(defaultSeconds: TimeInterval = standardSeconds, operations: [String: TimeInterval] = [:], endpoints: [Endpoint] = []) {
        self.defaultSeconds = defaultSeconds
        self.operations = operations
        self.endpoints = endpoints
    }

    /// The time-to-live for a request to `url` made by `operation`, and where it comes from (for `--verbose`).
    public func lifetime(for url: URL, baseURL: URL, operation: String?) -> (seconds: TimeInterval, reason: String) {
        let path = Self.relativePath(of: url, below: baseURL)
        if let endpoint = endpoints.first(where: { Self.path(path, startsWith: $0.pathPrefix) }) {
            return (endpoint.seconds, "the provider's \(Self.describe(endpoint.seconds)) for \(endpoint.pathPrefix)")
        }
        if let operation, let seconds = operations[operation] {
            return (seconds, "the provider's \(Self.describe(seconds)) for '\(operation)'")
        }
        return (defaultSeconds, "the provider's default of \(Self.describe(defaultSeconds))")
    }

    /// For `aggregate describe`: `1 h; search, popular: 10 min; /configuration: 1 day`.
    public var summary: String {
        var parts = [Self.describe(defaultSeconds)]
        let byTime = Dictionary(grouping: operations.keys.sorted()) { operations[$0] ?? 0 }
        for (seconds, names) in byTime.sorted(by: { $0.key < $1.key }) { parts.append("\(names.joined(separator: ", ")): \(Self.describe(seconds))") }
        parts += endpoints.map { "\($0.pathPrefix): \(Self.describe($0.seconds))" }
        return parts.joined(separator: "; ")
    }

    /// The declaration as JSON, in the shape a provider definition would carry it.
    public var jsonValue: JSONValue {
        [
            "defaultSeconds": .int(Int(defaultSeconds)),
            "operations": .object(JSONObject(operations.sorted { $0.key < $1.key }.map { .init($0.key, .int(Int($0.value))) })),
            "endpoints": .array(endpoints.map { ["pathPrefix": .string($0.pathPrefix), "seconds": .int(Int($0.seconds))] }),
        ]
    }

    /// `url`'s path with the base URL's path removed (`/3/configuration` below `/3` is `/configuration`).
    static func relativePath(of url: URL, below baseURL: URL) -> String {
        var base = baseURL.path
        while base.hasSuffix("/") { base.removeLast() }
        let path = url.path.isEmpty ? "/" : url.path
        guard !base.isEmpty, path.hasPrefix(base) else { return path }
        let rest = String(path.dropFirst(base.count))
        return rest.isEmpty ? "/" : rest
    }

    private static func path(_ path: String, startsWith prefix: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        return path.count == prefix.count || prefix.hasSuffix("/") || path.dropFirst(prefix.count).first == "/"
            || path.dropFirst(prefix.count).first == "."
    }

    /// `45 s`, `10 min`, `1 h`, `1 day`.
    package static func describe(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 86_400, whole % 86_400 == 0 { return whole == 86_400 ? "1 day" : "\(whole / 86_400) days" }
        if whole >= 3600, whole % 3600 == 0 { return "\(whole / 3600) h" }
        if whole >= 60, whole % 60 == 0 { return "\(whole / 60) min" }
        return "\(whole) s"
    }
}
