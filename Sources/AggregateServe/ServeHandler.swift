import AggregateCore
import AggregateHTTP
import AggregateHTTPServer
import AggregateJSON
import AggregateText
import Foundation

/// Routes `aggregate serve`'s requests: checks the token and the client's budget, answers, counts, and logs.
struct ServeHandler: HTTPServerHandler {
    typealias ConnectionState = Void

    let backend: any ServeBackend
    let configuration: ServeConfiguration
    let metrics: ServeMetrics
    let budgets: ClientBudgets?
    let redactor: Redactor

    init(backend: any ServeBackend, configuration: ServeConfiguration, metrics: ServeMetrics) {
        self.backend = backend
        self.configuration = configuration
        self.metrics = metrics
        self.budgets = configuration.clientBudget.map { ClientBudgets(requests: $0.requests, window: $0.window) }
        self.redactor = Redactor(secrets: backend.secrets + configuration.tokens)
    }

    func record(_ event: HTTPServerEvent) {
        switch event {
        case .acceptExhausted:
            log(["event": "accept-failed", "message": "out of file descriptors or memory"])
        case .refusedConnection(let peer):
            log(["event": "refused", "client": .string(peer), "status": 503, "message": "too many connections"])
        case .rejected(let rejection, let peer, let milliseconds):
            metrics.recordRequest(route: "(unreadable)", status: rejection.status, seconds: Double(milliseconds) / 1000)
            log([
                "client": .string(peer), "method": rejection.method.map(JSONValue.string) ?? .null,
                "path": rejection.target.map { .string(Self.path(of: $0)) } ?? .null, "status": .int(rejection.status),
                "ms": .int(milliseconds), "message": .string(rejection.message),
            ])
        }
    }

    func handle(_ request: ReceivedRequest, on connection: HTTPConnection, state: inout Void) -> HTTPReply {
        let started = ProcessInfo.processInfo.systemUptime
        let routed = respond(to: request, connection: connection)
        var response = routed.response
        if request.method == "HEAD" || request.method == "GET" {
            response.headers["Cache-Control"] = response.headers["Cache-Control"] ?? "no-store"
        }
        let seconds = ProcessInfo.processInfo.systemUptime - started
        metrics.recordRequest(route: routed.route, status: response.status, seconds: seconds)
        let peer = connection.peer
        let status = response.status
        return .response(response) { sent in
            var line: JSONObject = [
                "client": .string(peer), "method": .string(request.method), "path": .string(Self.path(of: request.target)),
                "route": .string(routed.route), "status": .int(status), "ms": .int(Int((seconds * 1000).rounded())),
            ]
            if let provider = routed.provider { line["provider"] = .string(provider) }
            line["bytes"] = sent.map { .int($0) } ?? .null
            if sent == nil { line["message"] = "not delivered: the client went away or stopped reading" }
            log(line)
        }
    }

    // MARK: - Routing

    private struct Routed {
        var route: String
        var response: OutgoingResponse
        var provider: String? = nil
    }

    private func respond(to request: ReceivedRequest, connection: HTTPConnection) -> Routed {
        let path = Self.path(of: request.target)
        var client = connection.peer.lastIndex(of: ":").map { String(connection.peer[..<$0]) } ?? connection.peer
        if !configuration.tokens.isEmpty {
            guard let index = Self.tokenIndex(request, tokens: configuration.tokens) else {
            return Routed(
                route: "(unauthorized)",
                response: .error(401, "a bearer token is required: send 'Authorization: Bearer <token>' with the token of the server's --token-file",
                                 headers: ["WWW-Authenticate": "Bearer realm=\"aggregate\""]))
            }
            // With tokens, a client is its token (one per team member or worker), wherever it connects from.
            client = "token \(index + 1)"
        }
        if let budgets {
            if let retryAfter = budgets.take(client: client, now: ProcessInfo.processInfo.systemUptime) {
                let seconds = max(1, Int(retryAfter.rounded(.up)))
                return Routed(
                    route: "(client budget)",
                    response: .error(429, "this client's budget of \(budgets.requests) requests per \(Self.describe(budgets.window)) is spent; retry after \(seconds) s",
                                     headers: ["Retry-After": String(seconds)]))
            }
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return Routed(route: "(method)", response: .error(405, "only GET and HEAD are served here", headers: ["Allow": "GET, HEAD"]))
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { Self.percentDecoded(String($0)) }
        switch segments.count {
        case 1 where segments[0] == "healthz":
            // The server answers from its local store while Redis is away, so it is still up: `store` says how.
            var health: JSONObject = ["status": "ok", "providers": .int(backend.providerNames.count)]
            if let store = backend.storeHealth { health["store"] = .string(store) }
            return Routed(route: "/healthz", response: .json(.object(health)))
        case 1 where segments[0] == "metrics":
            return Routed(
                route: "/metrics",
                response: OutgoingResponse(
                    status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: .data(Data(metrics.text().utf8))))
        case 1 where segments[0] == "openapi.json":
            return Routed(route: "/openapi.json", response: .json(ServeOpenAPI.document(providers: backend.providerNames)))
        case 2 where segments == ["v1", "providers"]:
            return Routed(route: "/v1/providers", response: .json(backend.providersDocument()))
        case 3 where segments[0] == "v1" && segments[1] == "providers":
            guard let document = backend.descriptorDocument(provider: segments[2]) else {
                return Routed(route: "/v1/providers/{name}", response: unknownProvider(segments[2]))
            }
            return Routed(route: "/v1/providers/{name}", response: .json(document), provider: segments[2])
        case 3 where segments[0] == "v1":
            return runOperation(provider: segments[1], operation: segments[2], query: Self.query(of: request.target))
        default:
            return Routed(route: "(unknown)", response: .error(404, "no route for \(path); see /openapi.json for the routes"))
        }
    }

    private func unknownProvider(_ name: String) -> OutgoingResponse {
        .error(404, "unknown provider '\(name)'\(DidYouMean.suffix(for: name, among: backend.providerNames, otherwise: ".")) Valid providers: \(backend.providerNames.joined(separator: ", ")).")
    }

    private func runOperation(provider: String, operation: String, query: [ServeParameter]) -> Routed {
        let route = "/v1/{provider}/{operation}"
        guard backend.providerNames.contains(provider) else { return Routed(route: route, response: unknownProvider(provider)) }
        var format = ServeFormat.json
        var parameters: [ServeParameter] = []
        for parameter in query {
            if parameter.name == "format" {
                guard let chosen = ServeFormat(rawValue: parameter.value) else {
                    return Routed(route: route, response: .error(400, "format must be json, ndjson or csv, not '\(parameter.value)'"), provider: provider)
                }
                format = chosen
            } else {
                parameters.append(parameter)
            }
        }
        let call = ServeCall(provider: provider, operation: operation, parameters: parameters, format: format)
        let answer = Guarded<ServeAnswer?>(nil)
        let (backend, metrics) = (self.backend, self.metrics)
        Task {
            let result = await backend.run(call) { metrics.record($0) }
            answer.withLock { $0 = result }
        }
        guard answer.wait(until: { $0 != nil }, timeout: configuration.requestTimeout), let answered = answer.withLock({ $0 }) else {
            return Routed(
                route: route, response: .error(504, "the answer took longer than the server's \(Self.describe(configuration.requestTimeout)) request time cap"),
                provider: provider)
        }
        if answered.status == 429 { metrics.recordRateLimitRefusal(provider: provider) }
        return Routed(
            route: route, response: OutgoingResponse(status: answered.status, headers: ["Content-Type": answered.contentType], body: .data(answered.body)),
            provider: provider)
    }

    // MARK: - Requests

    /// Which of `tokens` the request's `Authorization: Bearer <token>` carries, or `nil`; each is compared in
    /// constant time, and all of them always, so the time taken tells nothing.
    static func tokenIndex(_ request: ReceivedRequest, tokens: [String]) -> Int? {
        guard let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") else { return nil }
        let given = Array(header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces).utf8)
        var found: Int?
        for (position, token) in tokens.enumerated() {
            let expected = Array(token.utf8)
            var difference = given.count ^ expected.count
            for index in 0..<max(given.count, expected.count) {
                difference |= Int((index < given.count ? given[index] : 0) ^ (index < expected.count ? expected[index] : 0))
            }
            if difference == 0, found == nil { found = position }
        }
        return found
    }

    /// The target's path, without the query (which may hold parameters, so it is never logged).
    static func path(of target: String) -> String { String(target.prefix { $0 != "?" && $0 != "#" }) }

    /// The query's `name=value` pairs, percent-decoded, `+` read as a space.
    static func query(of target: String) -> [ServeParameter] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        let text = target[target.index(after: mark)...].prefix { $0 != "#" }
        return text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                percentDecoded(String($0).replacingOccurrences(of: "+", with: " "))
            }
            guard let name = parts.first, !name.isEmpty else { return nil }
            return ServeParameter(name, parts.count > 1 ? parts[1] : "")
        }
    }

    static func percentDecoded(_ text: String) -> String { text.removingPercentEncoding ?? text }

    static func describe(_ seconds: TimeInterval) -> String {
        switch seconds {
        case 60: return "minute"
        case 3600: return "hour"
        case 1: return "second"
        default: return HTTPServerDuration.describe(seconds)
        }
    }

    private func log(_ line: JSONObject) {
        var line = line
        line["time"] = .string(UTCTimestamp.iso8601(configuration.now(), milliseconds: true))
        configuration.log(redactor.redact(JSONWriter().string(.object(line))))
    }
}

/// Per-client request budgets (`--client-budget 30/min`): a fixed window per client, in memory.
final class ClientBudgets: Sendable {
    let requests: Int
    let window: TimeInterval
    private let windows = Guarded<[String: (start: TimeInterval, used: Int)]>([:])

    init(requests: Int, window: TimeInterval) {
        self.requests = requests
        self.window = window
    }

    /// Takes one request from `client`'s budget; `nil` when granted, else the seconds until its window resets.
    func take(client: String, now: TimeInterval) -> TimeInterval? {
        windows.withLock { windows in
            if windows.count > 10_000 { windows = windows.filter { now - $0.value.start < window } }
            var entry = windows[client] ?? (start: now, used: 0)
            if now - entry.start >= window { entry = (start: now, used: 0) }
            guard entry.used < requests else { return entry.start + window - now }
            entry.used += 1
            windows[client] = entry
            return nil
        }
    }
}
