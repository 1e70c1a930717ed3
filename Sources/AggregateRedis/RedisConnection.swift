import AggregateSockets
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Lua script run with `EVALSHA`: the connection loads it with `SCRIPT LOAD` the first time, and again whenever the
/// server answers `NOSCRIPT` (it restarted, or someone ran `SCRIPT FLUSH`).
package struct RedisScript: Sendable, Hashable {
    /// The Lua source.
    package var source: String
    /// Creates a script.
    package init(_ source: String) { self.source = source }
}

/// One connection to a Redis server, speaking RESP2: blocking calls, one command (or one pipeline) at a time under a
/// lock, each with a deadline.
///
/// - It connects on first use, with `AUTH` and `SELECT` when the URL asks, and again after any failure: a command on
///   a connection that broke since its last use (the server restarted) is sent once more on a fresh one.
/// - ``pipeline(_:)`` sends several commands at once and reads their replies in order.
/// - ``evaluate(_:keys:arguments:)`` runs a script by its SHA and loads it when the server does not know it.
/// - Replies are read with ``RESPParser`` under ``RESPLimits``; a reply that breaks them closes the connection with
///   a clear error.
///
/// Call it off Swift's cooperative pool (``BlockingWork``): it blocks for up to ``timeout``.
package final class RedisConnection: @unchecked Sendable {
    /// The server (its description never shows the password).
    package let url: RedisURL
    /// The deadline of one command or pipeline, in seconds.
    package let timeout: TimeInterval
    /// How long a connection attempt may take.
    package let connectTimeout: TimeInterval

    private let parser: RESPParser
    private let lock = NSLock()
    private var descriptor: Int32?
    private var buffer: [UInt8] = []
    private var start = 0
    private var loaded: [RedisScript: String] = [:]

    /// Creates a connection to `url` (nothing is sent until the first command).
    package init(url: RedisURL, timeout: TimeInterval = 2, connectTimeout: TimeInterval = 1, limits: RESPLimits = .standard) {
        self.url = url
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.parser = RESPParser(limits: limits)
    }

    deinit {
        if let descriptor { POSIXSocket.closeDescriptor(descriptor) }
    }

    /// Closes the connection; the next command opens a new one.
    package func close() {
        lock.lock()
        defer { lock.unlock() }
        drop()
    }

    // MARK: - Commands

    /// Sends one command and returns its reply.
    /// - Throws: ``RedisError``; an error reply is ``RedisError/server(server:message:)``.
    @discardableResult
    package func command(_ arguments: [Data]) throws(RedisError) -> RESPValue {
        let replies = try pipeline([arguments])
        guard let reply = replies.first else { throw .badReply(server: url.description, reason: "no reply") }
        if case .error(let message) = reply { throw .server(server: url.description, message: mask(message)) }
        return reply
    }

    /// Sends one command of text arguments and returns its reply.
    @discardableResult
    package func command(_ arguments: String...) throws(RedisError) -> RESPValue {
        try command(arguments.map { Data($0.utf8) })
    }

    /// Sends `commands` together and returns their replies in order; an error reply is returned as
    /// ``RESPValue/error(_:)`` (with the password masked), not thrown, so one refused command does not hide the others.
    /// - Throws: ``RedisError`` when the server cannot be reached or its replies cannot be read.
    package func pipeline(_ commands: [[Data]]) throws(RedisError) -> [RESPValue] {
        lock.lock()
        defer { lock.unlock() }
        return try exchange(commands)
    }

    /// Runs `script` with `EVALSHA`, loading it first when this connection has not, or when the server answers
    /// `NOSCRIPT`.
    /// - Throws: ``RedisError``; the script's own error is ``RedisError/server(server:message:)``.
    package func evaluate(_ script: RedisScript, keys: [String], arguments: [Data]) throws(RedisError) -> RESPValue {
        lock.lock()
        defer { lock.unlock() }
        var reloaded = false
        while true {
            let sha: String
            if let known = loaded[script] {
                sha = known
            } else {
                sha = try load(script)
                reloaded = true
            }
            let call = [Data("EVALSHA".utf8), Data(sha.utf8), Data(String(keys.count).utf8)] + keys.map { Data($0.utf8) } + arguments
            let reply = try exchange([call]).first ?? .error("no reply")
            if case .error(let message) = reply {
                if message.hasPrefix("NOSCRIPT"), !reloaded {
                    loaded[script] = nil
                    continue
                }
                throw .server(server: url.description, message: mask(message))
            }
            return reply
        }
    }

    /// `PING`: whether the server answers at all.
    /// - Throws: ``RedisError`` when it does not.
    package func ping() throws(RedisError) {
        let reply = try command("PING")
        guard reply.text == "PONG" else { throw .badReply(server: url.description, reason: "PING was not answered with PONG") }
    }

    private func load(_ script: RedisScript) throws(RedisError) -> String {
        let reply = try exchange([[Data("SCRIPT".utf8), Data("LOAD".utf8), Data(script.source.utf8)]]).first ?? .error("no reply")
        if case .error(let message) = reply { throw .server(server: url.description, message: mask(message)) }
        guard let sha = reply.text, sha.count == 40 else { throw .badReply(server: url.description, reason: "SCRIPT LOAD gave no SHA") }
        loaded[script] = sha
        return sha
    }

    // MARK: - The wire

    /// Sends `commands` and reads as many replies, connecting first if needed; a connection that broke since its
    /// last use is replaced once. Called under the lock.
    private func exchange(_ commands: [[Data]]) throws(RedisError) -> [RESPValue] {
        var payload = Data()
        for command in commands { payload.append(RESPParser.encode(command)) }
        let reused = descriptor != nil
        do {
            return try send(payload, expecting: commands.count)
        } catch {
            drop()
            // The server restarted or closed an idle connection: what was sent never arrived, or arrived at a
            // server that no longer holds the connection. Once more on a fresh one (a bucket script then spends
            // at most one extra token, on the safe side).
            guard reused, case .connectionLost = error else { throw error }
            do {
                return try send(payload, expecting: commands.count)
            } catch {
                drop()
                throw error
            }
        }
    }

    private func send(_ payload: Data, expecting count: Int) throws(RedisError) -> [RESPValue] {
        let descriptor = try connected()
        guard POSIXSocket.sendAll(descriptor, payload) else {
            throw .connectionLost(server: url.description, reason: errno == EAGAIN || errno == EWOULDBLOCK ? "the send timed out" : POSIXSocket.errorText(errno).lowercased())
        }
        let deadline = Date().addingTimeInterval(timeout)
        var replies: [RESPValue] = []
        for _ in 0..<count {
            let reply = try readReply(descriptor, deadline: deadline)
            if case .error(let message) = reply { replies.append(.error(mask(message))) } else { replies.append(reply) }
        }
        return replies
    }

    /// The open descriptor, connecting (with `AUTH` and `SELECT`) when there is none.
    private func connected() throws(RedisError) -> Int32 {
        if let descriptor { return descriptor }
        let fresh: Int32
        do {
            fresh = try POSIXSocket.connect(host: url.host, port: url.port, timeout: connectTimeout)
        } catch {
            throw .unreachable(server: url.description, reason: error.reason)
        }
        POSIXSocket.setSendTimeout(fresh, seconds: timeout)
        descriptor = fresh
        buffer = []
        start = 0
        var setup: [[Data]] = []
        if let password = url.password {
            setup.append([Data("AUTH".utf8)] + (url.user.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)])
        }
        if url.database != 0 { setup.append([Data("SELECT".utf8), Data(String(url.database).utf8)]) }
        guard !setup.isEmpty else { return fresh }
        do throws(RedisError) {
            var payload = Data()
            for command in setup { payload.append(RESPParser.encode(command)) }
            guard POSIXSocket.sendAll(fresh, payload) else {
                throw RedisError.connectionLost(server: url.description, reason: POSIXSocket.errorText(errno).lowercased())
            }
            let deadline = Date().addingTimeInterval(timeout)
            for _ in setup {
                if case .error(let message) = try readReply(fresh, deadline: deadline) {
                    throw RedisError.server(server: url.description, message: mask(message))
                }
            }
        } catch {
            drop()
            throw error
        }
        return fresh
    }

    /// Reads one whole reply before `deadline`, keeping what follows it for the next.
    private func readReply(_ descriptor: Int32, deadline: Date) throws(RedisError) -> RESPValue {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            do {
                if let (value, end) = try parser.parse(buffer, from: start) {
                    start = end
                    if start == buffer.count {
                        buffer.removeAll(keepingCapacity: buffer.count <= 1 << 20)
                        start = 0
                    } else if start > 1 << 20 {
                        buffer.removeFirst(start)
                        start = 0
                    }
                    return value
                }
            } catch {
                throw .badReply(server: url.description, reason: error.reason)
            }
            if buffer.count - start > parser.limits.maxReplyBytes {
                throw .badReply(server: url.description, reason: "a reply is larger than \(parser.limits.maxReplyBytes) bytes")
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, POSIXSocket.waitReadable(descriptor, timeout: remaining) else {
                throw .timedOut(server: url.description, seconds: timeout)
            }
            let count = chunk.withUnsafeMutableBytes { POSIXSocket.receive(descriptor, into: $0) }
            if count == 0 { throw .connectionLost(server: url.description, reason: "the server closed the connection") }
            if count < 0 { throw .connectionLost(server: url.description, reason: POSIXSocket.errorText(errno).lowercased()) }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    private func drop() {
        if let descriptor { POSIXSocket.closeDescriptor(descriptor) }
        descriptor = nil
        buffer = []
        start = 0
    }

    /// A server message with the password masked (a server may echo what it was sent).
    private func mask(_ message: String) -> String {
        guard let password = url.password, !password.isEmpty else { return message }
        return message.replacingOccurrences(of: password, with: "***")
    }
}
