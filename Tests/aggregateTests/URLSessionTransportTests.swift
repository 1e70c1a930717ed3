import AggregateCore
import AggregateHTTP
import AggregateSandbox
@testable import AggregateURLSession
import Foundation
import Testing

/// The URLSession transport (AggregateURLSession, for apps) over a real loopback server.
@Suite struct URLSessionTransportTests {
    /// A run answered from the cache never sends, so it must not pay for starting libcurl and its TLS library.
    @Test func theSessionStartsWithTheFirstRequestAndServesEveryLaterOne() async throws {
        let server = try DefinitionServer()
        let transport = URLSessionTransport()
        #expect(!transport.hasStartedSession)
        let url = URL(string: server.server.baseURL.absoluteString + "/pager/pages?query=swift")!
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await transport.send(HTTPRequest(method: "GET", url: url, headers: ["Authorization": "Bearer sandbox-pager-token"])).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == [200, 200, 200, 200])
        #expect(transport.hasStartedSession)
    }
}
