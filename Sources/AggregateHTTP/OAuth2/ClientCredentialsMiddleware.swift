public import AggregateCore
import AggregateJSON
public import Foundation

/// The token step of a client-credentials provider (``ClientCredentialsGrant``): it attaches the access token to
/// every exchange as the exchange's credential (so the redirect step sends it to the API's origin only, and every
/// later step redacts it), and when the API answers 401 it fetches a new token once and sends the request once more.
///
/// It sits first in ``FetchOptions/middlewares``, before the disk cache, so the cache keys entries by the token
/// (hashed) and never shares an answer between two clients.
public struct ClientCredentialsMiddleware: FetchMiddleware {
    let session: ClientCredentialsSession

    /// Creates the step for one run.
    /// - Parameters:
    ///   - provider: the provider's name, for messages, events and the cache key.
    ///   - grant: the declared grant.
    ///   - baseURL: the run's base URL, which a relative token URL is under.
    ///   - environment: where the client id and secret are read.
    ///   - transport: what sends the token request, past every other step.
    ///   - cache: where tokens are kept between runs, or `nil` (offline runs: the emulator's tokens stay in memory).
    ///   - options: the run's timeout, clock, events and plain-http rule.
    /// - Throws: a `config` error when the token URL is not a URL.
    public init(
        provider: String, grant: ClientCredentialsGrant, baseURL: URL, environment: [String: String], transport: any HTTPTransport,
        cache: ClientCredentialsTokenCache?, options: FetchOptions
    ) throws(AggregateError) {
        guard let tokenURL = grant.resolvedTokenURL(baseURL: baseURL) else {
            throw AggregateError(.config, "the token URL '\(grant.tokenURL)' of its oauth2 section is not a URL", provider: provider)
        }
        session = ClientCredentialsSession(
            provider: provider, grant: grant, tokenURL: tokenURL, clientID: environment[grant.clientIDVariable] ?? "",
            secret: environment[grant.clientSecretVariable] ?? "", transport: transport, cache: cache, options: options)
    }

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let token = try await session.token()
        let response = try await send(request, exchange: exchange, token: token, next: next)
        guard response.status == 401 else { return response }
        // Revoked or expired early: one new token, one more try; a second 401 is the API's answer.
        let fresh = try await session.refresh(replacing: token)
        return try await send(request, exchange: exchange, token: fresh, next: next)
    }

    private func send(
        _ request: HTTPRequest, exchange: FetchExchange, token: String, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var carrying = exchange
        carrying.credential = .bearer(token)
        carrying.redactor = session.redactor(exchange.redactor, token: token)
        var response = try await next(request, carrying)
        // An API that echoes the token (in an error, say) must not hand it to the normalizer or an error message.
        if response.body.range(of: Data(token.utf8)) != nil { response.body = carrying.redactor.redact(response.body) }
        return response
    }
}

/// One run's token: from memory, then the cache file, then the token endpoint; one fetch at a time.
actor ClientCredentialsSession {
    let provider: String
    let grant: ClientCredentialsGrant
    let tokenURL: URL
    let clientID: String
    let secret: String
    let transport: any HTTPTransport
    let cache: ClientCredentialsTokenCache?
    let options: FetchOptions
    private var current: String?
    private var fetching: Task<String, any Error>?

    init(
        provider: String, grant: ClientCredentialsGrant, tokenURL: URL, clientID: String, secret: String, transport: any HTTPTransport,
        cache: ClientCredentialsTokenCache?, options: FetchOptions
    ) {
        self.provider = provider
        self.grant = grant
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.secret = secret
        self.transport = transport
        self.cache = cache
        self.options = options
    }

    /// `base` also masking the client id, the secret and `token`.
    nonisolated func redactor(_ base: Redactor, token: String) -> Redactor {
        base.adding([token, secret, clientID].filter { !$0.isEmpty && !base.secrets.contains($0) })
    }

    /// The token to send: the one this run has, a kept one that has not expired, or a new one.
    func token() async throws -> String {
        if let current { return current }
        if let fetching { return try await fetching.value }
        if let kept = cache?.load(provider: provider, tokenURL: tokenURL, clientID: clientID), kept.token.isUsable(at: options.now(), lifetime: kept.lifetime) {
            current = kept.token.value
            return kept.token.value
        }
        return try await fetch()
    }

    /// A new token after the API refused `old` (unless another request of the run already got one).
    func refresh(replacing old: String) async throws -> String {
        if let current, current != old { return current }
        if let fetching { return try await fetching.value }
        current = nil
        return try await fetch()
    }

    private func fetch() async throws -> String {
        let task = Task { try await self.requestToken() }
        fetching = task
        defer { fetching = nil }
        do {
            let token = try await task.value
            current = token
            return token
        } catch {
            cache?.remove(provider: provider, tokenURL: tokenURL, clientID: clientID)
            throw error
        }
    }

    // MARK: The token request

    private var variables: String { "\(grant.clientIDVariable) and \(grant.clientSecretVariable)" }

    /// Where the token comes from, for messages: the URL without its query.
    private var endpoint: String {
        var components = URLComponents(url: tokenURL, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        return components?.url?.absoluteString ?? tokenURL.host ?? "the token endpoint"
    }

    private func requestToken() async throws -> String {
        guard !clientID.isEmpty, !secret.isEmpty else {
            let missing = clientID.isEmpty ? grant.clientIDVariable : grant.clientSecretVariable
            throw AggregateError(.config, "\(missing) is not set: OAuth2 needs \(variables) to get a token from \(endpoint)", provider: provider)
        }
        do {
            try RedirectMiddleware.checkScheme(tokenURL, allowHTTP: options.allowHTTP)
        } catch var error as AggregateError {
            error.message = "the token URL: " + error.message
            throw error
        }
        var form: [(String, String)] = [("grant_type", "client_credentials")]
        if let scope = grant.scope { form.append(("scope", scope)) }
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        switch grant.clientAuthentication {
        case .basic:
            // RFC 6749 §2.3.1: the id and the secret are form-encoded before they are joined and base64-encoded.
            let pair = Self.formEncode(clientID) + ":" + Self.formEncode(secret)
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        case .form:
            form += [("client_id", clientID), ("client_secret", secret)]
        }
        let body = Data(form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        let request = HTTPRequest(method: "POST", url: tokenURL, headers: headers, body: body, timeout: options.timeout, maxResponseBytes: 1 << 20)
        options.events(FetchEvent(provider: provider, kind: .request(method: "POST", url: endpoint, attempt: 1)))
        let started = Date()
        let response: HTTPResponse
        do {
            // The size cap and the deadline hold for the token request too; nothing else sees it.
            let chain = FetchChain([SizeCapMiddleware(), DeadlineMiddleware()], transport: transport)
            response = try await chain.send(request, exchange: FetchExchange(provider: provider, origin: tokenURL, redactor: redactor(Redactor(), token: "")))
        } catch let error as AggregateError {
            throw AggregateError(
                error.kind, "could not get an OAuth2 token from \(endpoint): \(redactor(Redactor(), token: "").redact(error.message)); check the token URL (or --base-url)",
                provider: provider)
        } catch {
            throw AggregateError(.network, "could not get an OAuth2 token from \(endpoint); check the token URL (or --base-url)", provider: provider)
        }
        options.events(FetchEvent(
            provider: provider, kind: .response(status: response.status, bytes: response.body.count, milliseconds: Date().timeIntervalSince(started) * 1000)))
        return try read(response, fetchedAt: options.now())
    }

    /// The token in a token response, kept in the cache; or the error it tells, in words that never quote it.
    private func read(_ response: HTTPResponse, fetchedAt now: Date) throws -> String {
        let json = try? JSONParser().parse(response.body)
        guard response.isSuccess else {
            // RFC 6749 §5.2: `error` is one of a few ASCII codes; anything else is not repeated.
            let code = json?["error"]?.string.flatMap { code in code.count <= 40 && code.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) ? code : nil }
            let said = code.map { " (\($0))" } ?? ""
            switch (response.status, code) {
            case (401, _), (_, "invalid_client"?):
                throw AggregateError(
                    .auth, "the token endpoint \(endpoint) rejected the client\(said), HTTP \(response.status): check \(variables)", provider: provider,
                    httpStatus: response.status)
            case (_, "invalid_grant"?), (_, "unauthorized_client"?), (_, "invalid_scope"?), (403, _):
                let scope = grant.scope.map { " and the scope '\($0)'" } ?? ""
                throw AggregateError(
                    .auth, "the token endpoint \(endpoint) refused the grant\(said), HTTP \(response.status): check \(variables)\(scope)", provider: provider,
                    httpStatus: response.status)
            default:
                throw AggregateError(
                    .http, "the token endpoint \(endpoint) answered HTTP \(response.status)\(said) instead of a token; check \(variables) and the token URL",
                    provider: provider, httpStatus: response.status)
            }
        }
        guard case .string(let token)? = json?["access_token"], !token.isEmpty, token.allSatisfy({ !$0.isWhitespace }) else {
            throw AggregateError(.decoding, "the token endpoint \(endpoint) answered without an access_token", provider: provider)
        }
        if let type = json?["token_type"]?.string, type.lowercased() != "bearer" {
            throw AggregateError(.decoding, "the token endpoint \(endpoint) gave a '\(type.prefix(20))' token; only bearer tokens are supported", provider: provider)
        }
        let lifetime = (json?["expires_in"]?.double ?? json?["expires_in"]?.string.flatMap(Double.init)).map { max(0, $0) }
        let kept = ClientCredentialsTokenCache.Token(value: token, expiresAt: lifetime.map { now.addingTimeInterval($0) })
        // A token that cannot be kept still serves this run; the next run fetches another.
        do {
            try cache?.save(kept, lifetime: lifetime, provider: provider, tokenURL: tokenURL, clientID: clientID)
        } catch {
            options.events(FetchEvent(provider: provider, kind: .warning(error.message)))
        }
        return token
    }

    /// `application/x-www-form-urlencoded` text: everything but the unreserved characters escaped.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
