import AggregateCore
import AggregateHTTP
import AggregateHTTPServer
import AggregateJSON
import AggregateSandboxKit
import Foundation

/// Turns one received request into a response: picks the fault that applies (if any), asks the router or the
/// provider's fault shape for the body, and writes the log line. Everything here is independent of sockets.
struct RequestHandler: Sendable {
    /// The request header that injects a fault into one request.
    static let faultHeader = "X-Sandbox-Fault"

    let router: SandboxRouter
    let configuration: SandboxServerConfiguration
    let redactor: Redactor
    let rules: FaultRules

    init(catalog: SandboxCatalog, configuration: SandboxServerConfiguration) {
        self.router = SandboxRouter(catalog: catalog)
        self.configuration = configuration
        self.redactor = Redactor(secrets: catalog.sandboxes.flatMap { Array($0.sandboxEnvironment.values) })
        self.rules = FaultRules(configuration.faults)
    }

    /// A fault chosen for a request, and where it came from (for the log).
    struct ChosenFault {
        var fault: SandboxFault
        var origin: String
    }

    /// The fault for `request`: its own header first, then the first live server-wide rule, then the fail rate.
    /// - Throws: a 400 rejection when the header's spec does not parse.
    func fault(for request: ReceivedRequest) throws -> ChosenFault? {
        if let spec = request.headers[Self.faultHeader] {
            do {
                let fault = try SandboxFault.parse(spec)
                // A header fault is for this request alone, so `times=` means nothing; `path=`/`method=` still filter.
                return fault.applies(method: request.method, path: request.path) ? ChosenFault(fault: fault, origin: "header") : nil
            } catch let error as AggregateError {
                throw RequestRejection(status: 400, message: error.message, target: request.target, method: request.method)
            }
        }
        if let fault = rules.take(method: request.method, path: request.path) {
            return ChosenFault(fault: fault, origin: "rule")
        }
        if configuration.failRate > 0, configuration.random() < configuration.failRate {
            return ChosenFault(fault: SandboxFault(status: 503), origin: "fail-rate")
        }
        return nil
    }

    /// The root URL the client used: from its `Host` header when that is a plain host[:port], so links in
    /// responses point where the client connected, else `fallback`.
    func serverURL(for request: ReceivedRequest, fallback: URL) -> URL {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        guard let host = request.headers["Host"], !host.isEmpty, host.unicodeScalars.allSatisfy(allowed.contains),
            let url = URL(string: "http://\(host)")
        else { return fallback }
        return url
    }

    /// The response to send, or `nil` for a `close` fault; and the provider that answered.
    func respond(to received: ReceivedRequest, fault: SandboxFault?, serverURL: URL, now: Date) throws -> (provider: String?, response: OutgoingResponse?) {
        guard let url = URL(string: serverURL.absoluteString + received.target) else {
            throw RequestRejection(status: 400, message: "the request target is not a valid URL path", target: received.target, method: received.method)
        }
        var headers = received.headers
        headers[Self.faultHeader] = nil
        // HEAD is answered as GET without the body, so routes need not know about it.
        let method = received.method == "HEAD" ? "GET" : received.method
        let request = SandboxRequest(method: method, url: url, headers: headers, body: received.body)

        guard let fault else { return answer(request, url: url, serverURL: serverURL, now: now) }

        var provider: String?
        var response: OutgoingResponse
        switch fault.body {
        case .close?:
            return (nil, nil)
        case .html?:
            let status = fault.status ?? 500
            response = OutgoingResponse(SandboxResponse.html(title: "\(status) \(HTTPStatus.reason(status))", status: status))
        case .malformed?:
            response = OutgoingResponse(
                status: fault.status ?? 200, headers: ["Content-Type": "application/json; charset=utf-8"],
                body: .data(Data(Self.malformedJSON.utf8)))
        case .size(let bytes)?:
            response = OutgoingResponse(
                status: fault.status ?? 200, headers: ["Content-Type": "application/json; charset=utf-8"],
                body: .streamed(GeneratedJSONBody(size: bytes)))
        case nil where fault.redirect != nil:
            let status = fault.status ?? 302
            response = OutgoingResponse(status: status, headers: ["Location": fault.redirect ?? "/", "Content-Type": "text/plain"], body: .data(Data()))
        case nil:
            if let status = fault.status {
                let answer = faultResponse(status: status, request: request, serverURL: serverURL, now: now)
                (provider, response) = (answer.provider, OutgoingResponse(answer.response))
            } else {
                let answered = answer(request, url: url, serverURL: serverURL, now: now)
                guard let outgoing = answered.response else { return (answered.provider, nil) }
                (provider, response) = (answered.provider, outgoing)
            }
        }
        if let retryAfter = fault.retryAfter { response.headers["Retry-After"] = String(retryAfter) }
        response.truncate = fault.truncate
        return (provider, response)
    }

    /// The emulators' answer, or the cassette's when the sandbox replays one (`nil` for a recorded failure, which
    /// is replayed by closing the connection without a response).
    private func answer(_ request: SandboxRequest, url: URL, serverURL: URL, now: Date) -> (provider: String?, response: OutgoingResponse?) {
        guard let replayer = configuration.replayer else {
            let answer = router.respond(
                to: request, serverURL: serverURL, now: now, store: configuration.store, settings: configuration.settings,
                requestCounter: configuration.requestCounter)
            return (answer.provider, OutgoingResponse(answer.response))
        }
        guard let recorded = replayer.take(method: request.method, url: url, body: request.body, redactor: redactor, ignoringHost: true) else {
            let error = replayer.unmatched(method: request.method, url: url, redactor: redactor)
            return (nil, OutgoingResponse.error(404, error.message))
        }
        guard case .response(let status, let headers, let body) = recorded.outcome else { return (recorded.provider, nil) }
        var replayed = headers
        // The writer frames the body itself; the recorded body is already decoded.
        for name in ["Content-Length", "Transfer-Encoding", "Content-Encoding", "Connection", "Keep-Alive"] { replayed[name] = nil }
        return (recorded.provider, OutgoingResponse(status: status, headers: replayed, body: .data(body)))
    }

    /// JSON cut off mid-string, the way a proxy that gave up would leave it.
    static let malformedJSON = #"{"results": [{"id": 1, "name": "Sandbox item"}, {"id": 2, "name": "Cut off"#

    /// The body of an injected `status=N`: the provider's own error shape when it has one, else a generic one.
    ///
    /// Routes are not consulted, so a fault on a write never writes. A root path is answered in the shape of
    /// the provider that owns it (``SandboxProviding/sandboxPaths``), whatever order the providers are in.
    private func faultResponse(status: Int, request: SandboxRequest, serverURL: URL, now: Date) -> (provider: String?, response: SandboxResponse) {
        let candidates = router.route(request.path)
        for candidate in candidates {
            var routed = request
            routed.path = candidate.path
            let context = SandboxContext(
                baseURL: candidate.mount.isEmpty ? serverURL : serverURL.appendingEndpoint(candidate.mount),
                now: now, store: configuration.store, settings: configuration.settings)
            if let response = candidate.provider.sandboxFaultResponse(status: status, request: routed, context: context) {
                return (candidate.provider.providerName, response)
            }
        }
        let owner = candidates.first?.provider.providerName
        let body: JSONValue = ["error": .string(HTTPStatus.reason(status)), "status": .int(status)]
        return (owner, .json(body, status: status))
    }

    // MARK: - Log

    /// One log line, e.g. `127.0.0.1 GET /2/groups?key=*** -> 200 1834 bytes 3 ms meetup`, with every secret masked.
    func logLine(
        peer: String, method: String?, target: String?, outcome: String, milliseconds: Int, provider: String?, fault: ChosenFault?
    ) -> String {
        var line = "\(peer) \(method ?? "-") \(target ?? "-") -> \(outcome) \(milliseconds) ms"
        if let provider { line += " \(provider)" }
        if let fault { line += " [fault (\(fault.origin)): \(fault.fault)]" }
        return redactor.redact(line)
    }

    /// `200 1834 bytes`, or `200 917 of 1834 bytes` when truncated.
    static func describe(status: Int, sent: Int, of total: Int) -> String {
        sent == total ? "\(status) \(total) bytes" : "\(status) \(sent) of \(total) bytes"
    }
}
