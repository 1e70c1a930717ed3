import AggregateCore
import AggregateJSON
import Foundation

// Compile-only: fails to build if a public type that crosses concurrency domains loses `Sendable`.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func checkSendable() {
    requireSendable(JSONValue.self)
    requireSendable(JSONObject.self)
    requireSendable(Item.self)
    requireSendable(Location.self)
    requireSendable(ProviderResult.self)
    requireSendable(ResultMeta.self)
    requireSendable(AggregateError.self)
    requireSendable(Query.self)
    requireSendable(Page.self)
    requireSendable(ProviderDescriptor.self)
    requireSendable(Parameter.self)
    requireSendable(HTTPRequestSpec.self)
    requireSendable(HTTPRequest.self)
    requireSendable(HTTPResponse.self)
    requireSendable(Credential.self)
    requireSendable(FetchClient.self)
    requireSendable(Redactor.self)
    requireSendable(ProviderRegistry.self)
    requireSendable(LocalCommand.self)
    requireSendable(LocalCommandContext.self)
}
