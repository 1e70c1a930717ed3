import AggregateJSON
@testable import AggregateHTTPServer
import AggregateTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A handler that holds `/slow` until the test opens the gate, and says when it has started.
private struct GatedHandler: HTTPServerHandler {
    typealias ConnectionState = Void
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func handle(_ request: ReceivedRequest, on connection: HTTPConnection, state: inout Void) -> HTTPReply {
        if request.path == "/slow" {
            entered.signal()
            gate.wait()
        }
        return .response(.json(["path": .string(request.path)]))
    }

    func record(_ event: HTTPServerEvent) {}
}

/// Sends one GET and returns the status, or `nil` when no connection could be made.
func loopbackGET(_ url: URL, headers: [String: String] = [:]) async -> (status: Int, body: Data, headers: [String: String])? {
    var request = URLRequest(url: url)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return await loopbackSend(request)
}

/// A POST of a JSON body over loopback.
func loopbackPOST(_ url: URL, _ body: String) async -> (status: Int, body: Data, headers: [String: String])? {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.utf8)
    return await loopbackSend(request)
}

private func loopbackSend(_ original: URLRequest) async -> (status: Int, body: Data, headers: [String: String])? {
    var request = original
    // Generous: the servers under test answer through tasks of the test run's shared cooperative pool, which long
    // synchronous tests can hold for minutes (a 60-second cap once failed a POST in CI for that reason alone).
    request.timeoutInterval = 900
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return nil }
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
    }
    return (http.statusCode, data, fields)
}

@Suite struct HTTPServerDrainTests {
    @Test func aDrainLetsTheRequestInFlightFinishAndAcceptsNoOther() async throws {
        let handler = GatedHandler()
        let server = HTTPServer(settings: HTTPServerSettings(host: "127.0.0.1", port: 0), handler: handler)
        let port = try server.start()
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))

        async let slow = loopbackGET(base.appendingPathComponent("slow"))
        try await onOwnThread { handler.entered.wait() }

        // Stopping blocks until the drain ends: on a thread of its own, not one of the cooperative pool's two.
        let drained = Task { try await onOwnThread { server.stop(drain: 60) } }
        // Once the listener is closed, a new connection is refused; the request in flight is still held.
        var refused = false
        for _ in 0..<200 where !refused {
            refused = await loopbackGET(base.appendingPathComponent("fast")) == nil
        }
        #expect(refused, "a draining server accepts no new connection")
        handler.gate.signal()
        let answer = await slow
        #expect(answer?.status == 200)
        #expect(answer?.headers["connection"] == "close", "a drained connection is closed after its answer")
        #expect(try await drained.value, "the request finished within the drain deadline")
    }

    @Test func aStopWithoutDrainEndsAtOnceAndIsIdempotent() throws {
        let server = HTTPServer(settings: HTTPServerSettings(host: "127.0.0.1", port: 0), handler: GatedHandler())
        try server.start()
        #expect(server.stop())
        #expect(server.stop())
        #expect(throws: (any Error).self) { try server.start() }
    }
}
