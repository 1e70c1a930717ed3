import AggregateCore
import Foundation

/// The one way errors reach the user: one line on stderr, plus usage for usage errors, and the exit code.
enum Diagnostics {
    /// `Error: meetup: the API key was rejected (HTTP 401). Check MEETUP_API_KEY.`
    static func line(for error: AggregateError) -> String { error.diagnosticLine }

    /// Prints `error` (with a usage line for usage errors) and returns its exit code.
    @discardableResult
    static func report(_ error: AggregateError, console: Console, usage: String? = nil, registry: ProviderRegistry? = nil) -> ExitCode {
        console.err(line(for: error))
        if error.kind == .usage {
            let usageLine = usage ?? registry.flatMap { registry in
                error.provider.flatMap(registry.provider(named:)).map { HelpText.usageLine($0.descriptor) }
            } ?? "aggregate <command> [arguments] [options]"
            console.err("Usage: \(usageLine)\n  See 'aggregate --help' for more information.\n")
        }
        return ExitCode(for: error)
    }
}
