import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

/// `--store redis://...` on the command line: runs on different "machines" (each its own cache folder) share one
/// rate budget through Redis, and a server that cannot be reached is one clear line.
@Suite(.requiresRedis, .serialized) final class RedisStoreCLITests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-redis-cli-\(UUID().uuidString)")
    let server: RedisTestServer?
    let url: String

    init() throws {
        if let shared = RedisTestServer.environmentURL {
            server = nil
            url = shared
        } else {
            let own = try RedisTestServer()
            server = own
            url = own.url()
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Eight runs, four at a time, each with a cache folder of its own: with the budget in Redis only five reach
    /// the sandbox (which allows five), the others stop before sending, and none gets a 403.
    @Test func processesOnSeparateMachinesShareOneBudget() async throws {
        let sandbox = try LoopbackSandbox(settings: ["kiva.rate-limit": "5/10m"])
        // A fresh prefix of the budget: the bucket key names the sandbox's host and port, which no other run shares.
        let outputs = RunOutputs()
        let folder = self.folder
        let base = sandbox.url + "/kiva"
        let arguments = ["kiva", "newest", "--api", "rest", "--limit", "1", "--format", "json", "--no-cache", "--store", url]
        try await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let environment = [
                    "AGGREGATE_KIVA_BASE_URL": base, "XDG_CACHE_HOME": folder.appendingPathComponent("machine\(index)").path,
                    "TZ": "UTC", "AGGREGATE_KIVA_RATE_LIMIT": "5/10m",
                ]
                outputs.append(Result { try Binary.run(arguments, environment: environment) })
            }
        }
        let runs = try outputs.values.map { try $0.get() }
        #expect(runs.count == 8)
        #expect(runs.filter { $0.status == 0 }.count == 5)
        #expect(!runs.contains { $0.stderr.contains("403") })
        for run in runs where run.status != 0 {
            #expect(run.stderr.contains("Error: kiva: the rate limit (5 requests per 10 min) is spent"), "\(run.stderr)")
        }
        #expect(sandbox.server.requestCount == 5)
    }

    @Test func anUnreachableStoreIsOneLine() throws {
        let environment = ["XDG_CACHE_HOME": folder.path, "AGGREGATE_STORE": "redis://:pw-MARKER@127.0.0.1:1/0"]
        let run = try Binary.run(["kiva", "newest", "--api", "rest", "--limit", "1"], environment: environment)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.hasSuffix("cannot reach redis://127.0.0.1:1/0: connection refused; start redis-server or drop --store\n"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!run.stderr.contains("MARKER"))
        let bad = try Binary.run(["kiva", "newest", "--store", "redis://h:99999/0"], environment: ["XDG_CACHE_HOME": folder.path])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: ") && bad.stderr.contains("the store is not a usable redis:// URL: the port must be a number from 1 to 65535"), "\(bad.stderr)")
    }
}

final class RunOutputs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<Binary.Output, any Error>] = []
    func append(_ value: Result<Binary.Output, any Error>) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }
    var values: [Result<Binary.Output, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
