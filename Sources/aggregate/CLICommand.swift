import AggregateCore


/// One `aggregate <name>` command: its help and how it runs. `App` lists the command types once and derives both
/// its help and its dispatch from the list.
protocol CLICommand {
    /// The name, summary, usage and options, for help.
    static var command: HelpText.Command { get }
    /// Runs the command with the arguments after its name.
    static func run(_ arguments: [String], context: Context) async -> ExitCode
}

extension HelpText.Command {
    /// Parses a command's arguments against its options. For `--help` it prints the command's help and returns
    /// `nil`, so every command answers `--help` the same way (exit 0).
    func parse(_ arguments: [String], context: Context) throws(AggregateError) -> ParsedArguments? {
        let parsed = try ArgumentParser(options: options).parse(arguments)
        guard !parsed.has("help") else {
            context.console.out(HelpText.command(self, width: context.terminal.width))
            return nil
        }
        return parsed
    }
}

extension CompareCommand: CLICommand {}
extension BrowseCommand: CLICommand {}
extension SandboxCommand: CLICommand {}
extension ConfigCommand: CLICommand {}
extension AuthCommand: CLICommand {}
extension CompletionsCommand: CLICommand {}
extension NormalizeCommand: CLICommand {}

/// `aggregate providers`.
enum ProvidersCommand: CLICommand {
    static var command: HelpText.Command { InfoCommands.providersCommand }
    static func run(_ arguments: [String], context: Context) async -> ExitCode { InfoCommands.providers(arguments, context: context) }
}

/// `aggregate describe <provider>`.
enum DescribeCommand: CLICommand {
    static var command: HelpText.Command { InfoCommands.describeCommand }
    static func run(_ arguments: [String], context: Context) async -> ExitCode { await InfoCommands.describe(arguments, context: context) }
}
