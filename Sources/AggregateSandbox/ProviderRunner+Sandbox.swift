public import AggregateCore
public import AggregateHTTP
public import AggregateSandboxKit
public import Foundation

extension ProviderRunner {
    /// A runner over `catalog`'s providers whose `offline` runs answer from its emulators in-process, keeping writes
    /// (the message board's posts) in `sandboxStore`.
    /// - Parameter makeTransport: the live runs' transport, e.g. `{ URLSessionTransport() }` from AggregateURLSession.
    public init(
        catalog: SandboxCatalog, environment: [String: String], sandboxStore: SandboxStore? = nil,
        makeTransport: @escaping @Sendable () -> any HTTPTransport,
        retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil, events: @escaping @Sendable (FetchEvent) -> Void = { _ in }
    ) {
        self.init(
            registry: catalog.registry, environment: environment, offline: SandboxTransport(catalog: catalog, store: sandboxStore),
            makeTransport: makeTransport, retrySleep: retrySleep, events: events)
    }
}
