import AggregateCore
import AggregateSandbox
import Foundation
import Testing

/// The requests that used to trap the whole server (issue 14): each now gets a clear answer and the server keeps
/// serving the next client.
@Suite struct SandboxCrashReproductionTests {
    @Test("fault specs with an empty name are usage errors", arguments: ["=", "==", " = ", "status=503;=", "=503", "status=503; =x"])
    func emptyNames(_ spec: String) {
        #expect(throws: AggregateError.self) { try SandboxFault.parse(spec) }
        do {
            _ = try SandboxFault.parse(spec)
        } catch let error as AggregateError {
            #expect(error.kind == .usage)
            #expect(error.message.contains("invalid sandbox fault"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a fault header with an empty name gets 400 and the server keeps serving")
    func faultHeaderWithEmptyName() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/echo", headers: ["X-Sandbox-Fault: ="])
        let refused = try #require(try client.readResponse())
        #expect(refused.status == 400)
        #expect(refused.text.contains("invalid sandbox fault"))

        let next = try RawClient(port: server.port)
        next.get("/echo")
        #expect(try next.readResponse()?.status == 200)
    }

    @Test("a chunk size near Int.max after a first chunk is refused with 413, not an overflow")
    func hugeChunkSize() throws {
        let server = try startServer()
        defer { server.stop() }
        for size in ["7fffffffffffffff", "ffffffffffffffff", "8000000000000000"] {
            let client = try RawClient(port: server.port)
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n\(size)\r\n")
            let refused = try #require(try client.readResponse())
            #expect([400, 413].contains(refused.status), "chunk size \(size)")
        }
        let next = try RawClient(port: server.port)
        next.get("/echo")
        #expect(try next.readResponse()?.status == 200)
    }
}

/// Found by the `fault-spec` fuzzer: a fault's description must read back as the same fault.
@Suite struct SandboxFaultRoundTripTests {
    @Test(arguments: ["delay=.5ms", "delay=0.123s", "delay=1.5s", "delay=2s", "delay=999ms", "delay=0.0001", "delay=3599.9999s"])
    func delaysRoundTripThroughTheirDescription(_ spec: String) throws {
        let fault = try SandboxFault.parse(spec)
        #expect(try SandboxFault.parse(fault.description) == fault, "\(fault)")
    }
}
