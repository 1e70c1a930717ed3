import AggregateCore
import AggregateProviders
import AggregateSandbox
import Foundation

// `--version` answers before anything is built: no registry, descriptors, environment or terminal.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--version" {
    FileHandle.standardOutput.write(Data("\(AggregateVersion.current)\n".utf8))
    exit(0)
}

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
    dataDirectory: Context.defaultDataDirectory(environment: environment),
    cacheDirectory: CacheLocation.root(environment: environment))
let code = await App(context: context).run(Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)
