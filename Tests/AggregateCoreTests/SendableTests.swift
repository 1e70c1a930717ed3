import AggregateCore
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
    requireSendable(FetchOptions.self)
    requireSendable(FetchEvent.self)
    requireSendable(Fetcher.self)
    requireSendable(FetchClient.self)
    requireSendable(RetryPolicy.self)
    requireSendable(Redactor.self)
    requireSendable(ProviderRegistry.self)
    requireSendable(SandboxRequest.self)
    requireSendable(SandboxResponse.self)
    requireSendable(SandboxContext.self)
    requireSendable(SandboxStore.self)
    requireSendable(URLSessionTransport.self)
    requireSendable(SandboxTransport.self)
    requireSendable(ItemTable.self)
}
