public import AggregateCore
import AggregateProviders
public import AggregateSandbox

/// The registry the `aggregate` binary builds, for tests: every Swift provider and every compiled-in definition
/// (GitHub, Hacker News, ...), with their emulators; no run-time definition files.
public enum TestRegistry {
    public static func builtIn(sandboxes: [any SandboxProviding.Type] = allSandboxes) throws -> ProviderRegistry {
        try ProviderRegistry.withDefinitions(
            swift: allProviders, sandboxes: sandboxes, builtIn: builtInDefinitions, samples: builtInDefinitionSamples, files: [])
    }
}
