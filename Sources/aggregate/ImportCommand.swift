import AggregateCore
import Foundation

/// `aggregate import openapi|recording ...`: makes a provider definition folder from an API's description. Each
/// kind of source is its own command with its own options and help; this one only routes to them.
enum ImportCommand: CLICommand {
    /// The kinds of source, each a command of its own (`aggregate import openapi --help`).
    static var sources: [any CLICommand.Type] { [ImportOpenAPICommand.self, ImportRecordingCommand.self] }

    static let command = HelpText.Command(
        name: "import", summary: "Make a provider definition from an OpenAPI document or a recorded cassette.",
        usage: "aggregate import openapi <file|-> [options] | recording <DIR> [options]",
        arguments: sources.map { ($0.command.name, $0.command.summary) },
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")],
        discussion: """
            Writes a folder with provider.json, the samples its emulator serves (SampleData/) and import-report.txt: \
            one line for each thing mapped, guessed or skipped, with its JSON pointer. Check the result with \
            'aggregate check DIR/provider.json'. See docs/import.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        guard let first = arguments.first, !first.hasPrefix("-") else {
            if arguments.first == "--help" || arguments.first == "-h" {
                context.console.out(HelpText.command(command, width: context.terminal.width))
                return .success
            }
            return Diagnostics.report(AggregateError(.usage, "import: name what to import from: openapi <file|-> or recording <DIR>"), console: context.console, usage: command.usage)
        }
        guard let source = sources.first(where: { $0.command.name == first }) else {
            return Diagnostics.report(AggregateError(.usage, "import: unknown source '\(first)': use openapi or recording"), console: context.console, usage: command.usage)
        }
        return await source.run(Array(arguments.dropFirst()), context: context)
    }
}
