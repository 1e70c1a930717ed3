import AggregateCore
public import AggregateHTTP

/// A definition's `oauth2` section: an OAuth2 client-credentials grant (RFC 6749 §4.4). The client id and secret
/// are two `auth` entries (`"in": "oauth2-client-id"` and `"in": "oauth2-client-secret"`), so `auth status`,
/// `describe` and redaction know them like any credential; the engine never sends them to the API, only to the
/// token endpoint, and sends the token it gets as `Authorization: Bearer`.
///
/// ```json
/// "auth": [
///   { "variable": "ACME_CLIENT_ID", "in": "oauth2-client-id", "required": true },
///   { "variable": "ACME_CLIENT_SECRET", "in": "oauth2-client-secret", "required": true }
/// ],
/// "oauth2": { "tokenURL": "/oauth/token", "scope": "read", "clientAuthentication": "basic" }
/// ```
public struct DefinitionOAuth2: Sendable, Equatable {
    /// What the runner fetches, caches and refreshes.
    public var grant: ClientCredentialsGrant
    /// The lifetime, in seconds, of the tokens the emulator issues (`sandboxTokenLifetime`, default an hour);
    /// `aggregate sandbox --token-lifetime SECONDS` overrides it.
    public var sandboxTokenLifetime: Int

    /// The `in` values of the two credentials.
    static let roles = ["oauth2-client-id", "oauth2-client-secret"]

    static func usage(of role: String) -> String {
        role == roles[0] ? "the OAuth2 client id, traded for an access token" : "the OAuth2 client secret, sent only to the token endpoint"
    }

    /// `describe`'s auth line.
    var authStyle: String { "OAuth2 client credentials (token from \(grant.tokenURL))" }

    /// Reads the section, and checks that the `auth` entries name exactly one client id and one secret when there
    /// is a section, and none without one.
    init?(reading reader: DefinitionReader?, credentials: [ProviderDefinition.Credential], auth: DefinitionReader?) throws(DefinitionProblem) {
        let roles = credentials.map(\.oauth2Role)
        guard let reader else {
            if let index = roles.firstIndex(where: { $0 != nil }) {
                throw DefinitionProblem((auth?.pointer ?? "/auth") + "/\(index)/in", "an OAuth2 credential needs the 'oauth2' section (its tokenURL)")
            }
            return nil
        }
        let fields = try reader.object(allowed: ["tokenURL", "scope", "clientAuthentication", "sandboxTokenLifetime"], required: ["tokenURL"])
        func variable(_ role: String) throws(DefinitionProblem) -> String {
            let named = credentials.indices.filter { roles[$0] == role }
            guard named.count == 1 else {
                throw reader.problem("needs exactly one 'auth' entry with \"in\": \"\(role)\" (found \(named.count))")
            }
            return credentials[named[0]].variable.name
        }
        let tokenURL = try fields.required("tokenURL").string()
        guard !tokenURL.contains(where: { $0 == " " || $0 == "{" }) else {
            throw fields.required("tokenURL").problem("'\(tokenURL)' is not a URL or a path")
        }
        grant = ClientCredentialsGrant(
            tokenURL: tokenURL, clientIDVariable: try variable(Self.roles[0]), clientSecretVariable: try variable(Self.roles[1]),
            scope: try fields["scope"]?.string(),
            clientAuthentication: try fields["clientAuthentication"]?.word(ClientCredentialsGrant.ClientAuthentication.self) ?? .basic)
        sandboxTokenLifetime = try fields["sandboxTokenLifetime"]?.integer(in: 0...31_536_000) ?? 3600
    }
}

extension DeclarativeProvider: ClientCredentialsProvider {
    /// The definition's grant, if it declares `oauth2`.
    public var clientCredentialsGrant: ClientCredentialsGrant? { definition.oauth2?.grant }
}
