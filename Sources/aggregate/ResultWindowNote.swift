import AggregateCore
import AggregateDefinitions

/// The note that a run asked for more than the API's result window (a definition's `pagination.maxResults`) and
/// got the window's worth: GitHub's search serves the first 1,000 results of a query, whatever `total_count` says.
enum ResultWindowNote {
    static func note(_ result: ProviderResult, invocation: ProviderInvocation) -> String? {
        guard result.error == nil, let provider = invocation.provider as? DeclarativeProvider,
              let window = provider.definition.resultWindow(of: invocation.operation.name),
              invocation.common.limit > window, result.items.count >= window
        else { return nil }
        return "stopped at \(window) results, the most the API serves for one query (its result window); narrow the query to reach the others"
    }
}
