// aggregate: the executable — argument parsing, commands, the terminal and exit codes; wiring only. It reaches
// providers through the umbrellas (their own commands too, as LocalCommand), never a provider target by name.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateRendering, AggregateDefinitions, AggregateSandboxKit, AggregateSandbox, AggregateProviders, AggregateScaffold, Foundation, Dispatch, Glibc, Darwin

import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation

// `--version` answers before anything is built: no registry, descriptors, environment or terminal.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--version" {
    FileHandle.standardOutput.write(Data("\(AggregateVersion.current)\n".utf8))
    exit(0)
}

// Broken pipes (e.g. `aggregate ... | head`) should end the process quietly, not kill it with a signal trace.
signal(SIGPIPE, SIG_IGN)

let environment = ProcessInfo.processInfo.environment
// `--provider-file FILE` changes which providers exist, so it is read before the registry is built.
let (arguments, providerFiles): ([String], [String])
do {
    (arguments, providerFiles) = try DefinitionCatalog.extractFileOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    exit(Diagnostics.report(error, console: .standard).rawValue)
}
let catalog: SandboxCatalog
do {
    catalog = try SandboxCatalog.withDefinitions(
        swift: allProviders, sandboxes: allSandboxes, builtIn: builtInDefinitions, samples: builtInDefinitionSamples,
        files: DefinitionCatalog.runTimeFiles(environment: environment, explicit: providerFiles))
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(ExitCode.failure.rawValue)
}
let context = Context(
    catalog: catalog, environment: environment, console: .standard,
    terminal: .current(environment: environment),
    dataDirectory: Context.defaultDataDirectory(environment: environment),
    cacheDirectory: CacheLocation.root(environment: environment))
let code = await App(context: context).run(arguments)
exit(code.rawValue)
