import AggregateRedis
import AggregateSockets
import Foundation
public import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private `redis-server` for one suite: started on a free loopback port with no persistence
/// (`--save '' --appendonly no`), stopped when the value goes away. Tests can stop and restart it to see what
/// clients do during an outage.
///
/// Suites that only need *a* Redis use ``sharedURL(prefixed:)``: `AGGREGATE_REDIS_URL` when set (CI starts one),
/// else a private server. Without either the tests are skipped, unless `AGGREGATE_REQUIRE_REDIS=1` makes them fail.
public final class RedisTestServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Extra `redis-server` arguments, e.g. `--requirepass`.
    public let arguments: [String]
    private let lock = NSLock()
    private var process: Process?
    private var lifeline: Pipe?
    private var serverID: Int32?
    private let folder: URL

    /// `redis-server`'s path, if installed.
    public static var executable: String? { OptionalTool(name: "redis-server", install: "apt-get install redis-server").path }

    /// Whether `AGGREGATE_REQUIRE_REDIS` asks for the Redis tests to run (and fail without Redis).
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["AGGREGATE_REQUIRE_REDIS"].map { !$0.isEmpty && $0 != "0" } ?? false
    }

    /// `AGGREGATE_REDIS_URL`, when set.
    public static var environmentURL: String? {
        ProcessInfo.processInfo.environment["AGGREGATE_REDIS_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Starts a server on a free port.
    /// - Throws: when `redis-server` is missing or does not answer `PING` in time.
    public init(arguments: [String] = []) throws {
        guard let executable = Self.executable else {
            throw RedisTestServerError("redis-server is not installed (apt-get install redis-server)")
        }
        let listener = try POSIXSocket.openListener(host: "127.0.0.1", port: 0)
        POSIXSocket.closeDescriptor(listener.descriptor)
        port = listener.port
        self.arguments = arguments
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try launch(executable)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// `redis://127.0.0.1:PORT/0` (with the password when `--requirepass` was given: only for tests).
    public func url(database: Int = 0, password: String? = nil) -> String {
        "redis://\(password.map { ":\($0)@" } ?? "")127.0.0.1:\(port)/\(database)"
    }

    /// Stops the server (SIGKILL: as sudden as a crash) and waits until its port refuses connections.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard process != nil else { return }
        if let serverID { kill(serverID, SIGKILL) }
        try? lifeline?.fileHandleForWriting.close()
        process = nil
        lifeline = nil
        serverID = nil
        for _ in 0..<200 {
            guard let descriptor = try? POSIXSocket.connect(host: "127.0.0.1", port: port, timeout: 0.2) else { return }
            POSIXSocket.closeDescriptor(descriptor)
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Starts the server again on the same port, empty.
    public func restart() throws {
        guard let executable = Self.executable else { throw RedisTestServerError("redis-server is not installed") }
        stop()
        try launch(executable)
    }

    private func launch(_ executable: String) throws {
        // Through a shell that holds the server's life on a pipe from this process: when the pipe ends (stop(), or
        // the test process exits however it does) the server is killed, so no redis-server outlives the tests.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "\"$0\" \"$@\" & pid=$!; echo $pid; cat >/dev/null; kill -9 $pid 2>/dev/null", executable,
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder.path,
            "--daemonize", "no", "--loglevel", "warning",
        ] + arguments
        let pipe = Pipe()
        // Only the wrapper may hold the pipe: a copy in another child would keep it open after this process ends.
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        let output = Pipe()
        process.standardInput = pipe
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The wrapper's first line is the server's process id, for stop()'s SIGKILL.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        lock.lock()
        self.process = process
        lifeline = pipe
        serverID = Int32(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        lock.unlock()
        // Ready when it accepts a connection; bounded, so a server that never comes up fails the suite.
        for _ in 0..<200 {
            if let descriptor = try? POSIXSocket.connect(host: "127.0.0.1", port: port, timeout: 0.2) {
                POSIXSocket.closeDescriptor(descriptor)
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw RedisTestServerError("redis-server did not start on port \(port)")
    }

    /// A Redis for tests that only need one: `AGGREGATE_REDIS_URL`, else `server` (started by the caller).
    public static func sharedURL(or server: RedisTestServer?) -> String? {
        environmentURL ?? server?.url()
    }

    /// A key prefix no other test run shares, so suites can share one Redis.
    public static func uniquePrefix(_ name: String) -> String {
        "aggregate-test:\(name):\(UUID().uuidString.prefix(8)):"
    }
}

/// Why the test server could not be used.
public struct RedisTestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when a Redis can be had (`AGGREGATE_REDIS_URL`, or `redis-server` installed) or
    /// `AGGREGATE_REQUIRE_REDIS=1`; otherwise skips it with the reason shown.
    public static var requiresRedis: Self {
        .enabled(
            if: RedisTestServer.isRequired || RedisTestServer.environmentURL != nil || RedisTestServer.executable != nil,
            "neither AGGREGATE_REDIS_URL nor redis-server (apt-get install redis-server); set AGGREGATE_REQUIRE_REDIS=1 to fail instead of skipping")
    }

    /// Runs the test when `redis-server` is installed (it starts, stops and restarts its own) or
    /// `AGGREGATE_REQUIRE_REDIS=1`.
    public static var requiresRedisServer: Self {
        .enabled(
            if: RedisTestServer.isRequired || RedisTestServer.executable != nil,
            "redis-server is not installed (apt-get install redis-server); set AGGREGATE_REQUIRE_REDIS=1 to fail instead of skipping")
    }
}
