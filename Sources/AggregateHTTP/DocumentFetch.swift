public import AggregateCore
public import Foundation

extension Fetcher {
    /// Fetches one document by URL through the shared fetch chain, for `aggregate browse URL`.
    ///
    /// The request goes through the same steps as a provider's pages (``FetchChain/standard(_:options:statistics:retryDelay:)``):
    /// retries of 429/502/503/504 and connection errors (honouring `Retry-After`), redirects followed by the chain
    /// itself, plain `http://` refused except where allowed, and the timeout and size cap of ``FetchOptions``.
    /// No credentials are sent.
    /// - Returns: the body of the successful response.
    /// - Throws: ``AggregateError`` attributed to `browse` (e.g. `timeout`, `tooLarge`, `http` with the status).
    public func fetchDocument(_ url: URL) async throws(AggregateError) -> Data {
        let name = "browse"
        if options.allowHTTP, PlainHTTP.leavesThisMachine(url) {
            options.events(FetchEvent(provider: name, kind: .warning(PlainHTTP.warning(host: url.host ?? "?"))))
        }
        let request = HTTPRequest(
            method: "GET", url: url, headers: ["Accept": "application/json"], timeout: options.timeout, maxResponseBytes: options.maxResponseBytes)
        do {
            let response = try await FetchChain.standard(transport, options: options).send(request, exchange: FetchExchange(provider: name, origin: url))
            guard response.isSuccess else {
                let what = response.looksLikeHTML ? "an HTML page" : response.body.isEmpty ? "an empty body" : "\"\(response.excerpt(limit: 80))\""
                let kind = response.status == 410 ? .notFound : APIErrorKit.kind(forStatus: response.status)
                throw AggregateError(kind, "\(url.redactedForDisplay) answered HTTP \(response.status) with \(what)", httpStatus: response.status)
            }
            return response.body
        } catch {
            var final: AggregateError
            switch error {
            case let failure as FetchAttemptsError:
                final = failure.error
                if failure.attempts > 1 { final.message += " (after \(failure.attempts) attempts)" }
            case let error as AggregateError: final = error
            case is CancellationError: final = AggregateError(.timeout, "cancelled before it finished")
            default: final = AggregateError(.decoding, "\(error)")
            }
            final.message = Redactor().redact(final.message)
            throw final.attributed(to: name)
        }
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
