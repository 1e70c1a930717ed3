public import Foundation

extension Fetcher {
    /// Fetches one document by URL through the shared fetch layer, for `aggregate browse URL`.
    ///
    /// The request goes through the same exchange as a provider's pages: the timeout and size cap of
    /// ``FetchOptions``, retries of 429/502/503/504 and connection errors (honouring `Retry-After`), redirects
    /// followed by the layer itself, and plain `http://` refused except to loopback hosts. No credentials are sent.
    /// - Returns: the body of the successful response.
    /// - Throws: ``AggregateError`` attributed to `browse` (e.g. `timeout`, `tooLarge`, `http` with the status).
    public func fetchDocument(_ url: URL) async throws(AggregateError) -> Data {
        let query = Query(provider: DocumentSource.descriptor.name, operation: "get", limit: 1, baseURL: url)
        let result = await run(DocumentSource(), query: query)
        if let error = result.error { throw error }
        guard let body = result.rawBodies.first else {
            throw AggregateError(.decoding, "\(url.redactedForDisplay) returned no body", provider: DocumentSource.descriptor.name)
        }
        return body
    }
}

/// One URL seen as a provider with a single page and no items, so a plain document fetch reuses the fetch layer's
/// exchange (retries, timeouts, size cap, redirects, scheme checks) instead of duplicating it. Not registered.
struct DocumentSource: Provider {
    static let descriptor = ProviderDescriptor(
        name: "browse", displayName: "Browse", summary: "One JSON document fetched by URL.", docsURL: "",
        defaultBaseURL: nil, auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "get", summary: "Fetch the document at the URL.", itemKind: "document")],
        examples: [])

    func operation(named name: String, plan: Void) -> any APIOperation<Void> { Get() }

    /// The document at the base URL.
    struct Get: APIOperation {
        func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.query.baseURL, headers: ["Accept": "application/json"])
        }

        func normalize(_ page: HTTPResponse, _ call: Call<Void>) throws -> Page { Page(items: []) }
    }

    func error(for response: HTTPResponse, call: Call<Void>) -> AggregateError {
        let what = response.looksLikeHTML ? "an HTML page" : response.body.isEmpty ? "an empty body" : "\"\(response.excerpt(limit: 80))\""
        let kind = response.status == 410 ? .notFound : APIErrorKit.kind(forStatus: response.status)
        return AggregateError(kind, "\(call.query.baseURL.redactedForDisplay) answered HTTP \(response.status) with \(what)", httpStatus: response.status)
    }


}

extension URL {
    /// The URL as it may be shown in messages: a password in it replaced by `***`, and the values of credential
    /// query parameters (`key`, `token`, ...) masked by ``Redactor``.
    public var redactedForDisplay: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return Redactor().redact(absoluteString) }
        if components.password != nil { components.password = Redactor.mask }
        return Redactor().redact(components.string ?? absoluteString)
    }
}
