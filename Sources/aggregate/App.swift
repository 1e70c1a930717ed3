import AggregateCore
import AggregateProviders
import Foundation

/// The command-line tool: dispatches `aggregate <command|provider> ...` and returns the exit code.
struct App: Sendable {
    var context: Context

    /// The built-in commands, for help and dispatch.
    static var commands: [HelpText.Command] {
        [
            InfoCommands.providersCommand, InfoCommands.describeCommand, CompareCommand.command, BrowseCommand.command,
            SandboxCommand.command, ConfigCommand.command, AuthCommand.command, CompletionsCommand.command,
            NormalizeCommand.command,
            HelpText.Command(name: "help", summary: "Show help for a command or provider.", usage: "aggregate help [<command>|<provider>]"),
        ]
    }

    /// Commands that live under a provider's name beside its operations, e.g. `aggregate twitter archive`.
    static let providerCommands: [String: [HelpText.Command]] = ["twitter": [TwitterArchiveCommand.command]]

    func run(_ arguments: [String]) async -> ExitCode {
        let console = context.console
        guard let first = arguments.first else {
            console.out(HelpText.main(registry: context.registry, commands: Self.commands, width: context.terminal.width))
            return .success
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h":
            console.out(HelpText.main(registry: context.registry, commands: Self.commands, width: context.terminal.width))
            return .success
        case "--version":
            console.out("\(AggregateVersion.current)\n")
            return .success
        case "help":
            return help(rest)
        case "providers":
            return InfoCommands.providers(rest, context: context)
        case "describe":
            return InfoCommands.describe(rest, context: context)
        case "compare":
            return await CompareCommand.run(rest, context: context)
        case "browse":
            return await BrowseCommand.run(rest, context: context)
        case "sandbox":
            return await SandboxCommand.run(rest, context: context)
        case "config":
            return ConfigCommand.run(rest, context: context)
        case "auth":
            return await AuthCommand.run(rest, context: context)
        case "completions":
            return CompletionsCommand.run(rest, context: context)
        case "normalize":
            return await NormalizeCommand.run(rest, context: context)
        case "twitter" where rest.first == "archive":
            return await TwitterArchiveCommand.run(Array(rest.dropFirst()), context: context)
        default:
            if first.hasPrefix("-") {
                return Diagnostics.report(AggregateError(.usage, "unknown option '\(first)'"), console: console)
            }
            guard context.registry.provider(named: first) != nil else {
                let commands = Self.commands.map(\.name).joined(separator: ", ")
                return Diagnostics.report(
                    AggregateError(.usage, "unknown provider or command '\(first)'. Valid providers: \(context.registry.names.joined(separator: ", ")). Commands: \(commands)."),
                    console: console)
            }
            return await ProviderCommand.run(arguments, context: context)
        }
    }

    private func help(_ arguments: [String]) -> ExitCode {
        let width = context.terminal.width
        guard let topic = arguments.first else {
            context.console.out(HelpText.main(registry: context.registry, commands: Self.commands, width: width))
            return .success
        }
        if let command = Self.commands.first(where: { $0.name == topic }) {
            context.console.out(HelpText.command(command, width: width))
            return .success
        }
        if let provider = context.registry.provider(named: topic) {
            context.console.out(HelpText.provider(provider.descriptor, width: width))
            return .success
        }
        return Diagnostics.report(
            AggregateError(.usage, "no help topic '\(topic)'. Valid providers: \(context.registry.names.joined(separator: ", ")). Commands: \(Self.commands.map(\.name).joined(separator: ", "))."),
            console: context.console)
    }
}
