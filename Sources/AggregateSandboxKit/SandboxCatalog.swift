public import AggregateCore


/// A registry's providers with the emulators that answer for them: what `aggregate sandbox`, `--offline` and the
/// tests serve. The registry itself knows nothing of emulators, so an app that only fetches links none of them.
public struct SandboxCatalog: Sendable {
    /// The providers.
    public let registry: ProviderRegistry
    /// The emulators, at most one per provider of ``registry``.
    public let sandboxes: [any SandboxServing]

    /// Checks `sandboxes` against `registry`.
    /// - Throws: ``AggregateError`` of kind `config` when an emulator has no provider, two emulate the same one, or
    ///   two claim overlapping root paths (``SandboxProviding/sandboxPaths``).
    public init(_ registry: ProviderRegistry, sandboxes: [any SandboxServing]) throws {
        let names = Set(registry.names)
        for sandbox in sandboxes where !names.contains(sandbox.providerName) {
            throw AggregateError(.config, "the sandbox for '\(sandbox.providerName)' has no provider of that name")
        }
        guard Set(sandboxes.map { $0.providerName }).count == sandboxes.count else {
            throw AggregateError(.config, "two sandboxes emulate the same provider")
        }
        try Self.checkSandboxPaths(sandboxes)
        self.registry = registry
        self.sandboxes = sandboxes
    }

    /// A catalog of Swift providers and their emulator types.
    /// - Throws: as ``ProviderRegistry/init(_:)`` and ``init(_:sandboxes:)``.
    public init(_ providers: [any Provider.Type], sandboxes: [any SandboxProviding.Type] = []) throws {
        try self.init(try ProviderRegistry(providers), sandboxes: sandboxes.map(SandboxOfType.init))
    }

    /// The emulator of the provider named `name`, when there is one.
    public func sandbox(named name: String) -> (any SandboxServing)? {
        sandboxes.first { $0.providerName == name }
    }

    /// The emulator that owns `path` at the sandbox's root (at most one: the catalog refuses overlaps).
    public func sandboxOwner(of path: String) -> (any SandboxServing)? {
        sandboxes.first { sandbox in sandbox.sandboxPaths.contains { $0.matches(path) } }
    }

    /// Throws when two emulators claim a root path that one request could match.
    static func checkSandboxPaths(_ sandboxes: [any SandboxServing]) throws {
        var claimed: [(owner: String, pattern: PathPattern)] = []
        for sandbox in sandboxes {
            let name = sandbox.providerName
            for pattern in sandbox.sandboxPaths {
                if let clash = claimed.first(where: { $0.owner != name && $0.pattern.overlaps(pattern) }) {
                    throw AggregateError(
                        .config,
                        "the sandbox paths \(clash.owner) \(clash.pattern) and \(name) \(pattern) overlap; make one of them more specific")
                }
                claimed.append((name, pattern))
            }
        }
    }
}
