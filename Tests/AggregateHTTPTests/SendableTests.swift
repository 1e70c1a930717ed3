import AggregateHTTP
import Foundation

// Compile-only: fails to build if a public type that crosses concurrency domains loses `Sendable`.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func checkSendable() {
    requireSendable(FetchOptions.self)
    requireSendable(FetchEvent.self)
    requireSendable(Fetcher.self)
    requireSendable(RetryPolicy.self)
    requireSendable(NoNetworkTransport.self)
    requireSendable(ProviderRunner.self)
}
