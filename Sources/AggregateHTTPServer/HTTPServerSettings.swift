package import Foundation

/// How an ``HTTPServer`` listens and defends itself: the address, the timeouts, the caps, its log and clock.
package struct HTTPServerSettings: Sendable {
    /// The address to bind (`127.0.0.1`, `0.0.0.0`, `::1`, ...).
    package var host: String
    /// The port to bind; 0 picks any free port.
    package var port: Int
    /// How long a connection may sit without sending a byte before it is closed.
    package var idleTimeout: TimeInterval
    /// The most time a request head may take to arrive in full, from its first byte (slowloris gets 408).
    package var headTimeout: TimeInterval
    /// How long a kept-alive connection may wait for its next request before it is closed quietly.
    package var keepAliveTimeout: TimeInterval
    /// How long a client may take to accept each 64 KiB piece of a response before the connection is closed.
    package var sendStallTimeout: TimeInterval
    /// The largest request body accepted; larger ones get 413.
    package var maximumBodyBytes: Int
    /// The most connections served at once; when all are taken, the one waiting longest for a request gives way,
    /// and only when every one is busy answering is a new one refused with 503.
    package var maximumConnections: Int
    /// The `Server` header of every response.
    package var serverName: String
    /// The names of the server's threads (`<name>-accept`, `<name>-connection`).
    package var threadName: String
    /// What messages call the server, e.g. `sandbox server`.
    package var displayName: String
    /// The clock of the `Date` header.
    package var now: @Sendable () -> Date

    package init(
        host: String, port: Int, idleTimeout: TimeInterval = 30, headTimeout: TimeInterval = 10, keepAliveTimeout: TimeInterval = 10,
        sendStallTimeout: TimeInterval = 10, maximumBodyBytes: Int = 1 << 20, maximumConnections: Int = 256,
        serverName: String = "aggregate", threadName: String = "http", displayName: String = "server", now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.sendStallTimeout = sendStallTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumConnections = maximumConnections
        self.serverName = serverName
        self.threadName = threadName
        self.displayName = displayName
        self.now = now
    }

    /// `http://<host>:<port>`, with a wildcard host replaced by loopback so the URL can be used by a client.
    package func baseURL(port: Int) -> URL {
        let host: String
        switch self.host {
        case "", "0.0.0.0": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let name where name.contains(":") && !name.hasPrefix("["): host = "[\(name)]"
        case let name: host = name
        }
        // A zone index (`fe80::1%eth0`) is written `%25` in a URL (RFC 6874); a host that still makes no URL is
        // reached through loopback, which every bind address accepts too.
        let text = "http://\(host.replacingOccurrences(of: "%", with: "%25")):\(port)"
        return URL(string: text) ?? URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }
}
