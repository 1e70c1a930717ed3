import AggregateCore
import AggregateProviders
import AggregateSandbox
import Foundation

// Broken pipes (e.g. `aggregate ... | head`) should end the process quietly, not kill it with a signal trace.
signal(SIGPIPE, SIG_IGN)

let environment = ProcessInfo.processInfo.environment
let registry: ProviderRegistry
do {
    registry = try ProviderRegistry(allProviders, sandboxes: allSandboxes)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(ExitCode.failure.rawValue)
}
let context = Context(
    registry: registry, environment: environment, console: .standard,
    terminal: .current(environment: environment),
    dataDirectory: Context.defaultDataDirectory(environment: environment))
let code = await App(context: context).run(Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)
