import AggregateCore
import AggregateSockets
package import Foundation

/// What a handler answers to one request.
package enum HTTPReply {
    /// Send this response; `delivered` is then told how many body bytes went out (`nil`: the client went away, stopped
    /// reading, or the server stopped). The connection stays open when the request, the response and the server allow.
    case response(OutgoingResponse, delivered: (Int?) -> Void = { _ in })
    /// Close the connection without a response.
    case close
}

/// What the server tells its handler about requests it answered itself, for the handler's log.
package enum HTTPServerEvent {
    /// A request that could not be read (malformed, too large, too slow) was answered with the rejection's status.
    case rejected(RequestRejection, peer: String, milliseconds: Int)
    /// Every connection slot was busy answering, so a new connection got 503.
    case refusedConnection(peer: String)
    /// `accept` failed for want of descriptors or memory; the server pauses briefly.
    case acceptExhausted
}

/// One client connection as a handler sees it: who it is, and a wait that ends early when the client leaves or the
/// server stops.
package struct HTTPConnection: Sendable {
    /// The client's address, e.g. `127.0.0.1:52144`.
    package let peer: String
    /// The server's own URL (a wildcard bind address replaced by loopback).
    package let serverURL: URL
    private let descriptor: Int32
    private let wake: WakeSignal
    private let stopping: @Sendable () -> Bool

    init(peer: String, serverURL: URL, descriptor: Int32, wake: WakeSignal, stopping: @escaping @Sendable () -> Bool) {
        self.peer = peer
        self.serverURL = serverURL
        self.descriptor = descriptor
        self.wake = wake
        self.stopping = stopping
    }

    /// How a ``delay(_:)`` ended.
    package enum DelayEnd {
        case elapsed
        /// The client closed its side (or reset the connection).
        case clientLeft
        /// The server is stopping.
        case stopped
    }

    /// Waits `seconds`; ends early with `.clientLeft` when the client closes, or `.stopped` when the server stops.
    package func delay(_ seconds: TimeInterval) -> DelayEnd {
        switch POSIXSocket.delay(seconds, on: descriptor, wake: wake) {
        case .elapsed: return .elapsed
        case .clientLeft: return .clientLeft
        case .stopped: return .stopped
        }
    }

    /// Whether the server is draining or stopping (a handler may then skip long work).
    package var isStopping: Bool { stopping() }
}

/// Answers requests for an ``HTTPServer``. Everything here runs on the connection's own thread.
package protocol HTTPServerHandler: Sendable {
    /// What a handler keeps per connection (e.g. the delay it has waited through); `Void` when nothing.
    associatedtype ConnectionState
    /// A fresh state for a new connection.
    func makeConnectionState() -> ConnectionState
    /// The reply to one request that was read in full.
    func handle(_ request: ReceivedRequest, on connection: HTTPConnection, state: inout ConnectionState) -> HTTPReply
    /// Something the server answered or noticed itself.
    func record(_ event: HTTPServerEvent)
}

extension HTTPServerHandler where ConnectionState == Void {
    package func makeConnectionState() {}
}

/// An HTTP/1.1 server on blocking sockets, a thread per connection: for a handful to a few hundred local clients,
/// where that is simpler to reason about than an event loop and plenty fast.
///
/// ```swift
/// let server = HTTPServer(settings: HTTPServerSettings(host: "127.0.0.1", port: 0), handler: handler)
/// let port = try server.start()
/// defer { server.stop(drain: 5) }
/// ```
package final class HTTPServer<Handler: HTTPServerHandler>: Sendable {
    package let settings: HTTPServerSettings
    package let handler: Handler
    private let lifecycle: Guarded<Lifecycle>
    private let handled = Guarded(0)

    /// What the server knows about one open connection, to choose which to close when all slots are taken.
    private struct Connection {
        /// Since when it has waited for a request (idle, or its head still arriving); `nil` while it is answered.
        var waitingSince: TimeInterval?
        /// Shut down to make room for a newer connection; its thread is on its way out.
        var evicted = false
    }

    private enum Admission { case serve, refuse, drop }

    private struct Lifecycle {
        enum Phase { case idle, starting, running, draining, stopping, stopped }
        var phase = Phase.idle
        var port: Int
        /// Interrupts the accept loop only, so draining stops accepting without cutting requests short.
        var acceptWake: WakeSignal?
        /// Interrupts every connection's waits.
        var wake: WakeSignal?
        /// Open client sockets, so `stop()` can shut them down; a socket leaves this map before it is closed.
        var connections: [Int32: Connection] = [:]
        /// Threads still running: the accept loop and one per connection.
        var workers = 0
    }

    /// Creates a server; nothing is bound until ``start()``.
    package init(settings: HTTPServerSettings, handler: Handler) {
        self.settings = settings
        self.handler = handler
        self.lifecycle = Guarded(Lifecycle(port: settings.port))
    }

    /// The bound port once started (the configured one before).
    package var port: Int { lifecycle.withLock { $0.port } }

    /// `http://<host>:<port>`, with a wildcard host replaced by loopback.
    package var baseURL: URL { settings.baseURL(port: port) }

    /// How many requests have been read, including refused ones.
    package var requestCount: Int { handled.withLock { $0 } }

    /// Whether the server is draining or stopping.
    package var isStopping: Bool { lifecycle.withLock { $0.phase != .running } }

    /// Binds, listens and starts serving on a background thread.
    /// - Returns: the bound port (useful with port 0).
    /// - Throws: ``AggregateError`` of kind `config` when the address cannot be bound, or `usage` for a second start.
    @discardableResult
    package func start() throws -> Int {
        try lifecycle.withLock { state in
            guard state.phase == .idle else { throw AggregateError(.usage, "a \(settings.displayName) can only be started once") }
            state.phase = .starting
        }
        let wake: WakeSignal
        let acceptWake: WakeSignal
        let listener: (descriptor: Int32, port: Int)
        do {
            wake = try WakeSignal()
            do {
                acceptWake = try WakeSignal()
            } catch {
                wake.close()
                throw error
            }
            do {
                listener = try POSIXSocket.openListener(host: settings.host, port: settings.port)
            } catch {
                wake.close()
                acceptWake.close()
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
            state.acceptWake = acceptWake
            state.workers += 1
            return true
        }
        guard started else {
            POSIXSocket.closeDescriptor(listener.descriptor)
            wake.close()
            acceptWake.close()
            throw AggregateError(.usage, "the \(settings.displayName) was stopped while it was starting")
        }
        let thread = Thread { [self] in acceptLoop(listener: listener.descriptor, acceptWake: acceptWake, wake: wake) }
        thread.name = "\(settings.threadName)-accept"
        thread.start()
        return listener.port
    }

    /// Stops the server: stops accepting at once; with a `drain` of more than zero seconds, lets requests being
    /// answered finish (each then closes its connection) for up to that long while idle connections are closed;
    /// then closes every connection and waits (up to 10 s) for the server's threads to end. The port is free again
    /// when this returns. Calling it again, or before ``start()``, does nothing.
    /// - Returns: whether every request in flight finished within the drain deadline.
    @discardableResult
    package func stop(drain: TimeInterval = 0) -> Bool {
        let signals = lifecycle.withLock { state -> (accept: WakeSignal?, all: WakeSignal?)? in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return nil
            case .starting, .running:
                state.phase = drain > 0 ? .draining : .stopping
                // Under the lock: a connection leaves the set before its socket is closed, so this never
                // shuts down a descriptor number the process has since reused.
                for (descriptor, connection) in state.connections where drain <= 0 || connection.waitingSince != nil {
                    POSIXSocket.shutdownBoth(descriptor)
                }
                return (state.acceptWake, state.wake)
            case .draining, .stopping, .stopped:
                return nil
            }
        }
        guard let signals else { return true }
        signals.accept?.fire()
        var drained = true
        if drain > 0 {
            // Only the accept loop remains when every request in flight has been answered.
            drained = lifecycle.wait(until: { $0.connections.isEmpty }, timeout: drain)
            lifecycle.withLock { state in
                state.phase = .stopping
                for descriptor in state.connections.keys { POSIXSocket.shutdownBoth(descriptor) }
            }
        }
        signals.all?.fire()
        let finished = lifecycle.wait(until: { $0.workers == 0 }, timeout: 10)
        lifecycle.withLock { state in
            // A thread that outlived the wait may still poll the pipes; leaking descriptors beats closing them under it.
            if finished {
                if let wake = signals.all, state.wake === wake {
                    wake.close()
                    state.wake = nil
                }
                if let wake = signals.accept, state.acceptWake === wake {
                    wake.close()
                    state.acceptWake = nil
                }
            }
            if state.phase == .stopping { state.phase = .stopped }
        }
        return drained
    }

    /// Blocks until ``stop(drain:)`` has finished, as called from another thread (e.g. one that watches for signals).
    package func waitUntilStopped() {
        lifecycle.wait(until: { $0.phase == .stopped })
    }

    // MARK: - Accepting

    private func acceptLoop(listener: Int32, acceptWake: WakeSignal, wake: WakeSignal) {
        defer {
            POSIXSocket.closeDescriptor(listener)
            lifecycle.withLock { $0.workers -= 1 }
        }
        while true {
            switch POSIXSocket.waitReadable(listener, wake: acceptWake, timeout: 3600) {
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
                    handler.record(.acceptExhausted)
                    guard POSIXSocket.sleep(0.1, wake: acceptWake) else { return }
                    break accepting
                }
            }
        }
    }

    private func admit(_ descriptor: Int32, peer: String, wake: WakeSignal) {
        let admission = lifecycle.withLock { state -> Admission in
            guard state.phase == .running else { return .drop }
            if state.connections.values.count(where: { !$0.evicted }) >= settings.maximumConnections {
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
            thread.name = "\(settings.threadName)-connection"
            thread.start()
        case .refuse:
            let body = #"{"error":"too many connections","status":503}"#
            let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 1\r\nConnection: close\r\n\r\n\(body)"
            POSIXSocket.sendNow(descriptor, Data(response.utf8))
            handler.record(.refusedConnection(peer: peer))
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
        POSIXSocket.setSendTimeout(descriptor, seconds: settings.idleTimeout)
        let reader = RequestReader(
            descriptor: descriptor, wake: wake, idleTimeout: settings.idleTimeout, headTimeout: settings.headTimeout,
            keepAliveTimeout: settings.keepAliveTimeout, maximumBodyBytes: settings.maximumBodyBytes,
            sendContinue: { ResponseWriter.writeContinue(to: descriptor) })
        let connection = HTTPConnection(
            peer: peer, serverURL: baseURL, descriptor: descriptor, wake: wake, stopping: { [self] in isStopping })
        var state = handler.makeConnectionState()
        var first = true
        while true {
            if !first {
                // A drain ends a connection between requests.
                guard setWaiting(descriptor, true) else { return }
            }
            first = false
            let outcome = reader.next()
            setWaiting(descriptor, false)
            switch outcome {
            case .finished:
                return
            case .rejected(let rejection):
                handled.withLock { $0 += 1 }
                // The rest of the stream cannot be trusted to be framed, so the connection ends here.
                let started = ProcessInfo.processInfo.systemUptime
                _ = write(OutgoingResponse.error(rejection.status, rejection.message), to: descriptor, keepAlive: false, headOnly: false, wake: wake)
                handler.record(.rejected(rejection, peer: peer, milliseconds: Self.milliseconds(since: started)))
                return
            case .request(let request):
                handled.withLock { $0 += 1 }
                switch handler.handle(request, on: connection, state: &state) {
                case .close:
                    return
                case .response(let response, let delivered):
                    let keepAlive = request.keepAlive && !response.truncate && !isStopping
                    let sent = write(response, to: descriptor, keepAlive: keepAlive, headOnly: request.method == "HEAD", wake: wake)
                    delivered(sent)
                    guard sent != nil, keepAlive else { return }
                }
            }
        }
    }

    private func write(_ response: OutgoingResponse, to descriptor: Int32, keepAlive: Bool, headOnly: Bool, wake: WakeSignal) -> Int? {
        ResponseWriter.write(
            response, to: descriptor, keepAlive: keepAlive, date: settings.now(), headOnly: headOnly,
            stallTimeout: settings.sendStallTimeout, wake: wake, serverName: settings.serverName)
    }

    /// Marks a connection as waiting for a request (or not); false when the server is draining, so it should close.
    @discardableResult
    private func setWaiting(_ descriptor: Int32, _ waiting: Bool) -> Bool {
        lifecycle.withLock { state in
            guard !waiting || state.phase == .running else { return false }
            state.connections[descriptor]?.waitingSince = waiting ? ProcessInfo.processInfo.systemUptime : nil
            return true
        }
    }

    /// Whole milliseconds since `start` (a `systemUptime`).
    package static func milliseconds(since start: TimeInterval) -> Int {
        Int(((ProcessInfo.processInfo.systemUptime - start) * 1000).rounded())
    }
}
