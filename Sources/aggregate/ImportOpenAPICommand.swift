import AggregateCore
import Foundation

/// `aggregate import openapi`: routing target only until the importer lands in this file.
enum ImportOpenAPICommand: CLICommand {
    static let command = HelpText.Command(
        name: "openapi", summary: "Make a definition folder from a openapi source.", usage: "aggregate import openapi",
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")])

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        Diagnostics.report(AggregateError(.usage, "import openapi: not available in this build"), console: context.console)
    }
}
