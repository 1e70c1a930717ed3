import AggregateSandboxKit
import Foundation

// Compile-only: fails to build if a public type that crosses concurrency domains loses `Sendable`.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func checkSendable() {
    requireSendable(SandboxRequest.self)
    requireSendable(SandboxResponse.self)
    requireSendable(SandboxContext.self)
    requireSendable(SandboxStore.self)
    requireSendable(SandboxTransport.self)
    requireSendable(SandboxCatalog.self)
}
