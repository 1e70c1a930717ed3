public import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// Routes sandbox requests to providers: `/<name>/...` goes to that provider with the prefix removed;
/// any other path goes to the provider that owns it (``SandboxProviding/sandboxPaths``), or to none.
public struct SandboxRouter: Sendable {
    /// The providers and emulators served.
    public let catalog: SandboxCatalog
    /// Answers conditional GETs (validators, `304`), for as long as the router lives.
    private let conditional = SandboxConditional()

    /// Creates a router.
    public init(catalog: SandboxCatalog) { self.catalog = catalog }

    /// Which provider serves `path` (none or one), and the path as that provider sees it.
    public func route(_ path: String) -> [(provider: any SandboxServing, path: String, mount: String)] {
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        if let first = segments.first, let provider = catalog.sandbox(named: String(first)) {
            let rest = segments.count > 1 ? "/" + segments[1] : "/"
            return [(provider, rest, "/" + first)]
        }
        return catalog.sandboxOwner(of: path).map { [($0, path, "")] } ?? []
    }

    /// The response to `request`: the provider's answer, or a 404 naming the paths that exist.
    /// - Parameter serverURL: the root URL clients used (the provider's base URL is derived from it).
    /// - Parameter requestCounter: counts requests for routes that enforce a rate limit (the server's), or `nil`.
    public func respond(
        to request: SandboxRequest, serverURL: URL, now: Date = Date(), store: SandboxStore?, settings: [String: String] = [:],
        requestCounter: SandboxRequestCounter? = nil
    ) -> (provider: String?, response: SandboxResponse) {
        for candidate in route(request.path) {
            var routed = request
            routed.path = candidate.path
            let context = SandboxContext(
                baseURL: candidate.mount.isEmpty ? serverURL : serverURL.appendingEndpoint(candidate.mount),
                now: now, store: store, settings: settings, requestCounter: requestCounter)
            if let response = candidate.provider.sandboxResponse(for: routed, context: context) {
                return (candidate.provider.providerName, conditional.apply(candidate.provider.sandboxCaching(for: routed), request: request, response: response, now: now))
            }
        }
        let body: JSONValue = [
            "error": "not found",
            "message": .string("The sandbox has no route for \(request.method) \(request.path). Providers: \(catalog.sandboxes.map { $0.providerName }.joined(separator: ", ")); mount one at /<name>/..."),
        ]
        return (nil, .json(body, status: 404))
    }
}

/// A transport that answers from a provider's sandbox routes in-process: what `--offline` uses.
/// No socket, no network, no credentials from the user's environment.
public struct SandboxTransport: OfflineTransport {
    private let router: SandboxRouter
    private let catalog: SandboxCatalog
    private let store: SandboxStore?
    private let settings: [String: String]

    /// Creates a transport over `catalog`'s routes, with persistent state in `store` (for providers that write).
    public init(catalog: SandboxCatalog, store: SandboxStore? = nil, settings: [String: String] = [:]) {
        self.router = SandboxRouter(catalog: catalog)
        self.catalog = catalog
        self.store = store
        self.settings = settings
    }

    public func standInEnvironment(for provider: String) -> [String: String] {
        catalog.sandbox(named: provider)?.sandboxEnvironment ?? [:]
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let sandboxRequest = SandboxRequest(method: request.method, url: request.url, headers: request.headers, body: request.body ?? Data())
        var root = URLComponents(url: request.url, resolvingAgainstBaseURL: false) ?? URLComponents()
        root.path = ""
        root.query = nil
        let serverURL = root.url ?? request.url
        let (router, store, settings) = (self.router, self.store, self.settings)
        let respond = { @Sendable in router.respond(to: sandboxRequest, serverURL: serverURL, store: store, settings: settings) }
        // Writes go through the store's file lock (`flock`), which may wait for another process: never on the pool.
        let writes = store != nil && !["GET", "HEAD"].contains(request.method)
        let answer = writes ? await BlockingWork.run(respond) : respond()
        guard answer.response.body.count <= request.maxResponseBytes else {
            throw AggregateError(.tooLarge, "the response is larger than the \(ByteCount.describe(request.maxResponseBytes)) size cap")
        }
        return HTTPResponse(status: answer.response.status, headers: answer.response.headers, body: answer.response.body, url: request.url)
    }
}

