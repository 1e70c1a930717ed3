public import AggregateCore
import AggregateProviders
public import AggregateSandbox
public import AggregateSandboxKit

/// The catalog the `aggregate` binary builds, for tests: every Swift provider and every compiled-in definition
/// (GitHub, Hacker News, ...), with their emulators; no run-time definition files.
public enum TestRegistry {
    /// The providers and their emulators.
    public static func builtIn(sandboxes: [any SandboxProviding.Type] = allSandboxes) throws -> SandboxCatalog {
        try SandboxCatalog.withDefinitions(
            swift: allProviders, sandboxes: sandboxes, builtIn: builtInDefinitions, samples: builtInDefinitionSamples, files: [])
    }

    /// The providers alone, as an app that links no emulator has them.
    public static func providers() throws -> ProviderRegistry { try builtIn(sandboxes: []).registry }
}
