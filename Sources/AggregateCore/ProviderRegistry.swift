public import Foundation

/// An immutable list of providers with lookup by name. Build it once and pass it to what needs it.
///
/// Providers are values (``RunnableProvider``): Swift providers and definitions read at run time alike. Each has
/// an origin (``ProviderOrigin``); a definition that could not be read is kept as a ``BrokenProvider``, which fails
/// only when it is used.
public struct ProviderRegistry: Sendable {
    /// The providers, in the order given.
    public let providers: [any RunnableProvider]
    /// The emulators served by the sandbox and `--offline` (none for an app that only fetches).
    public let sandboxes: [any SandboxServing]
    /// Where each provider comes from, by name.
    public let origins: [String: ProviderOrigin]
    /// The definitions that could not be read, in the order found.
    public let broken: [BrokenProvider]

    /// Creates a registry of Swift providers.
    /// - Throws: ``AggregateError`` of kind `config` when two providers share a name, a name is not lower-case,
    ///   an emulator has no provider, or two emulators claim overlapping root paths (``SandboxProviding/sandboxPaths``).
    public init(_ providers: [any Provider.Type], sandboxes: [any SandboxProviding.Type] = []) throws {
        try self.init(
            providers: providers.map { $0.init() }, sandboxes: sandboxes.map(SandboxOfType.init),
            origins: Dictionary(providers.map { ($0.descriptor.name, .builtInSwift) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Creates a registry of provider values with their emulators, origins (default: built-in Swift) and broken
    /// definitions.
    /// - Throws: as ``init(_:sandboxes:)``.
    public init(
        providers: [any RunnableProvider], sandboxes: [any SandboxServing] = [], origins: [String: ProviderOrigin] = [:],
        broken: [BrokenProvider] = []
    ) throws {
        var seen: Set<String> = []
        for provider in providers {
            let name = provider.descriptor.name
            guard !name.isEmpty, name == name.lowercased(), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
            else {
                throw AggregateError(.config, "provider name '\(name)' must be lower-case letters, digits or '-'")
            }
            guard seen.insert(name).inserted else {
                throw AggregateError(.config, "two providers are named '\(name)'")
            }
        }
        for sandbox in sandboxes where !seen.contains(sandbox.providerName) {
            throw AggregateError(.config, "the sandbox for '\(sandbox.providerName)' has no provider of that name")
        }
        guard Set(sandboxes.map { $0.providerName }).count == sandboxes.count else {
            throw AggregateError(.config, "two sandboxes emulate the same provider")
        }
        try Self.checkSandboxPaths(sandboxes)
        self.providers = providers
        self.sandboxes = sandboxes
        self.origins = origins
        self.broken = broken
    }

    /// The emulator of the provider named `name`, when the registry serves one.
    public func sandbox(named name: String) -> (any SandboxServing)? {
        sandboxes.first { $0.providerName == name }
    }

    /// The providers' names, in order.
    public var names: [String] { providers.map { $0.descriptor.name } }

    /// The provider named `name`, or `nil`.
    public func provider(named name: String) -> (any RunnableProvider)? {
        providers.first { $0.descriptor.name == name }
    }

    /// Where the provider named `name` comes from (built-in Swift unless said otherwise).
    public func origin(of name: String) -> ProviderOrigin { origins[name] ?? .builtInSwift }

    /// The broken definition named `name` (one that could not be read, or that would shadow another provider).
    public func brokenProvider(named name: String) -> BrokenProvider? { broken.first { $0.name == name } }

    /// The provider named `name`.
    /// - Throws: the broken definition's `config` error (exit 78) when that is what the name is, else a `usage`
    ///   error that lists the valid names.
    public func require(_ name: String) throws(AggregateError) -> any RunnableProvider {
        // A broken definition comes first: one that shadows a built-in name must say so rather than be ignored.
        if let broken = brokenProvider(named: name) { throw broken.error }
        guard let provider = provider(named: name) else {
            throw AggregateError(.usage, "unknown provider '\(name)'. Valid providers: \(names.joined(separator: ", ")).")
        }
        return provider
    }
}

/// Where a provider comes from, as `aggregate providers` shows it.
public enum ProviderOrigin: Sendable, Equatable, CustomStringConvertible {
    /// A Swift target in `Providers/<Name>`.
    case builtInSwift
    /// `Providers/<Name>/provider.json`, compiled in.
    case builtInDefinition
    /// A definition read at run time from this file.
    case file(String)

    public var description: String {
        switch self {
        case .builtInSwift: return "built-in Swift"
        case .builtInDefinition: return "built-in definition"
        case .file(let path): return path
        }
    }
}

/// A definition that could not be used: its name (the file's stem when the name could not be read), its file
/// and the one-line `config` error a run of it gives.
public struct BrokenProvider: Sendable, Equatable {
    /// The name it would have had.
    public var name: String
    /// Where it comes from.
    public var origin: ProviderOrigin
    /// The error (exit 78) naming the file, the JSON pointer and what is wrong.
    public var error: AggregateError

    /// Creates a broken entry.
    public init(name: String, origin: ProviderOrigin, error: AggregateError) {
        self.name = name
        self.origin = origin
        self.error = error
    }
}

/// Routes sandbox requests to providers: `/<name>/...` goes to that provider with the prefix removed;
/// any other path goes to the provider that owns it (``SandboxProviding/sandboxPaths``), or to none.
public struct SandboxRouter: Sendable {
    /// The providers served.
    public let registry: ProviderRegistry

    /// Creates a router.
    public init(registry: ProviderRegistry) { self.registry = registry }

    /// Which provider serves `path` (none or one), and the path as that provider sees it.
    public func route(_ path: String) -> [(provider: any SandboxServing, path: String, mount: String)] {
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        if let first = segments.first, let provider = registry.sandbox(named: String(first)) {
            let rest = segments.count > 1 ? "/" + segments[1] : "/"
            return [(provider, rest, "/" + first)]
        }
        return registry.sandboxOwner(of: path).map { [($0, path, "")] } ?? []
    }

    /// The response to `request`: the provider's answer, or a 404 naming the paths that exist.
    /// - Parameter serverURL: the root URL clients used (the provider's base URL is derived from it).
    public func respond(to request: SandboxRequest, serverURL: URL, now: Date = Date(), store: SandboxStore?, settings: [String: String] = [:]) -> (provider: String?, response: SandboxResponse) {
        for candidate in route(request.path) {
            var routed = request
            routed.path = candidate.path
            let context = SandboxContext(
                baseURL: candidate.mount.isEmpty ? serverURL : serverURL.appendingEndpoint(candidate.mount),
                now: now, store: store, settings: settings)
            if let response = candidate.provider.sandboxResponse(for: routed, context: context) {
                return (candidate.provider.providerName, response)
            }
        }
        let body: JSONValue = [
            "error": "not found",
            "message": .string("The sandbox has no route for \(request.method) \(request.path). Providers: \(registry.sandboxes.map { $0.providerName }.joined(separator: ", ")); mount one at /<name>/..."),
        ]
        return (nil, .json(body, status: 404))
    }
}

/// A transport that answers from a provider's sandbox routes in-process: what `--offline` uses.
/// No socket, no network, no credentials from the user's environment.
public struct SandboxTransport: HTTPTransport {
    private let router: SandboxRouter
    private let store: SandboxStore?
    private let settings: [String: String]

    /// Creates a transport over `registry`'s routes, with persistent state in `store` (for providers that write).
    public init(registry: ProviderRegistry, store: SandboxStore? = nil, settings: [String: String] = [:]) {
        self.router = SandboxRouter(registry: registry)
        self.store = store
        self.settings = settings
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

/// Byte counts for people.
public enum ByteCount {
    /// e.g. `32 MiB`, `1.5 KiB`, `512 bytes`.
    public static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        return "\(bytes) bytes"
    }
}
