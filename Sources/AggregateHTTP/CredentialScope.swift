public import AggregateCore
public import Foundation

/// Where a provider's credentials may travel: only to the origin (scheme, host and port) of its base URL.
///
/// The fetch layer attaches a credential only to requests inside the scope, and when a redirect leaves it, takes
/// out of the new URL every query parameter that could carry one, since servers often copy the original query
/// string into `Location`.
public struct CredentialScope: Sendable, Equatable {
    private let scheme: String?
    private let host: String?
    private let port: Int?

    /// The scope of `baseURL`'s origin.
    public init(baseURL: URL) {
        scheme = baseURL.scheme?.lowercased()
        host = baseURL.host?.lowercased()
        port = Self.effectivePort(of: baseURL)
    }

    /// Whether `url` has the same origin as the base URL.
    public func contains(_ url: URL) -> Bool {
        url.scheme?.lowercased() == scheme && url.host?.lowercased() == host && Self.effectivePort(of: url) == port
    }

    /// `url` without the query parameters that carry credentials: the credential's own parameter (e.g. Meetup's
    /// `key`, TMDb's `api_key`), every conventionally sensitive name, and any value holding a known secret in
    /// any encoding.
    public func stripped(_ url: URL, credential: Credential?, redactor: Redactor) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let items = components.percentEncodedQueryItems
        else { return url }
        var names = Redactor.sensitiveQueryNames
        if case .queryParameter(let name, _)? = credential { names.insert(name.lowercased()) }
        let kept = items.filter { item in
            let name = (item.name.removingPercentEncoding ?? item.name).lowercased()
            // Percent-decoded too: a server may have escaped an already encoded echo once more.
            let texts = [item.name, item.value ?? ""].flatMap { [$0, $0.removingPercentEncoding ?? $0] }
            return !names.contains(name) && !texts.contains(where: redactor.containsSecret)
        }
        guard kept.count != items.count else { return url }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }

    private static func effectivePort(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
