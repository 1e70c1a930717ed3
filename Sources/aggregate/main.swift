// aggregate: the executable — argument parsing, commands, the terminal and exit codes; wiring only. It reaches
// providers through the umbrellas (their own commands too, as LocalCommand), never a provider target by name.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateRendering, AggregateDefinitions, AggregateSandboxKit, AggregateSandbox, AggregateProviders, AggregateScaffold, AggregateSQL, AggregateImport, AggregateYAML, AggregateServe, AggregateRedis, AggregateCurl, AggregateURLSession, Foundation, Dispatch, Glibc, Darwin

import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation

// Broken pipes (e.g. `aggregate ... | head`) end the process quietly with 141 (StandardStreams), not by a signal.
signal(SIGPIPE, SIG_IGN)
// Before any file is opened: a closed stdin, stdout or stderr is reopened on /dev/null and remembered.
_ = StandardStreams.closedAtStart

// `--version` answers before anything is built: no registry, descriptors, environment or terminal.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--version" {
    StandardStreams.writeOutput("\(AggregateVersion.current)\n")
    exit(0)
}

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
    StandardStreams.writeError("Error: \(error)\n")
    exit(ExitCode.failure.rawValue)
}
let context = Context(
    catalog: catalog, environment: environment, console: .standard,
    terminal: .current(environment: environment),
    dataDirectory: Context.defaultDataDirectory(environment: environment),
    cacheDirectory: CacheLocation.root(environment: environment))
let code = await App(context: context).run(arguments)
exit(code.rawValue)
