import AggregateCore
import AggregateScaffold
import Foundation

/// `aggregate new-provider <name> [--swift|--definition] [--dir PATH]`: writes a provider that builds and passes its
/// tests as it is, then prints the next steps.
enum NewProviderCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("swift", arity: .flag, help: "A Swift provider in this package: Providers/<Name>/ with its emulator, sample, README and a golden-file test."),
        OptionSpec("definition", arity: .flag, help: "A provider definition (the default): a run-time file with samples, or provider.json in the package when --dir is the package."),
        OptionSpec("dir", valueName: "PATH", help: "Where to write. --swift: the package (default: the current folder). --definition: the package, or any folder for a run-time file (default: the config folder's providers/)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show this help."),
    ]

    static let command = HelpText.Command(
        name: "new-provider", summary: "Start a new provider: a Swift target or a JSON definition, ready to build and test.",
        usage: "aggregate new-provider <name> [--swift|--definition] [--dir <PATH>]",
        arguments: [("<name>", "The provider's command-line name: a lower-case letter, then lower-case letters, digits or single hyphens.")],
        options: options,
        discussion: """
            --swift writes Providers/<Name>/ (client, emulator, SampleData/records.json, README.md), a golden-file test under Tests/AggregateProvidersTests/<Name>/, and adds the provider to the two generated umbrella lists. Run it in a checkout of the package (or pass --dir).

            --definition writes <name>.json and <name>-samples/ in the folder of run-time definitions ($XDG_CONFIG_HOME/aggregate/providers, or --dir), which aggregate reads at start without a rebuild; when --dir is the package it writes Providers/<Name>/provider.json with SampleData/ instead, compiled in by the next build.

            A name that a provider or command already has, or that is not a valid name, is refused (exit 64); nothing is written then. Exit codes: 0 written; 64 usage error; 78 the files cannot be written.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let word = parsed.positionals.first else { throw AggregateError(.usage, "new-provider: missing <name>, e.g. aggregate new-provider bookshelf") }
            if let extra = parsed.positionals.dropFirst().first { throw AggregateError(.usage, "new-provider: unexpected argument '\(extra)'") }
            if parsed.has("swift") && parsed.has("definition") { throw AggregateError(.usage, "new-provider: choose --swift or --definition, not both") }
            let name = try ScaffoldName(validating: word)
            let taken = context.registry.names + App.commands.map(\.name)
            let directory = parsed.value("dir").map { URL(fileURLWithPath: $0) }
            let plan: ScaffoldPlan
            if parsed.has("swift") {
                let root = try ProviderScaffold.packageRoot(directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                try ProviderScaffold.checkUnused(name, taken: taken, providersFolder: root.appendingPathComponent("Providers"))
                plan = try ProviderScaffold.swiftProvider(name, packageRoot: root)
            } else {
                plan = try definitionPlan(name, taken: taken, directory: directory, environment: context.environment)
            }
            try plan.write()
            context.console.out(report(name, plan: plan))
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }

    /// When `--dir` is the package (it holds `Package.swift` and `Providers/`): a compiled-in definition; else a
    /// run-time definition in `--dir` or the config folder's `providers/`.
    static func definitionPlan(
        _ name: ScaffoldName, taken: [String], directory: URL?, environment: [String: String]
    ) throws(AggregateError) -> ScaffoldPlan {
        if let directory, let root = try? ProviderScaffold.packageRoot(directory) {
            try ProviderScaffold.checkUnused(name, taken: taken, providersFolder: root.appendingPathComponent("Providers"))
            return try ProviderScaffold.builtInDefinition(name, packageRoot: root)
        }
        guard let folder = directory ?? ProviderScaffold.runTimeDefinitionFolder(environment: environment) else {
            throw AggregateError(.config, "new-provider: neither XDG_CONFIG_HOME nor HOME is set, so there is no providers folder: pass --dir")
        }
        try ProviderScaffold.checkUnused(name, taken: taken, providersFolder: nil)
        return try ProviderScaffold.runTimeDefinition(name, folder: folder)
    }

    static func report(_ name: ScaffoldName, plan: ScaffoldPlan) -> String {
        var lines = ["Created provider \(name.name):"]
        lines += plan.created.map { "  \(plan.root.appendingPathComponent($0.path).path)" }
        lines += plan.replaced.map { "  \(plan.root.appendingPathComponent($0.path).path) (updated)" }
        lines += ["", "Next steps:"] + plan.nextSteps.map { "  \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
