import AggregateCore
import AggregateSandbox
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Sandbox server: HTTP")
struct SandboxServerHTTPTests {
    @Test("GET is routed to the provider and answered with the standard headers")
    func basicGet() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo?lat=51.5&name=two+words"))
        #expect(response.status == 200)
        let json = try #require(response.json)
        #expect(json["method"] as? String == "GET")
        #expect(json["path"] as? String == "/echo")
        #expect((json["query"] as? [String: String]) == ["lat": "51.5", "name": "two words"])
        #expect(response.header("Server") == "aggregate-sandbox")
        #expect(response.header("Content-Length") == String(response.body.count))
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test("POST delivers its body to the route")
    func postWithBody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let payload = #"{"title":"hello","tags":["a","b"]}"#
        let response = try await fetch(
            server.baseURL.appendingEndpoint("/echo"), method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(payload.utf8))
        #expect(response.status == 200)
        let json = try #require(response.json)
        #expect(json["method"] as? String == "POST")
        #expect(json["body"] as? String == payload)
        #expect(json["contentType"] as? String == "application/json")
    }

    @Test("a large POST body (1 MiB, sent with Expect: 100-continue by some clients) arrives whole")
    func largePostBody() async throws {
        let server = try startServer()
        defer { server.stop() }
        let payload = String(repeating: "abcdefgh", count: 128 << 10)
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo"), method: "POST", body: Data(payload.utf8))
        #expect(response.status == 200)
        #expect((response.json?["body"] as? String)?.count == payload.count)
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        var interim = Data()
        var byte = [UInt8](repeating: 0, count: 25)
        let count = byte.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
        interim.append(contentsOf: byte.prefix(max(0, count)))
        #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue"))
        client.send("hello")
        let response = try #require(try client.readResponse())
        #expect(response.status == 200)
        #expect(response.json?["body"] as? String == "hello")
    }

    @Test("chunked request bodies are decoded")
    func chunkedBody() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n")
        let response = try #require(try client.readResponse())
        #expect(response.status == 200)
        #expect(response.json?["body"] as? String == "hello, world")
    }

    @Test("HEAD gets the GET headers without a body")
    func head() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("HEAD /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        client.get("/echo")
        let head = try #require(try client.readResponse(headOnly: true))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        let declared = try #require(Int(head.header("Content-Length") ?? ""))
        // Had the HEAD response carried a body, these bytes would not start a valid response.
        let get = try #require(try client.readResponse())
        #expect(get.status == 200)
        #expect(get.body.count == declared)
    }

    @Test("keep-alive: several requests in sequence on one connection, then Connection: close ends it")
    func keepAlive() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        for index in 1...5 {
            client.get("/echo?n=\(index)")
            let response = try #require(try client.readResponse())
            #expect(response.status == 200)
            #expect((response.json?["query"] as? [String: String])?["n"] == "\(index)")
            #expect(response.header("Connection") == "keep-alive")
        }
        client.get("/echo?n=last", headers: ["Connection: close"])
        let last = try #require(try client.readResponse())
        #expect(last.status == 200)
        #expect(last.header("Connection") == "close")
        #expect(client.isClosedByServer())
        #expect(server.requestCount == 6)
    }

    @Test("pipelined requests sent in one write are answered in order")
    func pipelining() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send((1...3).map { "GET /echo?n=\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
        for index in 1...3 {
            let response = try #require(try client.readResponse())
            #expect((response.json?["query"] as? [String: String])?["n"] == "\(index)")
        }
    }

    @Test("HTTP/1.0 closes after one response unless it asks for keep-alive")
    func http10() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.0\r\n\r\n")
        let response = try #require(try client.readResponse())
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test("20 clients connected at once are all served")
    func concurrentRawClients() throws {
        let server = try startServer()
        defer { server.stop() }
        // All connections are open before any request is sent, so they are truly concurrent.
        let clients = try (0..<24).map { _ in try RawClient(port: server.port) }
        for (index, client) in clients.enumerated() { client.get("/echo?client=\(index)") }
        for (index, client) in clients.enumerated().reversed() {
            let response = try #require(try client.readResponse())
            #expect(response.status == 200)
            #expect((response.json?["query"] as? [String: String])?["client"] == "\(index)")
        }
        #expect(server.requestCount == 24)
    }

    @Test("20 concurrent URLSession requests all succeed")
    func concurrentURLSession() async throws {
        let server = try startServer()
        defer { server.stop() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { try await fetch(server.baseURL.appendingEndpoint("/echo?i=\(index)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
    }

    @Test("connections beyond the limit are refused with 503 while every slot is busy answering")
    func connectionLimit() throws {
        let server = try startServer(testConfiguration { $0.maximumConnections = 2 })
        defer { server.stop() }
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        first.get("/echo", headers: ["X-Sandbox-Fault: delay=1500ms"])
        second.get("/echo", headers: ["X-Sandbox-Fault: delay=1500ms"])
        // Both are now inside their delay, so neither is waiting for a request and neither gives way.
        Thread.sleep(forTimeInterval: 0.3)
        let third = try RawClient(port: server.port)
        let refused = try #require(try third.readResponse())
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(try first.readResponse()?.status == 200)
        #expect(try second.readResponse()?.status == 200)
    }

    @Test("/<provider>/... routes to that provider with the prefix removed, and links include the prefix")
    func prefixRouting() async throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder))
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/testapi/echo?x=1"))
        #expect(response.status == 200)
        #expect(response.json?["path"] as? String == "/echo")
        #expect(response.json?["baseURL"] as? String == "\(server.baseURL.absoluteString)/testapi")
        #expect(recorder.line(containing: "/testapi/echo?x=1")?.hasSuffix(" testapi") == true)
    }

    @Test("the Host header decides the URL routes link to")
    func hostHeader() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /testapi/echo HTTP/1.1\r\nHost: sandbox.test:9999\r\n\r\n")
        let response = try #require(try client.readResponse())
        #expect(response.json?["baseURL"] as? String == "http://sandbox.test:9999/testapi")
    }

    @Test("unknown paths get the router's 404")
    func notFound() async throws {
        let server = try startServer()
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/no/such/route"))
        #expect(response.status == 404)
        #expect(response.json?["error"] as? String == "not found")
        let prefixed = try await fetch(server.baseURL.appendingEndpoint("/testapi/nothing"))
        #expect(prefixed.status == 404)
    }

    @Test("the provider's auth is enforced: 401 without the bearer token, 200 with it")
    func bearerAuth() async throws {
        let server = try startServer()
        defer { server.stop() }
        let denied = try await fetch(server.baseURL.appendingEndpoint("/private"))
        #expect(denied.status == 401)
        let allowed = try await fetch(
            server.baseURL.appendingEndpoint("/private"), headers: ["Authorization": "Bearer \(EchoTestProvider.token)"])
        #expect(allowed.status == 200)
        #expect(allowed.json?["secret"] as? String == "you are in")
    }
}

@Suite("Sandbox server: bad input")
struct SandboxServerBadInputTests {
    /// Sends `bytes` on a fresh connection and returns the response status (nil when the server just closed).
    private func status(for bytes: String, on server: SandboxServer) throws -> Int? {
        let client = try RawClient(port: server.port)
        client.send(bytes)
        return try client.readResponse()?.status
    }

    @Test("garbage gets 400 and the server keeps serving", arguments: [
        "\u{01}\u{02}garbage\r\n\r\n",
        "GET\r\n\r\n",
        "GET /echo\r\n\r\n",
        "GET /echo HTTP/1.1 extra\r\n\r\n",
        "GET echo HTTP/1.1\r\n\r\n",
        "G(T /echo HTTP/1.1\r\n\r\n",
        "GET /echo HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET /echo HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET /echo HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",
        "POST /echo HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST /echo HTTP/1.1\r\nContent-Length: 12abc\r\n\r\n",
        "POST /echo HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
    ])
    func garbage(_ bytes: String) throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(try status(for: bytes, on: server) == 400)
        let client = try RawClient(port: server.port)
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
    }

    @Test("an unsupported HTTP version gets 505 and an unknown transfer coding 501")
    func versionsAndCodings() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(try status(for: "GET /echo HTTP/2.0\r\n\r\n", on: server) == 505)
        #expect(try status(for: "POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", on: server) == 501)
    }

    @Test("random binary input never crashes the server")
    func randomBytes() throws {
        let server = try startServer()
        defer { server.stop() }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let client = try RawClient(port: server.port)
            let bytes = (0..<Int.random(in: 1...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            client.send(Data(bytes) + Data("\r\n\r\n".utf8))
            let response = try? client.readResponse()
            #expect(response == nil || (400..<600).contains(response!.status))
        }
        let client = try RawClient(port: server.port)
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
    }

    @Test("a body over the limit gets 413 without being read")
    func tooLarge() throws {
        let server = try startServer()
        defer { server.stop() }
        #expect(try status(for: "POST /echo HTTP/1.1\r\nContent-Length: \(9 << 20)\r\n\r\n", on: server) == 413)
        // A chunked body is counted as it arrives.
        let client = try RawClient(port: server.port)
        let chunk = String(repeating: "x", count: 1 << 20)
        client.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<10 {
            // The server stops reading after 8 MiB; a failed send only means it already answered.
            guard client.send("100000\r\n\(chunk)\r\n") else { break }
        }
        #expect(try client.readResponse()?.status == 413)
    }

    @Test("a huge request head gets 431")
    func hugeHead() throws {
        let server = try startServer()
        defer { server.stop() }
        let header = "X-Filler: " + String(repeating: "y", count: 70 << 10)
        #expect(try status(for: "GET /echo HTTP/1.1\r\n\(header)\r\n\r\n", on: server) == 431)
        // Just under the limit is fine.
        let fits = "X-Filler: " + String(repeating: "y", count: 60 << 10)
        #expect(try status(for: "GET /echo HTTP/1.1\r\n\(fits)\r\n\r\n", on: server) == 200)
    }

    @Test("an idle client is disconnected after the idle timeout; a stalled head gets 408")
    func idleTimeout() throws {
        let server = try startServer(testConfiguration { $0.idleTimeout = 0.3 })
        defer { server.stop() }
        let started = Date()
        let idle = try RawClient(port: server.port)
        #expect(idle.isClosedByServer())
        let stalled = try RawClient(port: server.port)
        stalled.send("GET /echo HTTP/1.1\r\nHost: x\r\n")
        #expect(try stalled.readResponse()?.status == 408)
        #expect(Date().timeIntervalSince(started) < 5)
    }
}

@Suite("Sandbox server: lifecycle")
struct SandboxServerLifecycleTests {
    @Test("stop() releases the port: a new server can bind it at once")
    func stopReleasesPort() throws {
        let first = try startServer()
        let port = first.port
        let client = try RawClient(port: port)
        client.get("/echo")
        #expect(try client.readResponse()?.status == 200)
        first.stop()
        #expect(client.isClosedByServer())

        let second = try startServer(testConfiguration { $0.port = port })
        defer { second.stop() }
        #expect(second.port == port)
        let again = try RawClient(port: port)
        again.get("/echo")
        #expect(try again.readResponse()?.status == 200)
    }

    @Test("binding a port in use is a config error that says what to do")
    func portInUse() throws {
        let first = try startServer()
        defer { first.stop() }
        let second = SandboxServer(catalog: testCatalog, configuration: testConfiguration { $0.port = first.port })
        do {
            try second.start()
            Issue.record("the second server should not bind port \(first.port)")
        } catch let error as AggregateError {
            #expect(error.kind == .config)
            #expect(error.message.contains("port \(first.port) is already in use"))
            #expect(error.message.contains("--port"))
        }
    }

    @Test("dozens of servers start and stop promptly")
    func manyServers() throws {
        let started = Date()
        for _ in 0..<40 {
            let server = try startServer()
            let client = try RawClient(port: server.port)
            client.get("/echo")
            #expect(try client.readResponse()?.status == 200)
            // The client stays connected (keep-alive): stop() must not wait for it to leave.
            server.stop()
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test("stop() ends open connections and in-flight delays at once, and waitUntilStopped() returns")
    func stopIsPrompt() throws {
        let server = try startServer()
        let idle = try RawClient(port: server.port)
        let slow = try RawClient(port: server.port)
        slow.get("/echo", headers: ["X-Sandbox-Fault: delay=30s"])
        idle.get("/echo")
        #expect(try idle.readResponse()?.status == 200)
        // waitUntilStopped() runs on its own thread: blocking a cooperative-pool thread could starve other tests.
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            server.waitUntilStopped()
            stopped.signal()
        }.start()
        let started = Date()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(stopped.wait(timeout: .now() + 3) == .success)
        #expect(idle.isClosedByServer())
        #expect(slow.readToEnd().isEmpty)
    }

    @Test("binds loopback by default and reports a usable base URL")
    func defaults() throws {
        let configuration = SandboxServerConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8787)
        let server = try startServer()
        defer { server.stop() }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.port > 0)
    }

    @Test("an invalid fail rate is refused before binding")
    func invalidFailRate() {
        let server = SandboxServer(catalog: testCatalog, configuration: testConfiguration { $0.failRate = 1.5 })
        #expect(throws: AggregateError.self) { try server.start() }
    }
}

@Suite("Sandbox server: log")
struct SandboxServerLogTests {
    @Test("one line per request with method, target, status, size, time and provider")
    func format() async throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder))
        defer { server.stop() }
        let response = try await fetch(server.baseURL.appendingEndpoint("/echo?lat=51.5"))
        let line = try #require(recorder.line(containing: "/echo?lat=51.5"))
        #expect(line.hasPrefix("127.0.0.1 GET /echo?lat=51.5 -> 200 \(response.body.count) bytes "))
        #expect(line.hasSuffix(" ms testapi"))
    }

    @Test("keys, tokens and bearer credentials never reach the log")
    func redaction() async throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder))
        defer { server.stop() }
        _ = try await fetch(server.baseURL.appendingEndpoint("/echo?lat=1&key=\(EchoTestProvider.key)"))
        _ = try await fetch(server.baseURL.appendingEndpoint("/echo?access_token=unlisted-secret-value"))
        _ = try await fetch(server.baseURL.appendingEndpoint("/private/\(EchoTestProvider.token)"))
        _ = try await fetch(
            server.baseURL.appendingEndpoint("/private"), headers: ["Authorization": "Bearer \(EchoTestProvider.token)"])
        let lines = recorder.waitForLines(4)
        #expect(lines.count == 4)
        #expect(lines.contains { $0.contains("/echo?lat=1&key=*** -> 200") })
        #expect(lines.contains { $0.contains("access_token=***") })
        #expect(lines.contains { $0.contains("/private/*** -> 404") })
        for line in lines {
            #expect(!line.contains(EchoTestProvider.key))
            #expect(!line.contains(EchoTestProvider.token))
            #expect(!line.contains("unlisted-secret-value"))
        }
    }

    @Test("rejected requests are logged redacted too")
    func rejectedRedacted() throws {
        let recorder = LogRecorder()
        let server = try startServer(testConfiguration(recorder))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET /echo?key=\(EchoTestProvider.key) HTTP/1.1\r\nBad Header\r\n\r\n")
        #expect(try client.readResponse()?.status == 400)
        let line = try #require(recorder.line(containing: "-> 400"))
        #expect(line.contains("key=***"))
        #expect(!line.contains(EchoTestProvider.key))
    }
}
