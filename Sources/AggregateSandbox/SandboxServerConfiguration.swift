import AggregateCore
public import AggregateHTTP
public import AggregateSandboxKit
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a ``SandboxServer`` listens, how it misbehaves on purpose, and where its log and clock come from.
public struct SandboxServerConfiguration: Sendable {
    /// The address to bind. Loopback by default: the sandbox is for this machine, and only an explicit
    /// `0.0.0.0` exposes it to the network.
    public var host: String
    /// The port to bind; 0 picks any free port (what tests use).
    public var port: Int
    /// Seconds added before every response, to imitate a distant API.
    public var latency: TimeInterval
    /// The probability (0...1) that a request gets an injected 503 instead of its response.
    public var failRate: Double
    /// Server-wide fault rules, checked in order; the first that applies to a request is used.
    public var faults: [SandboxFault]
    /// Persistent state for providers that write, or `nil` for a read-only sandbox.
    public var store: SandboxStore?
    /// Provider-specific settings passed to every route, e.g. `messageboard.csrf=true`.
    public var settings: [String: String]
    /// Counts requests for the routes that enforce their API's rate limit (Kiva REST); each configuration has its own.
    public var requestCounter = SandboxRequestCounter()
    /// A cassette to serve instead of the emulators (`aggregate sandbox --replay DIR`), or `nil`.
    public var replayer: CassetteReplayer?
    /// Receives one line per request (already redacted). The default writes to standard error.
    public var log: @Sendable (String) -> Void
    /// The clock routes and the `Date` header see.
    public var now: @Sendable () -> Date
    /// A source of numbers in `0..<1` that decides `failRate` faults; tests replace it to be deterministic.
    public var random: @Sendable () -> Double
    /// How long a connection may sit without sending a byte before it is closed.
    public var idleTimeout: TimeInterval
    /// The most time a request head may take to arrive in full, from its first byte; a client that dribbles it
    /// (slowloris) gets 408 and is disconnected. (At most ``idleTimeout`` between any two bytes.)
    public var headTimeout: TimeInterval = 10
    /// How long a kept-alive connection may wait for its next request before it is closed quietly.
    /// (At most ``idleTimeout``.)
    public var keepAliveTimeout: TimeInterval = 10
    /// The most injected delay (a fault's `delay=`, from a header or a rule) one connection may wait through,
    /// summed over its requests; a request that would go past it gets a 400 saying so (docs/sandbox-faults.md).
    public var maximumDelayPerConnection: TimeInterval = 120
    /// The most injected delay pending across all connections at once; a request that would go past it gets a 400
    /// saying so, so delayed requests cannot take every connection slot for long.
    public var maximumPendingDelay: TimeInterval = 900
    /// How long a client may take to accept each 64 KiB piece of a response (a minimum read rate) before the
    /// sandbox gives up on it and closes the connection, so clients that stop reading cannot hold every slot.
    public var sendStallTimeout: TimeInterval = 10
    /// The largest request body accepted; larger ones get 413.
    public var maximumBodyBytes: Int
    /// The most connections served at once, so a flood cannot exhaust threads. When all are taken, a new
    /// connection replaces the one that has waited longest for a request (idle or sending a slow head); only when
    /// every connection is busy answering is it refused with 503.
    public var maximumConnections: Int

    /// Creates a configuration; every parameter has the default the `sandbox` command uses.
    public init(
        host: String = "127.0.0.1", port: Int = 8787, latency: TimeInterval = 0, failRate: Double = 0,
        faults: [SandboxFault] = [], store: SandboxStore? = nil, settings: [String: String] = [:],
        log: @escaping @Sendable (String) -> Void = SandboxServerConfiguration.standardErrorLog,
        now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        idleTimeout: TimeInterval = 30, maximumBodyBytes: Int = 8 << 20, maximumConnections: Int = 256
    ) {
        self.host = host
        self.port = port
        self.latency = latency
        self.failRate = failRate
        self.faults = faults
        self.store = store
        self.settings = settings
        self.log = log
        self.now = now
        self.random = random
        self.idleTimeout = idleTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumConnections = maximumConnections
    }

    /// Writes `line` and a newline to standard error in one call, so lines from concurrent requests never interleave.
    public static let standardErrorLog: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Checks values a caller could get wrong.
    /// - Throws: ``AggregateError`` of kind `usage`, or `config` for a data directory that is not one.
    func validate() throws {
        if let directory = store?.directory {
            var isDirectory: ObjCBool = false
            // A file where the directory should be would only fail later, on every write, with a 500.
            if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw AggregateError(.config, "the data directory \(directory.path) is a file, not a directory: pass --data-dir with a directory")
            }
        }
        guard (0...1).contains(failRate) else {
            throw AggregateError(.usage, "--fail-rate must be between 0 and 1, not \(failRate)")
        }
        guard latency >= 0, latency.isFinite else {
            throw AggregateError(.usage, "--latency must be zero or more seconds, not \(latency)")
        }
        let timeouts = [idleTimeout, headTimeout, keepAliveTimeout, sendStallTimeout, maximumDelayPerConnection, maximumPendingDelay]
        guard timeouts.allSatisfy({ $0 > 0 && $0.isFinite }), maximumBodyBytes >= 0, maximumConnections > 0 else {
            throw AggregateError(.usage, "the sandbox's timeouts, delay caps, body limit and connection limit must be positive")
        }
    }
}
