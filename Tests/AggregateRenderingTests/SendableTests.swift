import AggregateRendering
import Foundation

// Compile-only: fails to build if a public type that crosses concurrency domains loses `Sendable`.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func checkSendable() {
    requireSendable(ItemTable.self)
    requireSendable(QuerySelection.self)
    requireSendable(CompareSelection.self)
    requireSendable(QueryPage.Request.self)
    requireSendable(ComparePage.Request.self)
    requireSendable(WebQuery.self)
}
