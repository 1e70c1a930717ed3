import AggregateCore
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sandbox server: fault injection")
struct SandboxFaultInjectionTests {
    @Test("status + retry-after: the status, the header, and a generic JSON body")
    func statusWithRetryAfter() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(
            server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "status=503; retry-after=2"])
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "2")
        #expect(response.json?["status"] as? Int == 503)
        #expect(response.json?["error"] as? String == "Service Unavailable")
    }

    @Test("status=N uses the provider's own error shape when it has one")
    func providerFaultShape() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/testapi/echo"), headers: ["X-Sandbox-Fault": "status=429"])
        #expect(response.status == 429)
        #expect(response.json?["message"] as? String == "testapi rate limit exceeded")
    }

    @Test("delay without a status waits, then serves the normal response")
    func delay() throws {
        let server = try startServer()
        defer { server.stop() }
        // A raw client times only the server: an async client would also time its own resumption.
        let client = try RawClient(port: server.port)
        let started = Date()
        client.get("/echo", headers: ["X-Sandbox-Fault: delay=300ms"])
        let response = try #require(try client.readResponse())
        let elapsed = Date().timeIntervalSince(started)
        #expect(response.status == 200)
        #expect(response.json?["path"] as? String == "/echo")
        #expect(elapsed >= 0.25)
        #expect(elapsed < 10)
    }

    @Test("a delay longer than the client's timeout makes the client time out")
    func delayBeyondClientTimeout() async throws {
        let server = try startServer()
        defer { server.stop() }
        await #expect(throws: (any Error).self) {
            _ = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "delay=5s"], timeout: 0.5)
        }
    }

    @Test("latency is added before every response")
    func latency() throws {
        let server = try startServer(testConfiguration { $0.latency = 0.2 })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let started = Date()
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
        #expect(Date().timeIntervalSince(started) >= 0.15)
    }

    @Test("truncate declares the full length, sends half, and closes")
    func truncate() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo", headers: ["X-Sandbox-Fault: truncate"])
        let response = try #require(try client.readResponse())
        let declared = try #require(Int(response.header("Content-Length") ?? ""))
        #expect(response.status == 200)
        #expect(!response.complete)
        #expect(response.body.count == declared / 2)
        #expect(response.json == nil)
    }

    @Test("URLSession sees a truncated body as an error or a short body")
    func truncateThroughURLSession() async throws {
        let server = try startServer()
        defer { server.stop() }
        do {
            let response = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "truncate"])
            let declared = Int(response.header("Content-Length") ?? "") ?? 0
            #expect(response.body.count < declared || response.json == nil)
        } catch {
            // An error is the other acceptable outcome.
        }
    }

    @Test("malformed: 200 with a body that is not valid JSON")
    func malformed() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "malformed"])
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(!response.body.isEmpty)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: response.body) }
    }

    @Test("html: an HTML error page, 500 by default or the given status")
    func html() async throws {
        let server = try startServer()
        defer { server.stop() }
        let plain = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "html"])
        #expect(plain.status == 500)
        #expect(plain.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(plain.text.contains("<html>"))
        let gateway = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "html; status=502"])
        #expect(gateway.status == 502)
        #expect(gateway.text.contains("502 Bad Gateway"))
    }

    @Test("size: a valid JSON body of exactly the requested size")
    func size() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo", headers: ["X-Sandbox-Fault: size=3MiB"])
        let response = try #require(try client.readResponse())
        #expect(response.status == 200)
        #expect(response.body.count == 3 << 20)
        #expect(response.header("Content-Length") == String(3 << 20))
        #expect(response.json?["padding"] is String)

        client.get("/echo", headers: ["X-Sandbox-Fault: size=10"])
        let tiny = try #require(try client.readResponse())
        #expect(tiny.body.count == 10)
        #expect(tiny.json != nil)
    }

    @Test("size=40MiB streams through URLSession")
    func bigSize() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "size=40MiB"])
        #expect(response.status == 200)
        #expect(response.body.count == 40 << 20)
        #expect(response.body.prefix(12) == Data(#"{"padding":""#.utf8))
        #expect(response.body.suffix(2) == Data(#""}"#.utf8))
    }

    @Test("close: the connection ends without any response")
    func close() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo", headers: ["X-Sandbox-Fault: close"])
        #expect(client.readToEnd().isEmpty)
        await #expect(throws: (any Error).self) {
            _ = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "close"])
        }
    }

    @Test("a header fault that does not parse is a 400 that explains the syntax")
    func badHeaderSpec() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "explode"])
        #expect(response.status == 400)
        #expect((response.json?["message"] as? String)?.contains("unknown item 'explode'") == true)
    }

    @Test("times=1: a 429 with Retry-After for the first request, then normal")
    func times() async throws {
        let server = try startServer()
        defer { server.stop() }
        server.addFault(try SandboxFault.parse("status=429; retry-after=1; times=1"))
        let first = try await fetch(server.baseURL.appendingEndpoint("/echo"))
        #expect(first.status == 429)
        #expect(first.header("Retry-After") == "1")
        let second = try await fetch(server.baseURL.appendingEndpoint("/echo"))
        #expect(second.status == 200)
    }

    @Test("times=N is honoured exactly under concurrency")
    func timesUnderConcurrency() throws {
        let server = try startServer()
        defer { server.stop() }
        server.addFault(try SandboxFault.parse("status=503; times=3"))
        let clients = try (0..<12).map { _ in try RawClient(port: server.port) }
        for client in clients { client.get("/echo") }
        let statuses = try clients.map { try #require(try $0.readResponse()).status }
        #expect(statuses.filter { $0 == 503 }.count == 3)
        #expect(statuses.filter { $0 == 200 }.count == 9)
    }

    @Test("path= scopes a rule to paths that start with it, as received")
    func pathScope() async throws {
        let server = try startServer(testConfiguration { $0.faults = [try! SandboxFault.parse("status=503; path=/testapi/private")] })
        defer { server.stop() }
        #expect(try await fetch(server.baseURL.appendingEndpoint("/testapi/echo")).status == 200)
        #expect(try await fetch(server.baseURL.appendingEndpoint("/private")).status == 401)
        #expect(try await fetch(server.baseURL.appendingEndpoint("/testapi/private")).status == 503)
        #expect(try await fetch(server.baseURL.appendingEndpoint("/testapi/private/x")).status == 503)
    }

    @Test("method= scopes a rule to one method")
    func methodScope() async throws {
        let server = try startServer()
        defer { server.stop() }
        server.addFault(try SandboxFault.parse("status=500; method=POST"))
        #expect(try await fetch(server.baseURL.appendingEndpoint("/echo")).status == 200)
        #expect(try await fetch(server.baseURL.appendingEndpoint("/echo"), method: "POST", body: Data("x".utf8)).status == 500)
    }

    @Test("removeAllFaults() restores normal service; a request header beats server-wide rules")
    func removeAllFaults() async throws {
        let server = try startServer(testConfiguration { $0.faults = [SandboxFault(status: 500)] })
        defer { server.stop() }
        #expect(try await fetch(server.baseURL.appendingEndpoint("/echo")).status == 500)
        #expect(try await fetch(server.baseURL.appendingEndpoint("/echo"), headers: ["X-Sandbox-Fault": "status=418"]).status == 418)
        server.removeAllFaults()
        #expect(try await fetch(server.baseURL.appendingEndpoint("/echo")).status == 200)
    }

    @Test("fail rate 1 makes every request 503; 0 never does")
    func failRate() throws {
        let always = try startServer(testConfiguration { $0.failRate = 1 })
        defer { always.stop() }
        let never = try startServer(testConfiguration { $0.failRate = 0 })
        defer { never.stop() }
        let failing = try RawClient(port: always.port)
        let healthy = try RawClient(port: never.port)
        for _ in 0..<10 {
            failing.get("/echo")
            healthy.get("/echo")
            #expect(try failing.readResponse()?.status == 503)
            #expect(try healthy.readResponse()?.status == 200)
        }
    }

    @Test("the fail rate draws from the injected random source")
    func failRateRandomSource() throws {
        let draws = [0.7, 0.2, 0.9, 0.49]
        let index = Counter()
        let server = try startServer(testConfiguration {
            $0.failRate = 0.5
            $0.random = { draws[(index.increment() - 1) % draws.count] }
        })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        var statuses: [Int] = []
        for _ in draws {
            client.get("/echo")
            statuses.append(try #require(try client.readResponse()).status)
        }
        #expect(statuses == [200, 503, 200, 503])
    }

    @Test("faults are named in the log")
    func faultLogged() async throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder))
        defer { server.stop() }
        _ = try await fetch(server.baseURL.appendingEndpoint("/echo?f=1"), headers: ["X-Sandbox-Fault": "status=503; retry-after=2"])
        let line = try #require(recorder.line(containing: "/echo?f=1"))
        #expect(line.contains("-> 503"))
        #expect(line.contains("[fault (header): status=503; retry-after=2]"))
    }
}
