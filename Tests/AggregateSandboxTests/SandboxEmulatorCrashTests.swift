import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// Requests that trapped a provider's emulator, and so the whole `aggregate sandbox` process (issue 27), sent over
/// loopback to a server with every emulator, as `aggregate sandbox` runs them.
@Suite("Sandbox server: emulator crashes", .serialized)
struct SandboxEmulatorCrashTests {
    @Test("X: pagination_token=7n0 (below the oldest post) gets X's 400 and the server keeps serving")
    func twitterTokenBelowTheOldestPost() throws {
        let server = SandboxServer(catalog: try TestRegistry.builtIn(), configuration: testConfiguration())
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.get("/2/users/11348282/tweets?pagination_token=7n0", headers: ["Authorization: Bearer sandbox-x-bearer-token"])
        let refused = try #require(try client.readResponse())
        #expect(refused.status == 400)
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.json?["type"] as? String == "https://api.twitter.com/2/problems/invalid-request")
        #expect(refused.text.contains("The `pagination_token` query parameter value [7n0] is not valid"))
        client.get("/2/users/11348282/tweets", headers: ["Authorization: Bearer sandbox-x-bearer-token"])
        #expect(try client.readResponse()?.status == 200)
    }
}
