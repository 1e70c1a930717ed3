import AggregateCore
import AggregateSockets
public import AggregateSandboxKit
public import Foundation

/// A local HTTP/1.1 server that emulates every registered provider's API, for offline runs and tests.
///
/// Requests to `/<provider>/...` or to a provider's own root paths are answered by ``SandboxRouter``; faults
/// (``SandboxFault``) can be injected per request with an `X-Sandbox-Fault` header or server-wide.
/// Each connection is served on its own thread with blocking sockets: the sandbox serves a handful of local
/// clients, where a thread per connection is simpler to reason about than an event loop and is plenty fast.
///
/// ```swift
/// let server = SandboxServer(catalog: catalog, configuration: SandboxServerConfiguration(port: 0))
/// let port = try server.start()
/// defer { server.stop() }
/// ```
public final class SandboxServer: Sendable {
    private let configuration: SandboxServerConfiguration
    private let handler: RequestHandler
    private let lifecycle: Guarded<Lifecycle>
    private let handled = Guarded(0)
    private let delays: DelayBudget

    /// What the server knows about one open connection, to choose which to close when all slots are taken.
    private struct Connection {
        /// Since when it has waited for a request (idle, or its head still arriving); `nil` while it is answered.
        var waitingSince: TimeInterval?
        /// Shut down to make room for a newer connection; its thread is on its way out.
        var evicted = false
    }

    private struct Lifecycle {
        enum Phase { case idle, starting, running, stopping, stopped }
        var phase = Phase.idle
        var port: Int
        var wake: WakeSignal?
        /// Open client sockets, so `stop()` can shut them down; a socket leaves this map before it is closed.
        var connections: [Int32: Connection] = [:]
        /// Threads still running: the accept loop and one per connection.
        var workers = 0
    }

    /// Creates a server; nothing is bound until ``start()``.
    public init(catalog: SandboxCatalog, configuration: SandboxServerConfiguration) {
        self.configuration = configuration
        self.handler = RequestHandler(catalog: catalog, configuration: configuration)
        self.lifecycle = Guarded(Lifecycle(port: configuration.port))
        self.delays = DelayBudget(perConnection: configuration.maximumDelayPerConnection, total: configuration.maximumPendingDelay)
    }

    /// The bound port once started (the configured one before).
    public var port: Int { lifecycle.withLock { $0.port } }

    /// `http://<host>:<port>`, with a wildcard host replaced by loopback so the URL can be used by a client.
    public var baseURL: URL {
        let host: String
        switch configuration.host {
        case "", "0.0.0.0": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let name where name.contains(":") && !name.hasPrefix("["): host = "[\(name)]"
        case let name: host = name
        }
        // A zone index (`fe80::1%eth0`) is written `%25` in a URL (RFC 6874); a host that still makes no URL is
        // reached through loopback, which every bind address accepts too.
        let text = "http://\(host.replacingOccurrences(of: "%", with: "%25")):\(port)"
        return URL(string: text) ?? URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// How many requests have been read, including refused and faulted ones.
    public var requestCount: Int { handled.withLock { $0 } }

    /// Adds a server-wide fault rule after the existing ones.
    public func addFault(_ fault: SandboxFault) { handler.rules.add(fault) }

    /// Removes every server-wide fault rule, including those from the configuration.
    public func removeAllFaults() { handler.rules.removeAll() }

    /// Binds, listens and starts serving on a background thread.
    /// - Returns: the bound port (useful with port 0).
    /// - Throws: ``AggregateError`` of kind `config` when the address cannot be bound (e.g. the port is in use),
    ///   or `usage` for an invalid configuration or a second start.
    @discardableResult
    public func start() throws -> Int {
        try configuration.validate()
        try lifecycle.withLock { state in
            guard state.phase == .idle else { throw AggregateError(.usage, "a sandbox server can only be started once") }
            state.phase = .starting
        }
        let wake: WakeSignal
        let listener: (descriptor: Int32, port: Int)
        do {
            wake = try WakeSignal()
            do {
                listener = try POSIXSocket.openListener(host: configuration.host, port: configuration.port)
            } catch {
                wake.close()
                throw error
            }
        } catch {
            lifecycle.withLock { $0.phase = .idle }
            throw error
        }
        let started = lifecycle.withLock { state -> Bool in
            guard state.phase == .starting else { return false }
            state.phase = .running
            state.port = listener.port
            state.wake = wake
            state.workers += 1
            return true
        }
        guard started else {
            POSIXSocket.closeDescriptor(listener.descriptor)
            wake.close()
            throw AggregateError(.usage, "the sandbox server was stopped while it was starting")
        }
        let thread = Thread { [self] in acceptLoop(listener: listener.descriptor, wake: wake) }
        thread.name = "sandbox-accept"
        thread.start()
        return listener.port
    }

    /// Stops listening, closes every connection, and waits (up to 10 s) for the server's threads to end.
    /// The port is free again when this returns. Calling it again, or before ``start()``, does nothing.
    public func stop() {
        let wake = lifecycle.withLock { state -> WakeSignal? in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return nil
            case .starting, .running:
                state.phase = .stopping
                // Under the lock: a connection leaves the set before its socket is closed, so this never
                // shuts down a descriptor number the process has since reused.
                for descriptor in state.connections.keys { POSIXSocket.shutdownBoth(descriptor) }
                return state.wake
            case .stopping, .stopped:
                return nil
            }
        }
        wake?.fire()
        let finished = lifecycle.wait(until: { $0.workers == 0 }, timeout: 10)
        lifecycle.withLock { state in
            // A thread that outlived the wait may still poll the pipe; leaking two descriptors beats closing
            // them under it.
            if finished, let wake, state.wake === wake {
                wake.close()
                state.wake = nil
            }
            if state.phase == .stopping { state.phase = .stopped }
        }
    }

    /// Blocks until ``stop()`` has finished, as called from another thread (e.g. one that watches for SIGINT).
    public func waitUntilStopped() {
        lifecycle.wait(until: { $0.phase == .stopped })
    }

    private var isStopping: Bool { lifecycle.withLock { $0.phase != .running } }

    // MARK: - Accepting

    private func acceptLoop(listener: Int32, wake: WakeSignal) {
        defer {
            POSIXSocket.closeDescriptor(listener)
            lifecycle.withLock { $0.workers -= 1 }
        }
        while true {
            switch POSIXSocket.waitReadable(listener, wake: wake, timeout: 3600) {
            case .stopped: return
            case .timedOut: continue
            case .readable: break
            }
            accepting: while true {
                switch POSIXSocket.acceptConnection(listener) {
                case .connection(let descriptor, let peer):
                    admit(descriptor, peer: peer, wake: wake)
                case .none:
                    break accepting
                case .exhausted:
                    // The pending connection stays queued; pause rather than spin until descriptors free up.
                    configuration.log("sandbox: cannot accept a connection: out of file descriptors or memory")
                    guard POSIXSocket.sleep(0.1, wake: wake) else { return }
                    break accepting
                }
            }
        }
    }

    private func admit(_ descriptor: Int32, peer: String, wake: WakeSignal) {
        enum Admission { case serve, refuse, drop }
        let admission = lifecycle.withLock { state -> Admission in
            guard state.phase == .running else { return .drop }
            if state.connections.values.count(where: { !$0.evicted }) >= configuration.maximumConnections {
                // Slots held by clients that send nothing (or a head a byte at a time) must not lock others out:
                // the longest waiting gives way. Connections busy answering are never cut off.
                let waiting = state.connections.filter { !$0.value.evicted && $0.value.waitingSince != nil }
                guard let oldest = waiting.min(by: { ($0.value.waitingSince ?? .infinity) < ($1.value.waitingSince ?? .infinity) })?.key else {
                    return .refuse
                }
                state.connections[oldest]?.evicted = true
                // Under the lock, as in stop(): the descriptor cannot have been closed and reused yet.
                POSIXSocket.shutdownBoth(oldest)
            }
            state.connections[descriptor] = Connection(waitingSince: ProcessInfo.processInfo.systemUptime)
            state.workers += 1
            return .serve
        }
        switch admission {
        case .serve:
            let thread = Thread { [self] in serve(descriptor, peer: peer, wake: wake) }
            thread.name = "sandbox-connection"
            thread.start()
        case .refuse:
            let body = #"{"error":"too many connections","status":503}"#
            let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 1\r\nConnection: close\r\n\r\n\(body)"
            POSIXSocket.sendNow(descriptor, Data(response.utf8))
            configuration.log(handler.logLine(peer: peer, method: nil, target: nil, outcome: "503 refused: too many connections", milliseconds: 0, provider: nil, fault: nil))
            POSIXSocket.closeDescriptor(descriptor)
        case .drop:
            POSIXSocket.closeDescriptor(descriptor)
        }
    }

    // MARK: - Serving one connection

    private func serve(_ descriptor: Int32, peer: String, wake: WakeSignal) {
        defer {
            POSIXSocket.finish(descriptor, wake: wake)
            lifecycle.withLock { state in
                state.connections[descriptor] = nil
                state.workers -= 1
            }
            POSIXSocket.closeDescriptor(descriptor)
        }
        POSIXSocket.setSendTimeout(descriptor, seconds: configuration.idleTimeout)
        let reader = RequestReader(
            descriptor: descriptor, wake: wake, idleTimeout: configuration.idleTimeout, headTimeout: configuration.headTimeout,
            keepAliveTimeout: configuration.keepAliveTimeout, maximumBodyBytes: configuration.maximumBodyBytes,
            sendContinue: { ResponseWriter.writeContinue(to: descriptor) })

        var first = true
        // The injected delay this connection has waited through, against the per-connection cap.
        var delayed: TimeInterval = 0
        while true {
            if !first { setWaiting(descriptor, true) }
            first = false
            let outcome = reader.next()
            setWaiting(descriptor, false)
            switch outcome {
            case .finished:
                return
            case .rejected(let rejection):
                handled.withLock { $0 += 1 }
                // The rest of the stream cannot be trusted to be framed, so the connection ends here.
                refuse(rejection, on: descriptor, peer: peer, started: ProcessInfo.processInfo.systemUptime, wake: wake)
                return
            case .request(let request):
                handled.withLock { $0 += 1 }
                guard answer(request, on: descriptor, peer: peer, wake: wake, delayed: &delayed) else { return }
            }
        }
    }

    private func setWaiting(_ descriptor: Int32, _ waiting: Bool) {
        lifecycle.withLock { state in
            state.connections[descriptor]?.waitingSince = waiting ? ProcessInfo.processInfo.systemUptime : nil
        }
    }

    /// Answers one request; returns whether the connection may carry another.
    private func answer(_ request: ReceivedRequest, on descriptor: Int32, peer: String, wake: WakeSignal, delayed: inout TimeInterval) -> Bool {
        let started = ProcessInfo.processInfo.systemUptime
        let chosen: RequestHandler.ChosenFault?
        do {
            chosen = try handler.fault(for: request)
        } catch let rejection as RequestRejection {
            // The body was read, so the stream is still framed and the connection can go on.
            return refuse(rejection, on: descriptor, peer: peer, started: started, keepAlive: request.keepAlive, wake: wake)
        } catch {
            return false
        }

        let injected = chosen?.fault.delay ?? 0
        if injected > 0 {
            if let overCap = delays.reserve(injected, used: delayed) {
                let rejection = RequestRejection(status: 400, message: overCap, target: request.target, method: request.method)
                return refuse(rejection, on: descriptor, peer: peer, started: started, keepAlive: request.keepAlive, wake: wake)
            }
            delayed += injected
        }
        let waited = POSIXSocket.delay(injected + configuration.latency, on: descriptor, wake: wake)
        if injected > 0 { delays.release(injected) }
        switch waited {
        case .elapsed: break
        case .stopped: return false
        case .clientLeft:
            log(peer: peer, request: request, outcome: "abandoned: the client left during the delay", started: started, provider: nil, fault: chosen)
            return false
        }

        let now = configuration.now()
        let serverURL = handler.serverURL(for: request, fallback: baseURL)
        let answer: (provider: String?, response: OutgoingResponse?)
        do {
            answer = try handler.respond(to: request, fault: chosen?.fault, serverURL: serverURL, now: now)
        } catch let rejection as RequestRejection {
            return refuse(rejection, on: descriptor, peer: peer, started: started, keepAlive: request.keepAlive, wake: wake)
        } catch {
            return false
        }

        guard let response = answer.response else {
            log(peer: peer, request: request, outcome: "closed without a response", started: started, provider: answer.provider, fault: chosen)
            return false
        }
        let keepAlive = request.keepAlive && !response.truncate && !isStopping
        let sent = ResponseWriter.write(
            response, to: descriptor, keepAlive: keepAlive, date: now, headOnly: request.method == "HEAD",
            stallTimeout: configuration.sendStallTimeout, wake: wake)
        let outcome = sent.map { RequestHandler.describe(status: response.status, sent: $0, of: request.method == "HEAD" ? 0 : response.body.count) }
            ?? "\(response.status) not delivered: the client went away or stopped reading"
        log(peer: peer, request: request, outcome: outcome, started: started, provider: answer.provider, fault: chosen)
        return sent != nil && keepAlive
    }

    @discardableResult
    private func refuse(
        _ rejection: RequestRejection, on descriptor: Int32, peer: String, started: TimeInterval, keepAlive: Bool = false, wake: WakeSignal
    ) -> Bool {
        let response = OutgoingResponse.error(rejection.status, rejection.message)
        let keepAlive = keepAlive && !isStopping
        let sent = ResponseWriter.write(
            response, to: descriptor, keepAlive: keepAlive, date: configuration.now(), headOnly: false,
            stallTimeout: configuration.sendStallTimeout, wake: wake)
        configuration.log(handler.logLine(
            peer: peer, method: rejection.method, target: rejection.target,
            outcome: "\(rejection.status) \(rejection.message)", milliseconds: elapsed(since: started), provider: nil, fault: nil))
        return sent != nil && keepAlive
    }

    private func log(peer: String, request: ReceivedRequest, outcome: String, started: TimeInterval, provider: String?, fault: RequestHandler.ChosenFault?) {
        configuration.log(handler.logLine(
            peer: peer, method: request.method, target: request.target, outcome: outcome,
            milliseconds: elapsed(since: started), provider: provider, fault: fault))
    }

    private func elapsed(since start: TimeInterval) -> Int {
        Int(((ProcessInfo.processInfo.systemUptime - start) * 1000).rounded())
    }
}
