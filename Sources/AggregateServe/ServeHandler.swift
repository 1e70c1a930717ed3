import AggregateCore
import AggregateHTTP
import AggregateHTTPServer
import AggregateJSON
import AggregateRendering
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
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { Self.percentDecoded(String($0)) }
        if segments == ["v1", "compare"] {
            guard request.method == "POST" else {
                return Routed(route: "/v1/compare", response: .error(405, "POST /v1/compare with a JSON body: {\"invocations\": [\"tmdb search batman\", \"kiva newest\"], \"limit\": 5}", headers: ["Allow": "POST"]))
            }
            return compare(body: request.body)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return Routed(route: "(method)", response: .error(405, "only GET and HEAD are served here", headers: ["Allow": "GET, HEAD"]))
        }
        switch segments.count {
        case 1 where segments[0] == "":
            return queryPage(Self.rawQuery(of: request.target))
        case 1 where segments[0] == "compare":
            return comparePage(Self.rawQuery(of: request.target))
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
        case 2 where segments == ["v1", "sql"]:
            return sql(query: Self.query(of: request.target))
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

    // MARK: - The web page

    /// `GET /`: the query form, and the selection's result below it; 400 for a query string with a mistake.
    private func queryPage(_ query: String) -> Routed {
        let descriptors = backend.descriptors
        let request = QueryPage.request(query, descriptors: descriptors)
        var result: ProviderResult?
        var error = request.error
        if request.shouldRun, let selection = request.selection, let descriptor = descriptors.first(where: { $0.name == selection.provider }) {
            let arguments = selection.arguments(descriptor)
            let (backend, metrics) = (self.backend, self.metrics)
            let outcome = awaited { () async -> Result<ProviderResult, AggregateError> in
                do throws(AggregateError) {
                    return .success(try await backend.result(arguments) { metrics.record($0) })
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let answered)?: result = answered
            case .failure(let refused)?: error = refused
            case nil: error = timedOut()
            }
        }
        var status = error.map { ServeAnswer.status(for: $0.kind) } ?? 200
        if let failed = result?.error { status = ServeAnswer.status(for: failed.kind) }
        if status == 429 { metrics.recordRateLimitRefusal(provider: request.selection?.provider ?? "") }
        let html = QueryPage.render(descriptors: descriptors, selection: request.selection, result: result, error: error)
        return Routed(route: "/", response: Self.page(status, html), provider: request.shouldRun ? request.selection?.provider : nil)
    }

    /// `GET /compare`: the compare form, and the compare report's sections for its invocations, run as
    /// `aggregate compare` runs them; 400 for a query string or an invocation with a mistake.
    private func comparePage(_ query: String) -> Routed {
        let descriptors = backend.descriptors
        let request = ComparePage.request(query, descriptors: descriptors)
        var rows: [ComparisonRow] = []
        var error = request.error
        if request.shouldRun, let selection = request.selection {
            switch runCompare(selection.invocations, limit: selection.limit) {
            case .success(let ran): rows = ran
            case .failure(let refused): error = refused
            }
        }
        let status = error.map { ServeAnswer.status(for: $0.kind) } ?? 200
        let html = ComparePage.render(descriptors: descriptors, selection: request.selection, rows: rows, error: error)
        return Routed(route: "/compare", response: Self.page(status, html))
    }

    /// An HTML page with the policy that lets only its own style sheet and script run.
    static func page(_ status: Int, _ html: String) -> OutgoingResponse {
        OutgoingResponse(
            status: status,
            headers: [
                "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": WebPage.contentSecurityPolicy,
                "X-Content-Type-Options": "nosniff",
            ],
            body: .data(Data(html.utf8)))
    }

    // MARK: - Compare

    /// The most bytes of a `POST /v1/compare` body: its invocations are short lines.
    static let maximumCompareBodyBytes = 64 << 10

    /// `POST /v1/compare`: `{"invocations": ["tmdb search batman", "kiva newest"], "limit": 5}` answers what
    /// `aggregate compare 'tmdb search batman' 'kiva newest' --limit 5 --format json` prints.
    private func compare(body: Data) -> Routed {
        let route = "/v1/compare"
        let invocations: [String]
        let limit: Int?
        guard body.count <= Self.maximumCompareBodyBytes else {
            let answer = ServeAnswer.error(413, kind: "tooLarge", "the body is \(body.count) bytes; POST /v1/compare reads at most \(Self.maximumCompareBodyBytes)")
            return Routed(route: route, response: Self.response(answer))
        }
        do throws(AggregateError) {
            (invocations, limit) = try Self.compareRequest(body)
        } catch {
            return Routed(route: route, response: Self.response(ServeAnswer.error(error)))
        }
        switch runCompare(invocations, limit: limit) {
        case .success(let rows):
            let answer = ServeAnswer(status: 200, contentType: ServeFormat.json.contentType, body: Data(ComparisonRow.json(rows).utf8))
            return Routed(route: route, response: Self.response(answer))
        case .failure(let error):
            return Routed(route: route, response: Self.response(ServeAnswer.error(error)))
        }
    }

    /// Reads a `POST /v1/compare` body.
    /// - Throws: one `usage` error saying what the body must be.
    static func compareRequest(_ body: Data) throws(AggregateError) -> (invocations: [String], limit: Int?) {
        let shape = "the body must be a JSON object such as {\"invocations\": [\"tmdb search batman\", \"kiva newest\"], \"limit\": 5}"
        guard let document = try? JSONParser().parse(body), case .object(let object) = document else {
            throw AggregateError(.usage, shape)
        }
        if let unknown = object.keys.first(where: { !["invocations", "limit"].contains($0) }) {
            throw AggregateError(.usage, "unknown member '\(unknown)' in the body (members: invocations, limit); \(shape)")
        }
        guard case .array(let values)? = object["invocations"] else {
            throw AggregateError(.usage, "missing 'invocations', an array of strings; \(shape)")
        }
        var invocations: [String] = []
        for value in values {
            guard let text = value.string, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw AggregateError(.usage, "each invocation must be a non-empty string written as after 'aggregate', e.g. \"tmdb search batman\"")
            }
            invocations.append(text)
        }
        guard !invocations.isEmpty else { throw AggregateError(.usage, "give at least one invocation; \(shape)") }
        guard invocations.count <= CompareSelection.maximumInvocations else {
            throw AggregateError(.usage, "give at most \(CompareSelection.maximumInvocations) invocations to compare, not \(invocations.count)")
        }
        var limit: Int?
        if let value = object["limit"] {
            guard let number = value.int, QuerySelection.limitRange.contains(number) else {
                throw AggregateError(.usage, "'limit' must be a whole number from 1 to 10000")
            }
            limit = number
        }
        return (invocations, limit)
    }

    /// Runs invocations through the backend as `aggregate compare` does, within the time cap.
    private func runCompare(_ invocations: [String], limit: Int?) -> Result<[ComparisonRow], AggregateError> {
        let (backend, metrics) = (self.backend, self.metrics)
        let outcome = awaited { () async -> Result<[ComparisonRow], AggregateError> in
            do throws(AggregateError) {
                return .success(try await backend.compare(invocations, limit: limit) { metrics.record($0) })
            } catch {
                return .failure(error)
            }
        }
        return outcome ?? .failure(timedOut())
    }

    // MARK: - SQL

    /// `GET /v1/sql?q=SELECT...`: what `aggregate sql "<statement>" --format json` prints.
    private func sql(query: [ServeParameter]) -> Routed {
        let route = "/v1/sql"
        if let unknown = query.first(where: { $0.name != "q" }) {
            let answer = ServeAnswer.error(400, kind: "usage", "unknown parameter '\(unknown.name)' for /v1/sql\(DidYouMean.suffix(for: unknown.name, among: ["q"])) (parameters: q)")
            return Routed(route: route, response: Self.response(answer))
        }
        let statements = query.map(\.value)
        guard statements.count == 1, let statement = statements.first, !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            let answer = ServeAnswer.error(
                400, kind: "usage", statements.count > 1 ? "give q once: one statement a request" : "missing q, the SQL statement, e.g. /v1/sql?q=SELECT+title+FROM+tmdb_popular+LIMIT+5")
            return Routed(route: route, response: Self.response(answer))
        }
        // Only queries: ATTACH or VACUUM INTO would let a client create files wherever the server may write.
        let first = statement.drop { $0.isWhitespace }.prefix { $0.isLetter }.uppercased()
        guard ["SELECT", "WITH", "VALUES"].contains(first) else {
            let answer = ServeAnswer.error(
                400, kind: "usage", "/v1/sql runs only queries: the statement must start with SELECT, WITH or VALUES, not '\(statement.trimmingCharacters(in: .whitespacesAndNewlines).prefix(20))'")
            return Routed(route: route, response: Self.response(answer))
        }
        let (backend, metrics) = (self.backend, self.metrics)
        guard let answered = awaited({ await backend.sql(statement) { metrics.record($0) } }) else {
            return Routed(route: route, response: Self.response(ServeAnswer.error(timedOut())))
        }
        return Routed(route: route, response: Self.response(answered))
    }

    // MARK: - Running

    /// Runs `work` on the concurrency pool and waits for it on this connection's thread, for at most the server's
    /// time cap; `nil` past it.
    private func awaited<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T? {
        let answer = Guarded<T?>(nil)
        Task {
            let result = await work()
            answer.withLock { $0 = result }
        }
        guard answer.wait(until: { $0 != nil }, timeout: configuration.requestTimeout) else { return nil }
        return answer.withLock { $0 }
    }

    private func timedOut() -> AggregateError {
        AggregateError(.timeout, "the answer took longer than the server's \(Self.describe(configuration.requestTimeout)) request time cap")
    }

    static func response(_ answer: ServeAnswer) -> OutgoingResponse {
        OutgoingResponse(status: answer.status, headers: ["Content-Type": answer.contentType], body: .data(answer.body))
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
        let (backend, metrics) = (self.backend, self.metrics)
        guard let answered = awaited({ await backend.run(call) { metrics.record($0) } }) else {
            return Routed(
                route: route, response: .error(504, "the answer took longer than the server's \(Self.describe(configuration.requestTimeout)) request time cap"),
                provider: provider)
        }
        if answered.status == 429 { metrics.recordRateLimitRefusal(provider: provider) }
        return Routed(route: route, response: Self.response(answered), provider: provider)
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

    /// The target's query string as sent (without `?` or a fragment), for the web page's own reader.
    static func rawQuery(of target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        return String(target[target.index(after: mark)...].prefix { $0 != "#" })
    }

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
