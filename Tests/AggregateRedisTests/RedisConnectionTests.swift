import AggregateRedis
import AggregateSockets
import AggregateTestSupport
import Foundation
import Testing

/// The client against a real `redis-server` of its own (stopped and restarted by the tests).
@Suite(.requiresRedisServer, .serialized) final class RedisConnectionTests {
    let server: RedisTestServer

    init() throws { server = try RedisTestServer() }

    private func connection(_ text: String? = nil) throws -> RedisConnection {
        RedisConnection(url: try RedisURL(text ?? server.url()), timeout: 5)
    }

    @Test func pipelinedRepliesComeBackInOrder() throws {
        let redis = try connection()
        let prefix = RedisTestServer.uniquePrefix("pipe")
        var commands: [[Data]] = []
        for index in 0..<200 { commands.append(["SET", "\(prefix)\(index)", String(index)].map { Data($0.utf8) }) }
        for index in 0..<200 { commands.append(["INCRBY", "\(prefix)\(index)", "1000"].map { Data($0.utf8) }) }
        commands.append(["HGET", "\(prefix)0", "x"].map { Data($0.utf8) })  // a wrong type: an error among the replies
        commands.append(["GET", "\(prefix)199"].map { Data($0.utf8) })
        let replies = try redis.pipeline(commands)
        #expect(replies.count == 402)
        let sets = replies[0..<200].filter { $0 == .simple("OK") }.count
        #expect(sets == 200)
        let sums: [Int64?] = replies[200..<400].map(\.integer)
        let expected: [Int64?] = (0..<200).map { Int64($0 + 1000) }
        #expect(sums == expected)
        guard case .error(let message) = replies[400] else { Issue.record("no error reply: \(replies[400])"); return }
        #expect(message.hasPrefix("WRONGTYPE"))
        #expect(replies[401].text == "1199")
        // A large value round-trips through several reads.
        let big = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try redis.command([Data("SET".utf8), Data("\(prefix)big".utf8), big])
        #expect(try redis.command([Data("GET".utf8), Data("\(prefix)big".utf8)]).data == big)
    }

    @Test func reconnectsAfterTheServerIsKilledAndRestarted() throws {
        let redis = try connection()
        try redis.command("SET", "k", "before")
        server.stop()
        #expect {
            try redis.command("GET", "k")
        } throws: { error in
            guard let error = error as? RedisError else { return false }
            return error.isConnectionFailure && error.description.contains("redis://127.0.0.1:\(server.port)/0")
        }
        try server.restart()
        // The same client object works again, on a new connection, against the empty new server.
        #expect(try redis.command("GET", "k") == .bulk(nil))
        try redis.command("SET", "k", "after")
        #expect(try redis.command("GET", "k").text == "after")
    }

    @Test func evalshaReloadsTheScriptAfterScriptFlush() throws {
        let redis = try connection()
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let key = RedisTestServer.uniquePrefix("eval") + "n"
        #expect(try redis.evaluate(script, keys: [key], arguments: [Data("2".utf8)]) == .integer(2))
        try redis.command("SCRIPT", "FLUSH")
        #expect(try redis.evaluate(script, keys: [key], arguments: [Data("3".utf8)]) == .integer(5))
        // After a restart the server knows no script either.
        server.stop()
        try server.restart()
        #expect(try redis.evaluate(script, keys: [key], arguments: [Data("4".utf8)]) == .integer(4))
        // A script's own error is a server error, and the connection stays usable.
        #expect(throws: RedisError.self) { try redis.evaluate(RedisScript("return redis.call('NOPE')"), keys: [], arguments: []) }
        try redis.ping()
    }

    @Test func unreachableServerIsOneClearLine() throws {
        server.stop()
        let redis = try connection()
        do {
            try redis.ping()
            Issue.record("no error")
        } catch {
            #expect(error.description == "cannot reach redis://127.0.0.1:\(server.port)/0: connection refused; start redis-server or drop --store")
        }
    }
}

/// AUTH and SELECT against a server with a password.
@Suite(.requiresRedisServer) final class RedisAuthTests {
    let server: RedisTestServer
    let password = "pw-MARKER-7f3a"

    init() throws { server = try RedisTestServer(arguments: ["--requirepass", password]) }

    @Test func authenticatesAndSelectsTheDatabase() throws {
        let redis = RedisConnection(url: try RedisURL(server.url(database: 3, password: password)))
        try redis.command("SET", "where", "three")
        let other = RedisConnection(url: try RedisURL(server.url(database: 0, password: password)))
        #expect(try other.command("GET", "where") == .bulk(nil))
        try other.command("SELECT", "3")
        #expect(try other.command("GET", "where").text == "three")
    }

    @Test func aWrongPasswordIsNamedWithoutThePassword() throws {
        for text in [server.url(password: "wrong-MARKER"), server.url()] {
            let redis = RedisConnection(url: try RedisURL(text))
            do {
                try redis.ping()
                Issue.record("no error for \(text)")
            } catch {
                #expect(!error.description.contains("MARKER"))
                #expect(error.description.contains("redis://127.0.0.1:\(server.port)/0"))
                #expect(!error.isConnectionFailure)
            }
        }
    }
}

/// The client against a fake server over loopback that answers every command with fixed bytes, then closes or
/// stalls: a broken or hostile server gives a clear error, never a crash, a hang or a huge allocation.
@Suite struct RedisHostileServerTests {
    /// Serves `reply` to the first connection once something arrives, then closes it (or keeps it open when `stall`).
    private func serve(_ reply: [UInt8], stall: Bool = false) throws -> (port: Int, done: @Sendable () -> Void) {
        let listener = try POSIXSocket.openListener(host: "127.0.0.1", port: 0)
        let wake = try WakeSignal()
        let thread = Thread {
            guard POSIXSocket.waitReadable(listener.descriptor, wake: wake, timeout: 10) == .readable,
                case .connection(let descriptor, _) = POSIXSocket.acceptConnection(listener.descriptor)
            else { return }
            var scratch = [UInt8](repeating: 0, count: 4096)
            if POSIXSocket.waitReadable(descriptor, wake: wake, timeout: 10) == .readable {
                _ = scratch.withUnsafeMutableBytes { POSIXSocket.receive(descriptor, into: $0) }
                _ = reply.withUnsafeBytes { POSIXSocket.sendAll(descriptor, $0) }
            }
            if stall { _ = POSIXSocket.waitReadable(nil, wake: wake, timeout: 10) }
            POSIXSocket.closeDescriptor(descriptor)
        }
        thread.start()
        return (listener.port, {
            wake.fire()
            POSIXSocket.closeDescriptor(listener.descriptor)
        })
    }

    @Test(arguments: [
        ("$5\r\nab", false, "closed the connection"),
        ("!weird\r\n", false, "not valid RESP2"),
        ("$2147483647\r\n", false, "over the"),
        ("*3\r\n:1\r\n", true, "did not answer within"),
        ("$60000000\r\nabc", true, "did not answer within"),
        ("+" + String(repeating: "x", count: 70_000), true, "longer than"),
    ])
    func brokenRepliesAreClearErrors(reply: String, stall: Bool, expected: String) throws {
        let fake = try serve(Array(reply.utf8), stall: stall)
        defer { fake.done() }
        let redis = RedisConnection(url: RedisURL(host: "127.0.0.1", port: fake.port), timeout: 0.5)
        do {
            _ = try redis.command("GET", "k")
            Issue.record("no error for \(reply.prefix(20))")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(error.isConnectionFailure)
        }
    }

    @Test func aReplyLargerThanTheCapIsRefused() throws {
        let limits = RESPLimits(maxBulkBytes: 1 << 20, maxArrayCount: 1000, maxDepth: 4, maxLineBytes: 1024, maxReplyBytes: 100_000)
        var reply = Array("*1000\r\n".utf8)
        for _ in 0..<1000 { reply += Array("$1000\r\n".utf8) + [UInt8](repeating: 65, count: 1000) + [13, 10] }
        let fake = try serve(reply, stall: true)
        defer { fake.done() }
        let redis = RedisConnection(url: RedisURL(host: "127.0.0.1", port: fake.port), timeout: 5, limits: limits)
        #expect {
            try redis.command("LRANGE", "k", "0", "-1")
        } throws: { error in
            (error as? RedisError)?.description.contains("larger than 100000 bytes") == true
        }
    }
}
