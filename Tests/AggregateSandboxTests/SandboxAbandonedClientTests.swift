@testable import AggregateSandbox
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 27, "The sandbox": injected delays and slow bodies cannot lock other clients out. A delay ends when its
/// client hangs up, a body ends when its client stops reading, and delays are capped per connection and in total.
/// Each test uses a few dozen real loopback connections against a server whose limits are configured small.
@Suite("Sandbox server: abandoned delays and unread bodies", .serialized)
struct SandboxAbandonedClientTests {
    /// A normal request on a new connection, tried up to `attempts` times (a freed slot may take a moment to be
    /// noticed): the first status other than 503.
    func firstServedStatus(port: Int, attempts: Int = 60) throws -> Int? {
        for _ in 0..<attempts {
            let client = try RawClient(port: port, receiveTimeout: 5)
            client.get("/echo")
            if let status = try? client.readResponse()?.status, status != 503 { return status }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    @Test("48 clients that ask for delay=60s and leave do not hold the 24 slots: others are served at once")
    func abandonedDelaysFreeTheirSlots() throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder) {
            $0.maximumConnections = 24
            // The caps are out of the way here: what frees the slots is noticing that the clients left.
            $0.maximumPendingDelay = 100_000
            $0.maximumDelayPerConnection = 3600
        })
        defer { server.stop() }
        var leaving: [RawClient] = []
        for _ in 0..<48 {
            let client = try RawClient(port: server.port, receiveTimeout: 5)
            client.get("/echo", headers: ["X-Sandbox-Fault: delay=60s"])
            leaving.append(client)
        }
        // Wait (bounded) until every slot is taken by a delayed request, then all of them hang up.
        for _ in 0..<200 where server.requestCount < 24 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(server.requestCount >= 24)
        leaving.removeAll()
        // Before the fix every slot slept its full minute, and every new connection got 503 until then.
        #expect(try firstServedStatus(port: server.port) == 200)
        #expect(recorder.line(containing: "abandoned: the client left during the delay") != nil)
    }

    @Test("12 clients that never read a size=1GiB answer do not hold the 8 slots: each is cut off after the stall timeout")
    func unreadBodiesFreeTheirSlots() throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder) {
            $0.maximumConnections = 8
            $0.sendStallTimeout = 0.5
            // Before the fix a blocked send waited for the idle timeout (SO_SNDTIMEO), here half a minute.
            $0.idleTimeout = 30
        })
        defer { server.stop() }
        var stalled: [RawClient] = []
        for _ in 0..<12 {
            let client = try RawClient(port: server.port, receiveTimeout: 5)
            client.get("/echo", headers: ["X-Sandbox-Fault: size=1GiB"])
            stalled.append(client)
        }
        for _ in 0..<200 where server.requestCount < 8 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try firstServedStatus(port: server.port, attempts: 80) == 200)
        #expect(recorder.line(containing: "not delivered: the client went away or stopped reading") != nil)
        withExtendedLifetime(stalled) {}
    }

    @Test("a connection's injected delays are capped: past the cap, a clear 400 instead of the wait")
    func delayCapPerConnection() throws {
        let server = try startServer(testConfiguration { $0.maximumDelayPerConnection = 0.5 })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo", headers: ["X-Sandbox-Fault: delay=300ms"])
        #expect(try client.readResponse()?.status == 200)
        client.get("/echo", headers: ["X-Sandbox-Fault: delay=300ms"])
        let refused = try #require(try client.readResponse())
        #expect(refused.status == 400)
        #expect(refused.text.contains("delay=0.3s is over the sandbox's cap of 0.5s of injected delay per connection"))
        #expect(refused.text.contains("docs/sandbox-faults.md"))
        // The refusal keeps the connection, and a request without a delay is still served on it.
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
        let fresh = try RawClient(port: server.port)
        fresh.get("/echo", headers: ["X-Sandbox-Fault: delay=1h"])
        #expect(try fresh.readResponse()?.status == 400, "one delay beyond the cap is refused outright")
    }

    @Test("the delays pending across connections are capped: of two 5 s delays under an 8 s cap, one is refused at once")
    func delayCapInTotal() throws {
        let server = try startServer(testConfiguration {
            $0.maximumPendingDelay = 8
            $0.maximumDelayPerConnection = 3600
        })
        defer { server.stop() }
        let first = try RawClient(port: server.port)
        first.get("/echo", headers: ["X-Sandbox-Fault: delay=5s"])
        for _ in 0..<500 where server.requestCount < 1 { Thread.sleep(forTimeInterval: 0.01) }
        let second = try RawClient(port: server.port)
        second.get("/echo", headers: ["X-Sandbox-Fault: delay=5s"])
        // Whichever reserved second (normally `second`) is answered now; the other is still waiting.
        var descriptors = [pollfd(fd: first.descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: second.descriptor, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&descriptors, 2, 4000) == 1, "exactly one of the two is answered before its delay")
        let refused = descriptors[0].revents != 0 ? first : second
        let response = try #require(try refused.readResponse())
        #expect(response.status == 400)
        #expect(response.text.contains("of injected delay pending across all connections (5s pending)"))
    }

    @Test("the budget gives back what it granted, and refuses what would go past either cap")
    func budgetArithmetic() {
        let budget = DelayBudget(perConnection: 10, total: 12)
        #expect(budget.reserve(6, used: 0) == nil)
        #expect(budget.reserve(5, used: 6)?.contains("per connection") == true)
        #expect(budget.reserve(7, used: 0)?.contains("across all connections") == true)
        #expect(budget.reserve(6, used: 0) == nil)
        budget.release(6)
        budget.release(6)
        #expect(budget.pendingSeconds == 0)
        #expect(budget.reserve(10, used: 0) == nil)
    }
}
