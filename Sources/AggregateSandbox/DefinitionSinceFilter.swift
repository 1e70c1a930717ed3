import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandboxKit
import Foundation

/// The emulator's side of an operation's `since` section: a request that carries the time in the declared query
/// parameter (`numericFilters=created_at_i>1700000000`) gets only the sample records whose mapped `createdAt` is
/// newer, as the API's own filter would answer.
struct DefinitionSinceFilter {
    let operation: ProviderDefinition.Operation

    /// `body` with the records at the operation's `records` path cut to those newer than the request's time.
    func filtered(_ body: JSONValue, request: SandboxRequest) -> JSONValue {
        guard let since = operation.since, let time = since.time(inQuery: { request.queryValue($0) }),
              let records = (try? operation.records.resolve(in: body))?.array
        else { return body }
        let kept = records.filter { record in operation.createdAt(in: record).map { $0 > time } ?? true }
        return SamplePages.replacing(operation.records.segments[...], in: body, with: .array(kept))
    }
}
