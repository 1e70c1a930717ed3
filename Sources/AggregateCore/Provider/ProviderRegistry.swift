import AggregateText
import Foundation

/// An immutable list of providers with lookup by name. Build it once and pass it to what needs it.
///
/// Providers are values (``RunnableProvider``): Swift providers and definitions read at run time alike. Each has
/// an origin (``ProviderOrigin``); a definition that could not be read is kept as a ``BrokenProvider``, which fails
/// only when it is used.
public struct ProviderRegistry: Sendable {
    /// The providers, in the order given.
    public let providers: [any RunnableProvider]
    /// Where each provider comes from, by name.
    public let origins: [String: ProviderOrigin]
    /// The definitions that could not be read, in the order found.
    public let broken: [BrokenProvider]

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
        self.providers = providers
        self.origins = origins
        self.broken = broken
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
