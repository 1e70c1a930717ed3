public import Foundation

/// What the fetch layer runs: a provider **value**. Every Swift ``Provider`` is one (its stages come from the
/// SDK's extension); so is a ``DeclarativeProvider`` read from a definition at run time, which has no type of its
/// own. The registry, the runner and the fetcher work with this protocol, so both kinds are first-class.
public protocol RunnableProvider: Sendable {
    /// What the provider is and can do.
    var descriptor: ProviderDescriptor { get }

    /// Narrows the environment to the declared variables, checks the credentials and records the run's plan.
    func configure(_ query: inout Query) throws

    /// Completes the plan with lookups before the first page.
    func resolve(_ query: inout Query, using client: FetchClient) async throws

    /// The request for the page at `cursor` (`nil` for the first page).
    func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec

    /// One successful response's items and where the next page is.
    func normalize(_ page: RawPage, for query: Query) throws -> Page

    /// The reading of an unsuccessful response.
    func error(for response: HTTPResponse, query: Query) -> AggregateError

    /// What may have happened when a write got no answer.
    func interruptedWriteOutcome(for query: Query) -> String

    /// How long the API asks us to wait before retrying `response`, if it says so.
    func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval?

    /// The provider's own text view of a successful result, or `nil` for the generic list
    /// (`TextRenderer.view(of:by:style:)` in `AggregateRendering` picks).
    func textView(_ result: ProviderResult, style: TextStyle) -> String?
}
