import AggregateCore
import Foundation

/// `aggregate sandbox`: serves every provider's emulated API on a loopback port.
enum SandboxCommand {
    static let command = HelpText.Command(
        name: "sandbox", summary: "Run the local API emulator for every provider.",
        usage: "aggregate sandbox [--port 8787] [--host 127.0.0.1] [--latency MS] [--fail-rate P] [--fault SPEC]...")

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        Diagnostics.report(AggregateError(.usage, "the sandbox server is not wired yet"), console: context.console)
    }
}
