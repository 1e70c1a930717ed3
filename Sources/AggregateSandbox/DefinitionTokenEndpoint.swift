import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import AggregateText
import Foundation

/// The emulator's OAuth2 token endpoint (RFC 6749 §4.4) for a definition with an `oauth2` section, and the check of
/// the tokens it issued on every API request.
///
/// Tokens are stateless: `sbx.<expiry>.<salt>.<signature>`, signed with a key of this server process (or the
/// `oauth2.key` setting), so a restarted sandbox has revoked every token it issued before, as a real server
/// may at any time. Their lifetime is the definition's `sandboxTokenLifetime`, or `aggregate sandbox
/// --token-lifetime SECONDS` (the `oauth2.token-lifetime` setting); 0 issues tokens that are already expired.
struct DefinitionTokenEndpoint {
    let definition: ProviderDefinition
    let oauth2: DefinitionOAuth2

    /// The setting that overrides every definition's token lifetime, in seconds.
    static let lifetimeSetting = "oauth2.token-lifetime"
    /// The setting that replaces the process's signing key (tests: a "restart" without a new process).
    static let keySetting = "oauth2.key"
    /// This process's signing key.
    static let processKey = UUID().uuidString

    init?(_ definition: ProviderDefinition) {
        guard let oauth2 = definition.oauth2 else { return nil }
        self.definition = definition
        self.oauth2 = oauth2
    }

    /// The path the endpoint answers on, below the definition's mount (`/<name>`).
    var path: String {
        if let absolute = URL(string: oauth2.grant.tokenURL), absolute.scheme != nil, absolute.host != nil {
            return absolute.path.isEmpty ? "/" : absolute.path
        }
        return oauth2.grant.tokenURL.hasPrefix("/") ? oauth2.grant.tokenURL : "/" + oauth2.grant.tokenURL
    }

    /// The token endpoint's answer, or `nil` when `request` is for another path.
    func response(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard request.path == path else { return nil }
        guard request.method == "POST" else { return Self.oauthError(405, "invalid_request", "the token endpoint takes POST") }
        let form = SandboxRequest.decodeQuery(String(decoding: request.body, as: UTF8.self))
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        guard field("grant_type") == "client_credentials" else {
            return Self.oauthError(400, "unsupported_grant_type", "only grant_type=client_credentials is supported")
        }
        let sent: (id: String, secret: String)?
        switch oauth2.grant.clientAuthentication {
        case .basic: sent = Self.basicCredentials(request.headers["Authorization"])
        case .form: sent = field("client_id").map { ($0, field("client_secret") ?? "") }
        }
        guard let sent, sent.id == sandboxValue(oauth2.grant.clientIDVariable), sent.secret == sandboxValue(oauth2.grant.clientSecretVariable) else {
            // No `WWW-Authenticate: Basic` (RFC 6749 §5.2 asks for one): Linux's URLSession waits on such a
            // challenge instead of handing the 401 back.
            return Self.oauthError(401, "invalid_client", "the client id or secret was rejected")
        }
        let lifetime = context.settings[Self.lifetimeSetting].flatMap { Int($0) } ?? oauth2.sandboxTokenLifetime
        var answer: JSONObject = [
            "access_token": .string(token(expiring: Int(context.now.timeIntervalSince1970) + lifetime, context: context)), "token_type": "Bearer",
            "expires_in": .number(String(lifetime)),
        ]
        if let scope = field("scope") ?? oauth2.grant.scope { answer["scope"] = .string(scope) }
        return .json(.object(answer), headers: ["Cache-Control": "no-store", "Pragma": "no-cache"])
    }

    /// Why `request` may not have the API's answer: no token, one this server did not issue, or an expired one;
    /// `nil` when its token is good.
    func rejection(of request: SandboxRequest, context: SandboxContext) -> String? {
        guard let sent = request.bearerToken else { return "an access token is required" }
        let parts = sent.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "sbx", let expiry = Int(parts[1]), signature(expiry: expiry, salt: parts[2], context: context) == parts[3] else {
            return "the access token is not one this server issued"
        }
        guard Double(expiry) > context.now.timeIntervalSince1970 else { return "the access token has expired" }
        return nil
    }

    // MARK: Parts

    private func sandboxValue(_ variable: String) -> String? { definition.credentials.first { $0.variable.name == variable }?.sandboxValue }

    private func token(expiring expiry: Int, context: SandboxContext) -> String {
        let salt = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "sbx.\(expiry).\(salt).\(signature(expiry: expiry, salt: salt, context: context))"
    }

    private func signature(expiry: Int, salt: String, context: SandboxContext) -> String {
        let key = context.settings[Self.keySetting] ?? Self.processKey
        return String(SHA256.hex(Array("\(key)\n\(definition.name)\n\(expiry)\n\(salt)".utf8)).prefix(32))
    }

    /// The id and secret of `Authorization: Basic`, form-decoded as RFC 6749 §2.3.1 says.
    static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.lowercased().hasPrefix("basic "),
              let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        func formDecoded(_ part: Substring) -> String { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
        return (formDecoded(text[..<colon]), formDecoded(text[text.index(after: colon)...]))
    }

    /// RFC 6749 §5.2's error body.
    static func oauthError(_ status: Int, _ code: String, _ description: String) -> SandboxResponse {
        .json(["error": .string(code), "error_description": .string(description)], status: status, headers: ["Cache-Control": "no-store"])
    }
}

extension DefinitionSandbox {
    /// The server setting (`aggregate sandbox --token-lifetime SECONDS`) that sets the lifetime of every OAuth2 token
    /// the definition emulators issue, instead of each definition's `sandboxTokenLifetime`.
    public static let tokenLifetimeSetting = DefinitionTokenEndpoint.lifetimeSetting
    /// The server setting that replaces the process's key for signing OAuth2 tokens: a server with another key has
    /// revoked every token of the one before.
    public static let tokenKeySetting = DefinitionTokenEndpoint.keySetting
}
