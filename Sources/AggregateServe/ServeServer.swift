package import AggregateCore
import AggregateHTTPServer
package import Foundation

/// `aggregate serve`: the package's HTTP server with the gateway's routes as its handler.
///
/// ```swift
/// let server = try ServeServer(backend: backend, configuration: configuration)
/// let port = try server.start()
/// defer { server.stop(drain: 10) }
/// ```
package final class ServeServer: Sendable {
    private let server: HTTPServer<ServeHandler>
    /// What the routes have counted, as `/metrics` shows it.
    package let metrics: ServeMetrics

    /// Creates a server; nothing is bound until ``start()``.
    /// - Throws: a `usage` error when a non-loopback address is asked for without tokens.
    package init(backend: any ServeBackend, configuration: ServeConfiguration) throws(AggregateError) {
        guard ServeConfiguration.isLoopback(configuration.host) || !configuration.tokens.isEmpty else {
            throw AggregateError(
                .usage, "--bind \(configuration.host) reaches other machines: give --token-file FILE with the bearer token clients must send, or bind 127.0.0.1")
        }
        let metrics = ServeMetrics()
        self.metrics = metrics
        let settings = HTTPServerSettings(
            host: configuration.host, port: configuration.port, maximumBodyBytes: configuration.maximumBodyBytes,
            maximumConnections: configuration.maximumConnections, serverName: "aggregate-serve", threadName: "serve",
            displayName: "serve server")
        server = HTTPServer(settings: settings, handler: ServeHandler(backend: backend, configuration: configuration, metrics: metrics))
    }

    /// The bound port once started.
    package var port: Int { server.port }

    /// `http://<host>:<port>`, a wildcard address shown as loopback.
    package var baseURL: URL { server.baseURL }

    /// How many requests have been read.
    package var requestCount: Int { server.requestCount }

    /// Binds and starts serving on background threads; returns the bound port.
    /// - Throws: a `config` error when the address cannot be bound.
    @discardableResult
    package func start() throws -> Int { try server.start() }

    /// Stops accepting, lets requests in flight finish for up to `drain` seconds, then closes everything.
    /// - Returns: whether every request in flight finished in time.
    @discardableResult
    package func stop(drain: TimeInterval = 0) -> Bool { server.stop(drain: drain) }

    /// Blocks until ``stop(drain:)`` has finished.
    package func waitUntilStopped() { server.waitUntilStopped() }
}
