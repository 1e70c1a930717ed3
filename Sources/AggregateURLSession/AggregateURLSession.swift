// AggregateURLSession: the URLSession transport for apps (`URLSessionTransport`), and a `ProviderRunner` that uses
// it. It is the one module of the package that links FoundationNetworking (libcurl and its TLS library on Linux), so
// an app or program that never sends a request can leave it out; the executable on Linux uses AggregateCurl instead.
// May import: AggregateText, AggregateCore, AggregateHTTP, Foundation, FoundationNetworking, Glibc, Darwin
public import AggregateCore
public import AggregateHTTP
public import Foundation

extension ProviderRunner {
    /// A runner whose live runs go over ``URLSessionTransport``.
    ///
    /// ```swift
    /// let runner = ProviderRunner(registry: try ProviderRegistry(allProviders), environment: ProcessInfo.processInfo.environment)
    /// ```
    public init(
        registry: ProviderRegistry, environment: [String: String], offline: (any OfflineTransport)? = nil,
        retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil, events: @escaping @Sendable (FetchEvent) -> Void = { _ in }
    ) {
        self.init(
            registry: registry, environment: environment, offline: offline, makeTransport: { URLSessionTransport() }, retrySleep: retrySleep,
            events: events)
    }
}
