import AggregateSandbox
import Foundation
import Testing

/// Slow clients (slowloris) cannot lock normal clients out: a head must arrive within the head timeout, an idle
/// keep-alive connection is closed after the keep-alive timeout, and when every slot is taken a new connection
/// replaces the one that has waited longest.
@Suite("Sandbox server: slow clients", .serialized)
struct SandboxSlowClientTests {
    @Test("a head dribbled a byte at a time gets 408 at the head deadline, not the idle timeout")
    func dribbledHead() throws {
        let server = try startServer(testConfiguration { $0.headTimeout = 0.5 })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let started = Date()
        var response: RawResponse?
        // One byte every 100 ms resets any per-read timeout; only a deadline for the whole head stops it.
        for byte in "GET /echo HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8 {
            guard client.send(Data([byte])) else { break }
            Thread.sleep(forTimeInterval: 0.1)
            if Date().timeIntervalSince(started) > 0.8 { break }
        }
        response = try client.readResponse()
        #expect(response?.status == 408)
        #expect(response?.text.contains("500 ms") == true)
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test("an idle kept-alive connection is closed after the keep-alive timeout")
    func idleKeepAlive() throws {
        let server = try startServer(testConfiguration { $0.keepAliveTimeout = 0.3 })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
        let started = Date()
        #expect(client.isClosedByServer())
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test("with more slow connections open than slots, a normal request is still answered promptly")
    func slowlorisDoesNotLockOthersOut() throws {
        let slots = 16
        let server = try startServer(testConfiguration {
            $0.maximumConnections = slots
            $0.headTimeout = 30
            $0.keepAliveTimeout = 30
        })
        defer { server.stop() }
        var slow: [RawClient] = []
        for _ in 0..<(slots + 8) {
            let client = try RawClient(port: server.port, receiveTimeout: 5)
            client.send("GET /echo HTTP/1.1\r\nX-Slow: a")
            slow.append(client)
        }
        // Let the server admit them all (each new one beyond the limit evicts the oldest waiting one).
        Thread.sleep(forTimeInterval: 0.3)
        for attempt in 0..<3 {
            let started = Date()
            let normal = try RawClient(port: server.port, receiveTimeout: 5)
            normal.get("/echo")
            let response = try #require(try normal.readResponse())
            #expect(response.status == 200, "attempt \(attempt)")
            // Generous for a loaded test machine; Benchmarks/sandbox-load.sh measures the real figure.
            #expect(Date().timeIntervalSince(started) < 2, "attempt \(attempt)")
            // Trickle a byte on the slow ones, as slowloris does.
            for client in slow { client.send("a") }
        }
        withExtendedLifetime(slow) {}
    }
}
