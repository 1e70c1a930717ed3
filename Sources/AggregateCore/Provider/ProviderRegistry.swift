import AggregateText
import Foundation

/// An immutable list of providers with lookup by name. Build it once and pass it to what needs it.
///
/// Providers are values (``RunnableProvider``): Swift providers and definitions read at run time alike. Each has
/// an origin (``ProviderOrigin``); a definition that could not be read is kept as a ``BrokenProvider``, which fails
/// only when it is used.
public struct ProviderRegistry: Sendable {
    /// The providers, in the order given, each by its name; a provider value is one made already.
    private let entries: [DeferredProvider]
    /// Where each provider comes from, by name.
    public let origins: [String: ProviderOrigin]
    /// The broken definitions known when the registry was made.
    private let knownBroken: [BrokenProvider]

    /// Creates a registry of Swift providers.
    /// - Throws: ``AggregateError`` of kind `config` when two providers share a name or a name is not lower-case.
    public init(_ providers: [any Provider.Type]) throws {
        try self.init(
            providers: providers.map { $0.init() },
            origins: Dictionary(providers.map { ($0.descriptor.name, .builtInSwift) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Creates a registry of provider values with their origins (default: built-in Swift) and broken definitions.
    /// (Their emulators, where an app links them, are kept apart: `SandboxCatalog` in `AggregateSandboxKit`.)
    /// - Throws: as ``init(_:)``.
    public init(providers: [any RunnableProvider], origins: [String: ProviderOrigin] = [:], broken: [BrokenProvider] = []) throws {
        try self.init(entries: providers.map(DeferredProvider.init), origins: origins, broken: broken)
    }

    /// Creates a registry of `entries`, in order, with their origins and broken definitions; a deferred provider is
    /// made only when a run asks for it by name, or for every provider.
    /// - Throws: as ``init(_:)``.
    public init(entries: [DeferredProvider], origins: [String: ProviderOrigin] = [:], broken: [BrokenProvider] = []) throws {
        var seen: Set<String> = []
        for name in entries.map(\.name) {
            guard !name.isEmpty, name == name.lowercased(), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
            else {
                throw AggregateError(.config, "provider name '\(name)' must be lower-case letters, digits or '-'")
            }
            guard seen.insert(name).inserted else {
                throw AggregateError(.config, "two providers are named '\(name)'")
            }
        }
        self.entries = entries
        self.origins = origins
        self.knownBroken = broken
    }

    /// The providers, in the order given (this makes every deferred one).
    public var providers: [any RunnableProvider] { entries.compactMap { try? $0.provider.get() } }

    /// The definitions that could not be read, in the order found (this makes every deferred provider, as one
    /// that cannot be made is broken).
    public var broken: [BrokenProvider] { entries.compactMap { brokenProvider(made: $0) } + knownBroken }

    /// The providers' names, in order (without making any deferred provider).
    public var names: [String] { entries.map(\.name) }

    /// The provider named `name`, or `nil` (only a deferred provider of that name is made).
    public func provider(named name: String) -> (any RunnableProvider)? {
        entries.first { $0.name == name }.flatMap { try? $0.provider.get() }
    }

    /// Whether the provider named `name` has been made (what tests check a run made).
    package func hasMade(_ name: String) -> Bool { entries.first { $0.name == name }?.isMade ?? false }

    /// Where the provider named `name` comes from (built-in Swift unless said otherwise).
    public func origin(of name: String) -> ProviderOrigin { origins[name] ?? .builtInSwift }

    /// The broken definition named `name` (one that could not be read, or that would shadow another provider).
    public func brokenProvider(named name: String) -> BrokenProvider? {
        entries.first { $0.name == name }.flatMap(brokenProvider(made:)) ?? knownBroken.first { $0.name == name }
    }

    /// `provider` as a broken definition, when it cannot be made.
    private func brokenProvider(made provider: DeferredProvider) -> BrokenProvider? {
        guard case .failure(let error) = provider.provider else { return nil }
        return BrokenProvider(name: provider.name, origin: origin(of: provider.name), error: error)
    }

    /// The provider named `name`.
    /// - Throws: the broken definition's `config` error (exit 78) when that is what the name is, else a `usage`
    ///   error that lists the valid names (and suggests the closest, ``DidYouMean``).
    public func require(_ name: String) throws(AggregateError) -> any RunnableProvider {
        // A broken definition comes first: one that shadows a built-in name must say so rather than be ignored.
        if let broken = brokenProvider(named: name) { throw broken.error }
        guard let provider = provider(named: name) else {
            throw AggregateError(.usage, "unknown provider '\(name)'\(DidYouMean.suffix(for: name, among: names, otherwise: ".")) Valid providers: \(names.joined(separator: ", ")).")
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

/// A provider that is made on first use, under a name known beforehand: a run of one provider makes no other (nor
/// reads its definition). It is made once; when it cannot be, the registry lists it as broken with the error.
public final class DeferredProvider: Sendable {
    /// The name it will have.
    public let name: String
    private let made: Once<Result<any RunnableProvider, AggregateError>>

    /// `provider`, made already.
    public convenience init(_ provider: any RunnableProvider) { self.init(name: provider.descriptor.name) { .success(provider) } }

    /// A provider named `name`, made by `make` on first use.
    public init(name: String, make: @escaping @Sendable () -> Result<any RunnableProvider, AggregateError>) {
        self.name = name
        made = Once(make)
    }

    /// The provider, or why it cannot be made.
    public var provider: Result<any RunnableProvider, AggregateError> { made.value }

    /// Whether the provider has been made (for tests that check what a run made).
    public var isMade: Bool { made.isMade }
}
