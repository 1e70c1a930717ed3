import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// Records the thread each sandbox route ran on.
struct ThreadRecordingProvider: Provider, SandboxProviding {
    static let providerName = "threads"
    static let descriptor = ProviderDescriptor(
        name: "threads", displayName: "Threads", summary: "Records threads.", docsURL: "https://example.invalid",
        defaultBaseURL: "https://threads.example.invalid", auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "list", summary: "List.", itemKind: "x")], examples: [])
    static var sandboxEnvironment: [String: String] { [:] }
    static let sandboxPaths: [PathPattern] = ["/x"]
    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        .json(["worker": .bool(BlockingWork.isOnWorkerThread)])
    }
    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }
}

@Suite struct SandboxTransportThreadTests {
    @Test func writesThatTakeTheStoreLockRunOffTheCooperativePool() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-threads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = SandboxTransport(catalog: try SandboxCatalog([ThreadRecordingProvider.self], sandboxes: [ThreadRecordingProvider.self]), store: SandboxStore(directory: directory))
        let url = URL(string: "https://threads.example.invalid/x")!
        let post = try await transport.send(HTTPRequest(method: "POST", url: url, headers: [:], body: Data("{}".utf8), timeout: 5, maxResponseBytes: 1 << 20))
        #expect(try JSONParser().parse(post.body)["worker"] == true)
        let get = try await transport.send(HTTPRequest(method: "GET", url: url, headers: [:], body: nil, timeout: 5, maxResponseBytes: 1 << 20))
        #expect(try JSONParser().parse(get.body)["worker"] == false)
    }
}
