import AggregateCore
import AggregateHTTPServer
public import AggregateSandboxKit
public import Foundation

/// A local HTTP/1.1 server that emulates every registered provider's API, for offline runs and tests.
///
/// Requests to `/<provider>/...` or to a provider's own root paths are answered by ``SandboxRouter``; faults
/// (``SandboxFault``) can be injected per request with an `X-Sandbox-Fault` header or server-wide.
/// It is the package's ``HTTPServer`` (AggregateHTTPServer: a thread per connection on blocking sockets) with the
/// sandbox as its handler.
///
/// ```swift
/// let server = SandboxServer(catalog: catalog, configuration: SandboxServerConfiguration(port: 0))
/// let port = try server.start()
/// defer { server.stop() }
/// ```
public final class SandboxServer: Sendable {
    private let configuration: SandboxServerConfiguration
    private let server: HTTPServer<SandboxHTTPHandler>

    /// Creates a server; nothing is bound until ``start()``.
    public init(catalog: SandboxCatalog, configuration: SandboxServerConfiguration) {
        self.configuration = configuration
        let settings = HTTPServerSettings(
            host: configuration.host, port: configuration.port, idleTimeout: configuration.idleTimeout,
            headTimeout: configuration.headTimeout, keepAliveTimeout: configuration.keepAliveTimeout,
            sendStallTimeout: configuration.sendStallTimeout, maximumBodyBytes: configuration.maximumBodyBytes,
            maximumConnections: configuration.maximumConnections, serverName: "aggregate-sandbox", threadName: "sandbox", displayName: "sandbox server",
            now: configuration.now)
        let handler = SandboxHTTPHandler(
            handler: RequestHandler(catalog: catalog, configuration: configuration), configuration: configuration,
            delays: DelayBudget(perConnection: configuration.maximumDelayPerConnection, total: configuration.maximumPendingDelay))
        self.server = HTTPServer(settings: settings, handler: handler)
    }

    /// The bound port once started (the configured one before).
    public var port: Int { server.port }

    /// `http://<host>:<port>`, with a wildcard host replaced by loopback so the URL can be used by a client.
    public var baseURL: URL { server.baseURL }

    /// How many requests have been read, including refused and faulted ones.
    public var requestCount: Int { server.requestCount }

    /// Adds a server-wide fault rule after the existing ones.
    public func addFault(_ fault: SandboxFault) { server.handler.handler.rules.add(fault) }

    /// Removes every server-wide fault rule, including those from the configuration.
    public func removeAllFaults() { server.handler.handler.rules.removeAll() }

    /// Binds, listens and starts serving on a background thread.
    /// - Returns: the bound port (useful with port 0).
    /// - Throws: ``AggregateError`` of kind `config` when the address cannot be bound (e.g. the port is in use),
    ///   or `usage` for an invalid configuration or a second start.
    @discardableResult
    public func start() throws -> Int {
        try configuration.validate()
        return try server.start()
    }

    /// Stops listening, closes every connection, and waits (up to 10 s) for the server's threads to end.
    /// The port is free again when this returns. Calling it again, or before ``start()``, does nothing.
    public func stop() { server.stop() }

    /// Blocks until ``stop()`` has finished, as called from another thread (e.g. one that watches for SIGINT).
    public func waitUntilStopped() { server.waitUntilStopped() }
}

/// The sandbox as an ``HTTPServerHandler``: faults, their delays under the caps, the routes, and the log line.
struct SandboxHTTPHandler: HTTPServerHandler {
    let handler: RequestHandler
    let configuration: SandboxServerConfiguration
    let delays: DelayBudget

    /// The injected delay a connection has waited through, against the per-connection cap.
    func makeConnectionState() -> TimeInterval { 0 }

    func record(_ event: HTTPServerEvent) {
        switch event {
        case .acceptExhausted:
            configuration.log("sandbox: cannot accept a connection: out of file descriptors or memory")
        case .refusedConnection(let peer):
            configuration.log(handler.logLine(peer: peer, method: nil, target: nil, outcome: "503 refused: too many connections", milliseconds: 0, provider: nil, fault: nil))
        case .rejected(let rejection, let peer, let milliseconds):
            configuration.log(handler.logLine(
                peer: peer, method: rejection.method, target: rejection.target,
                outcome: "\(rejection.status) \(rejection.message)", milliseconds: milliseconds, provider: nil, fault: nil))
        }
    }

    func handle(_ request: ReceivedRequest, on connection: HTTPConnection, state delayed: inout TimeInterval) -> HTTPReply {
        let started = ProcessInfo.processInfo.systemUptime
        let peer = connection.peer
        let chosen: RequestHandler.ChosenFault?
        do {
            chosen = try handler.fault(for: request)
        } catch let rejection as RequestRejection {
            // The body was read, so the stream is still framed and the connection can go on.
            return refuse(rejection, peer: peer, started: started)
        } catch {
            return .close
        }

        let injected = chosen?.fault.delay ?? 0
        if injected > 0 {
            if let overCap = delays.reserve(injected, used: delayed) {
                let rejection = RequestRejection(status: 400, message: overCap, target: request.target, method: request.method)
                return refuse(rejection, peer: peer, started: started)
            }
            delayed += injected
        }
        let waited = connection.delay(injected + configuration.latency)
        if injected > 0 { delays.release(injected) }
        switch waited {
        case .elapsed: break
        case .stopped: return .close
        case .clientLeft:
            log(peer: peer, request: request, outcome: "abandoned: the client left during the delay", started: started, provider: nil, fault: chosen)
            return .close
        }

        let now = configuration.now()
        let serverURL = handler.serverURL(for: request, fallback: connection.serverURL)
        let answer: (provider: String?, response: OutgoingResponse?)
        do {
            answer = try handler.respond(to: request, fault: chosen?.fault, serverURL: serverURL, now: now)
        } catch let rejection as RequestRejection {
            return refuse(rejection, peer: peer, started: started)
        } catch {
            return .close
        }

        guard let response = answer.response else {
            log(peer: peer, request: request, outcome: "closed without a response", started: started, provider: answer.provider, fault: chosen)
            return .close
        }
        let total = request.method == "HEAD" ? 0 : response.body.count
        return .response(response) { sent in
            let outcome = sent.map { RequestHandler.describe(status: response.status, sent: $0, of: total) }
                ?? "\(response.status) not delivered: the client went away or stopped reading"
            log(peer: peer, request: request, outcome: outcome, started: started, provider: answer.provider, fault: chosen)
        }
    }

    private func refuse(_ rejection: RequestRejection, peer: String, started: TimeInterval) -> HTTPReply {
        .response(OutgoingResponse.error(rejection.status, rejection.message)) { _ in
            configuration.log(handler.logLine(
                peer: peer, method: rejection.method, target: rejection.target,
                outcome: "\(rejection.status) \(rejection.message)", milliseconds: HTTPServer<Self>.milliseconds(since: started), provider: nil, fault: nil))
        }
    }

    private func log(peer: String, request: ReceivedRequest, outcome: String, started: TimeInterval, provider: String?, fault: RequestHandler.ChosenFault?) {
        configuration.log(handler.logLine(
            peer: peer, method: request.method, target: request.target, outcome: outcome,
            milliseconds: HTTPServer<Self>.milliseconds(since: started), provider: provider, fault: fault))
    }
}
