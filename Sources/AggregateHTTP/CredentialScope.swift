public import AggregateCore
public import Foundation

/// Where a provider's credentials may travel: only to the origin (scheme, host and port) of its base URL. The one
/// origin policy for every URL a run goes to, whether a redirect's `Location`, a `Link` header's `rel="next"` or a
/// `next` URL in a body.
///
/// The fetch layer attaches a credential only to requests inside the scope. A URL outside it loses every query
/// parameter that could carry one (servers often copy the original query string into `Location` and next links),
/// and is refused when a credential is still in it anywhere else (its path, user name or password, fragment) or
/// when it names a user or password at all, which a client would send as Basic authentication.
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

    /// The URL a request may go to: inside the scope as it is; outside it without its credential parameters.
    /// - Throws: an `http` error, before anything is sent, when a URL outside the scope still holds a known secret
    ///   in any form or names a user or password.
    public func permitted(_ url: URL, credential: Credential?, redactor: Redactor) throws(AggregateError) -> URL {
        guard !contains(url) else { return url }
        let destination = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        if url.user != nil || url.password != nil {
            throw AggregateError(
                .http, "refused to go to \(destination): the URL names a user or password, which would be sent there as credentials; nothing was sent")
        }
        let kept = stripped(url, credential: credential, redactor: redactor)
        let text = kept.absoluteString
        if redactor.containsSecret(text) || redactor.containsSecret(text.removingPercentEncoding ?? text) {
            throw AggregateError(
                .http, "refused to go to \(destination), another origin than the API's: the URL holds the credential; nothing was sent there")
        }
        return kept
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
