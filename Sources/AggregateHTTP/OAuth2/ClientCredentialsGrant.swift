public import AggregateCore
public import Foundation

/// An OAuth2 client-credentials grant (RFC 6749 §4.4): where a provider's access token comes from. The runner
/// fetches the token with the client id and secret, sends it as `Authorization: Bearer`, keeps it until it expires
/// (``ClientCredentialsTokenCache``) and fetches a new one once when the API answers 401.
///
/// The token request goes straight to the transport, past the disk cache, the rate limiter and the recorder, so
/// neither the secret nor the token response is ever stored; a replay needs no token at all.
public struct ClientCredentialsGrant: Sendable, Equatable {
    /// How the client proves who it is to the token endpoint (RFC 6749 §2.3.1).
    public enum ClientAuthentication: String, Sendable, CaseIterable {
        /// `Authorization: Basic` with the form-encoded id and secret: what every server must accept.
        case basic
        /// `client_id` and `client_secret` in the request body.
        case form
    }

    /// The token endpoint: an absolute URL, or a path relative to the base URL (so `--base-url` and the sandbox
    /// move it with the API).
    public var tokenURL: String
    /// The variable that holds the client id.
    public var clientIDVariable: String
    /// The variable that holds the client secret.
    public var clientSecretVariable: String
    /// The `scope` asked for, or `nil` for the server's default.
    public var scope: String?
    /// How the client authenticates.
    public var clientAuthentication: ClientAuthentication

    /// Creates a grant.
    public init(tokenURL: String, clientIDVariable: String, clientSecretVariable: String, scope: String? = nil, clientAuthentication: ClientAuthentication = .basic) {
        self.tokenURL = tokenURL
        self.clientIDVariable = clientIDVariable
        self.clientSecretVariable = clientSecretVariable
        self.scope = scope
        self.clientAuthentication = clientAuthentication
    }

    /// The token endpoint for a run against `baseURL`: an absolute token URL as it is, a relative one under the
    /// base URL (`oauth/token` and `/oauth/token` both go below its path, as request paths do).
    public func resolvedTokenURL(baseURL: URL) -> URL? {
        if let absolute = URL(string: tokenURL), absolute.scheme != nil, absolute.host != nil { return absolute }
        return baseURL.appendingEndpoint(tokenURL.hasPrefix("/") ? tokenURL : "/" + tokenURL)
    }
}

/// A provider whose requests carry an OAuth2 client-credentials token (a definition with an `oauth2` section).
/// ``ProviderRunner`` adds the token step for it.
public protocol ClientCredentialsProvider: RunnableProvider {
    /// The grant, or `nil` when this provider uses none.
    var clientCredentialsGrant: ClientCredentialsGrant? { get }
}
