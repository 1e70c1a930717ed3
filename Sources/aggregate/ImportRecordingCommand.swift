import AggregateCore
import Foundation

/// `aggregate import recording`: routing target only until the importer lands in this file.
enum ImportRecordingCommand: CLICommand {
    static let command = HelpText.Command(
        name: "recording", summary: "Make a definition folder from a recording source.", usage: "aggregate import recording",
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")])

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        Diagnostics.report(AggregateError(.usage, "import recording: not available in this build"), console: context.console)
    }
}
