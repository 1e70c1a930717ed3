import AggregateCore
import AggregateHTTP
import AggregateText
import Foundation

/// The command-line tool: dispatches `aggregate <command|provider> ...` and returns the exit code.
struct App: Sendable {
    var context: Context

    /// The built-in commands, in the order help lists them: the one list help and dispatch are built from.
    /// Computed, not stored: a stored array of metatypes is not `Sendable`, and building it is free.
    static var commandTypes: [any CLICommand.Type] { [
        ProvidersCommand.self, DescribeCommand.self, CompareCommand.self, BrowseCommand.self, SandboxCommand.self,
        SQLCommand.self, ConfigCommand.self, AuthCommand.self, CompletionsCommand.self, NormalizeCommand.self, CacheCommand.self, LimitsCommand.self,
        NewProviderCommand.self, CheckCommand.self, ImportCommand.self, GetCommand.self, ServeCommand.self,
    ] }

    /// The built-in commands' help, and `help` itself.
    static var commands: [HelpText.Command] {
        commandTypes.map { $0.command }
            + [HelpText.Command(name: "help", summary: "Show help for a command or provider.", usage: "aggregate help [<command>|<provider>]")]
    }

    func run(_ arguments: [String]) async -> ExitCode {
        let console = context.console
        guard let first = arguments.first else {
            console.out(HelpText.main(registry: context.registry, commands: Self.commands, width: context.terminal.width))
            return .success
        }
        let rest = Array(arguments.dropFirst())
        if first == "--server" || first.hasPrefix("--server=") {
            return await throughServer(first == "--server" ? rest.first : String(first.dropFirst("--server=".count)), rest: first == "--server" ? Array(rest.dropFirst()) : rest)
        }
        if let command = Self.commandTypes.first(where: { $0.command.name == first }) {
            return await command.run(rest, context: context)
        }
        // Commands that live under a provider's name beside its operations, e.g. `aggregate twitter archive`.
        if let provider = context.registry.provider(named: first), let command = provider.localCommands.first(where: { $0.name == rest.first }) {
            return await LocalCommands.run(command, of: provider, arguments: Array(rest.dropFirst()), context: context)
        }
        switch first {
        case "--help", "-h":
            console.out(HelpText.main(registry: context.registry, commands: Self.commands, width: context.terminal.width))
            return .success
        case "--version":
            console.out("\(AggregateVersion.current)\n")
            return .success
        case "help":
            return help(rest)
        default:
            if first.hasPrefix("-") {
                let suggestion = DidYouMean.suffix(for: String(first.drop { $0 == "-" }), among: Self.topLevelOptions, prefix: "--")
                return Diagnostics.report(AggregateError(.usage, "unknown option '\(first)'\(suggestion)"), console: console)
            }
            guard context.registry.provider(named: first) != nil || context.registry.brokenProvider(named: first) != nil else {
                if let broken = brokenDefinitionFile(for: first) { return Diagnostics.report(broken, console: console) }
                let commands = Self.commands.map(\.name).joined(separator: ", ")
                return Diagnostics.report(
                    AggregateError(
                        .usage,
                        "unknown provider or command '\(first)'\(topicSuggestion(first)) Valid providers: \(context.registry.names.joined(separator: ", ")). Commands: \(commands)."),
                    console: console)
            }
            return await ProviderCommand.run(arguments, context: context)
        }
    }

    /// For a name that is no provider: the error of a definition file that could not be read, whose provider it may
    /// be (its name is unknown when its JSON is broken), naming the file rather than saying "unknown provider".
    func brokenDefinitionFile(for name: String) -> AggregateError? {
        let files = context.registry.broken.filter { if case .file = $0.origin { return true } else { return false } }
        guard var error = files.first?.error else { return nil }
        let others = files.count > 1 ? "; \(files.count - 1) more definition file\(files.count > 2 ? "s are" : " is") broken ('aggregate providers' lists them)" : ""
        error.message += " ('\(name)' is no provider; it may be this definition, which cannot be read\(others))"
        error.provider = nil
        return error
    }

    /// The options `aggregate` itself takes before any command (`--provider-file` is read in main.swift).
    static let topLevelOptions = ["version", "help", "provider-file", "server"]

    /// `aggregate --server URL <provider> ...`: the provider command, run through that `aggregate serve`.
    private func throughServer(_ server: String?, rest: [String]) async -> ExitCode {
        guard let server, !server.isEmpty, !server.hasPrefix("-") else {
            return Diagnostics.report(
                AggregateError(.usage, "--server needs the URL of an aggregate serve, e.g. --server http://127.0.0.1:8080"), console: context.console,
                usage: ServerClient.usage)
        }
        guard let name = rest.first, context.registry.provider(named: name) != nil else {
            return Diagnostics.report(
                AggregateError(.usage, "--server runs provider commands through the server; '\(rest.first ?? "")' is no provider"), console: context.console,
                usage: ServerClient.usage)
        }
        var context = context
        context.server = server
        return await ProviderCommand.run(rest, context: context)
    }

    /// `; did you mean 'tmdb'?` when `word` is close to a provider's or a command's name, else the `.` that ends
    /// the sentence.
    private func topicSuggestion(_ word: String) -> String {
        DidYouMean.suffix(for: word, among: context.registry.names + Self.commands.map(\.name), otherwise: ".")
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
            AggregateError(.usage, "no help topic '\(topic)'\(topicSuggestion(topic)) Valid providers: \(context.registry.names.joined(separator: ", ")). Commands: \(Self.commands.map(\.name).joined(separator: ", "))."),
            console: context.console)
    }
}
