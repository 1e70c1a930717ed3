import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateRendering
import AggregateSQL
import AggregateSandboxKit
import AggregateText
import Foundation

/// A parsed `aggregate <provider> [operation] [arguments] [options]` command line.
struct ProviderInvocation: Sendable {
    let provider: any RunnableProvider
    let operation: ProviderOperation
    let parameters: JSONObject
    let common: CommonOptions

    var name: String { provider.descriptor.name }

    /// Parses the arguments after `aggregate`: the provider's name first.
    /// - Parameter standardInput: reads standard input, for parameters that take `-` to mean stdin.
    /// - Parameter settings: the config file and environment that fill what the command line leaves unset.
    /// - Parameter outer: the common options of an enclosing command (compare), for what the arguments leave unset.
    static func parse(
        _ arguments: [String], registry: ProviderRegistry, standardInput: ProviderArguments.StandardInputReader = ProviderArguments.noStandardInput, settings: SettingsSources? = nil,
        inheriting outer: CommonOptions? = nil
    ) throws(AggregateError) -> ProviderInvocation {
        let arguments = try ProviderArguments(arguments, registry: registry)
        let (provider, operation, descriptor) = (arguments.provider, arguments.operation, arguments.provider.descriptor)
        let parameters = arguments.parameters
        // A provider option named like a common one (GitHub's `--sort stars|forks|updated`, the API's order) takes
        // the words it declares; any other value keeps the common meaning (`--sort -createdAt` sorts locally).
        let shared = Set(arguments.optionSpecs.map(\.name)).intersection(CommonOptions.specs.map(\.name))
        let specs = CommonOptions.specs.filter { !shared.contains($0.name) } + arguments.optionSpecs
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser(options: specs).parse(arguments.rest)
        } catch {
            throw error.attributed(to: descriptor.name)
        }
        var (providerArguments, commonArguments) = (parsed, parsed)
        for name in shared {
            let parameter = arguments.parameters.first { $0.name == name }
            let declared: (String) -> Bool = { value in
                guard case .choice(let words)? = parameter?.type else { return true }
                return words.contains(value)
            }
            let values = parsed.values[name] ?? []
            providerArguments.values[name] = values.contains(where: declared) ? values.filter(declared) : nil
            commonArguments.values[name] = values.contains { !declared($0) } ? values.filter { !declared($0) } : nil
            commonArguments.flags.remove(name)
        }
        var common: CommonOptions
        do {
            common = try CommonOptions(commonArguments)
            if let outer { try common.inherit(outer) }
        } catch {
            throw error.attributed(to: descriptor.name)
        }
        var layers: [(source: String, settings: ProviderSettings)] = []
        if let settings {
            layers = try settings.layers(for: descriptor.name, profile: common.profile)
            common.applySettings(layers: layers, environment: settings.environment, descriptor: descriptor)
        }
        if common.help {
            return ProviderInvocation(provider: provider, operation: operation, parameters: JSONObject(), common: common)
        }
        // A provider option the config file sets (e.g. `api`) when the command line does not.
        let configuredAPI = parsed.value("api") == nil && parameters.contains { $0.name == "api" && $0.style == .option }
            ? layers.first { $0.settings.api != nil } : nil
        if let layer = configuredAPI, let api = layer.settings.api {
            common.origins.append(SettingOrigin(key: "api", value: api, source: layer.source))
        }
        let values = try arguments.values(from: providerArguments, standardInput: standardInput) { parameter in
            parameter.name == "api" ? configuredAPI?.settings.api : nil
        }
        return ProviderInvocation(provider: provider, operation: operation, parameters: values, common: common)
    }
}

/// What a command needs from the world: registry, environment, output, terminal and data directory.
struct Context: Sendable {
    /// The providers and their emulators.
    var catalog: SandboxCatalog
    var environment: [String: String]
    var console: Console
    var terminal: Terminal
    /// Where the sandbox keeps state (the message board's messages).
    var dataDirectory: URL
    /// The cache root (``CacheLocation``), or `nil` for no disk cache (in-process tests unless they set one).
    var cacheDirectory: URL? = nil
    /// `aggregate --server URL`: the `aggregate serve` that provider commands run through (``ServerClient``), or
    /// `nil` for `AGGREGATE_SERVER`'s, else none.
    var server: String? = nil
    /// The live transport (tests may inject another).
    var makeTransport: @Sendable () -> any HTTPTransport = { makeNetworkTransport() }
    /// Waits between retries; tests replace it so that retries run without waiting (`nil`: really wait).
    var retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil
    /// Reads all of standard input, as bytes: the caller decides what text encoding they must be in.
    var readStandardInput: @Sendable (_ maxBytes: Int) throws(AggregateError) -> Data = { maxBytes throws(AggregateError) in
        try StandardStreams.readInput(maxBytes: maxBytes, hint: "pass a shorter text")
    }

    /// The providers.
    var registry: ProviderRegistry { catalog.registry }

    /// Where OAuth2 access tokens are kept (``ClientCredentialsTokenCache``): `tokens` beside the sandbox's data, in
    /// `$XDG_DATA_HOME/aggregate` (else `~/.local/share/aggregate`).
    var tokenDirectory: URL { dataDirectory.deletingLastPathComponent().appendingPathComponent("tokens") }

    /// The sandbox data directory: `$XDG_DATA_HOME/aggregate/sandbox`, else `~/.local/share/aggregate/sandbox`.
    static func defaultDataDirectory(environment: [String: String]) -> URL {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("aggregate/sandbox")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/aggregate/sandbox")
    }
}

/// Runs provider invocations through the shared fetch layer, live or offline.
struct InvocationRunner: Sendable {
    var context: Context
    var events: @Sendable (FetchEvent) -> Void
    /// The rate limiter, recorder and replayer the command's runs share.
    var tools = RunTools()

    /// The library's runner, set up from the command's context.
    var runner: ProviderRunner {
        var runner = tools.applied(to: ProviderRunner(
            registry: context.registry, environment: context.environment, offline: SandboxTransport(catalog: context.catalog, store: SandboxStore(directory: context.dataDirectory)),
            makeTransport: context.makeTransport, retrySleep: context.retrySleep, events: events))
        runner.tokenCache = ClientCredentialsTokenCache(directory: context.tokenDirectory, profile: context.environment["AGGREGATE_PROFILE"] ?? "")
        return runner
    }

    /// The base URL `--offline` uses: requests never leave the process, this only names them in traces.
    static func offlineBaseURL(for name: String) -> URL { ProviderRunner.offlineBaseURL(for: name) }

    /// Builds the query for `invocation`; throws configuration errors (e.g. a bad base URL).
    func query(for invocation: ProviderInvocation) throws(AggregateError) -> Query {
        try runner.query(
            invocation.provider, operation: invocation.operation.name, parameters: invocation.parameters,
            settings: invocation.common.runSettings, environment: invocation.common.providerEnvironment(context.environment))
    }

    /// Runs one invocation to a result (failures included, never thrown), shaped by `--fields` and `--sort`.
    func run(_ invocation: ProviderInvocation, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil) async -> ProviderResult {
        var settings = invocation.common.runSettings
        settings.cache = invocation.common.cache.settings(root: context.cacheDirectory)
        var runner = self.runner
        if let profile = invocation.common.profile { runner.tokenCache?.profile = profile }
        let result = await runner.run(
            invocation.provider, operation: invocation.operation.name, parameters: invocation.parameters,
            settings: settings, environment: invocation.common.providerEnvironment(context.environment),
            cache: cache, transport: transport)
        return invocation.common.shape(result)
    }
}

/// Prints fetch events on stderr: traces with `--verbose`, warnings unless `--quiet`.
struct EventPrinter: Sendable {
    var console: Console
    var verbose: Bool
    var quiet: Bool

    func handle(_ event: FetchEvent) {
        let prefix = event.provider
        switch event.kind {
        case .request(let method, let url, _) where verbose:
            console.err("\(prefix): → \(method) \(url)\n")
        case .response(let status, let bytes, let milliseconds) where verbose:
            console.err("\(prefix): ← HTTP \(status), \(ByteCount.describe(bytes)) in \(Int(milliseconds.rounded())) ms\n")
        case .retrying(let seconds, let reason, let retry, let of) where verbose:
            console.err("\(prefix): retrying in \(String(format: "%.1f", seconds)) s after \(reason) (retry \(retry) of \(of))\n")
        case .waitingForRateLimit(let seconds, let budget) where verbose:
            console.err("\(prefix): \(RunTools.waitText(seconds: seconds, budget: budget))\n")
        case .cache(let message) where verbose:
            console.err("\(prefix): cache: \(message)\n")
        case .warning(let message) where !quiet:
            console.err("warning: \(prefix): \(message)\n")
        default:
            break
        }
    }
}

/// `aggregate <provider> ...`
enum ProviderCommand {
    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        var invocation: ProviderInvocation
        do {
            let settings = try SettingsSources(context: context)
            // A parameter given as '-' reads standard input to its end, which blocks: not on the cooperative pool.
            // Parsing has no other effect, so it is tried here first with a reader that only notes it was asked
            // for, and done again on a thread of its own when it was (most runs read no input: no thread to start).
            let (registry, readStandardInput) = (context.registry, context.readStandardInput)
            let asked = InputAsked()
            let inline = Result { () throws(AggregateError) -> ProviderInvocation in
                try ProviderInvocation.parse(arguments, registry: registry, standardInput: asked.reader, settings: settings)
            }
            if asked.wasAsked {
                invocation = try await BlockingWork.run { () throws(AggregateError) -> ProviderInvocation in
                    try ProviderInvocation.parse(arguments, registry: registry, standardInput: readStandardInput, settings: settings)
                }
            } else {
                invocation = try inline.get()
            }
        } catch where error.kind == .config {
            return Diagnostics.report(error, console: context.console)
        } catch {
            return Diagnostics.report(error, console: context.console, usage: usageLine(for: arguments, registry: context.registry))
        }
        if invocation.common.help {
            context.console.out(HelpText.provider(invocation.provider.descriptor, width: context.terminal.width))
            return .success
        }
        if invocation.common.verbose {
            for origin in invocation.common.origins { context.console.err(origin.line(provider: invocation.name)) }
        }
        if let server = ServerClient.server(context: context) {
            return await ServerClient.run(invocation, server: server, arguments: arguments, context: context)
        }
        let incremental: IncrementalRun?
        do {
            (invocation, incremental) = try IncrementalRun.prepare(invocation, context: context)
        } catch {
            return Diagnostics.report(error, console: context.console, usage: usageLine(for: arguments, registry: context.registry))
        }
        let tools: RunTools
        do {
            tools = try RunTools(invocation.common.tools, offline: invocation.common.offline, environment: context.environment)
        } catch {
            return Diagnostics.report(error.attributed(to: invocation.name), console: context.console)
        }
        let printer = EventPrinter(console: context.console, verbose: invocation.common.verbose, quiet: invocation.common.quiet)
        // The progress line would tangle with --verbose's trace lines, so a trace replaces it.
        let progress = ProgressLine.forCommand(label: invocation.name, quiet: invocation.common.quiet || invocation.common.verbose, context: context)
        let runner = InvocationRunner(context: context, events: { event in
            progress.handle(event)
            if case .warning = event.kind { progress.printAbove { printer.handle(event) } } else { printer.handle(event) }
        }, tools: tools)
        if invocation.common.offline, !invocation.common.quiet {
            context.console.err(invocation.operation.writes
                ? "note: \(invocation.name): offline: writing to the sandbox's local store in \(context.dataDirectory.path), not to a live server\n"
                : "note: \(invocation.name): offline: these are the sandbox's bundled sample data, not live results\n")
        }
        progress.startTicking()
        let (result, definitionWarnings) = await DefinitionWarnings.collecting { await runner.run(invocation) }
        progress.finish()
        if !invocation.common.quiet {
            for warning in definitionWarnings { context.console.err("warning: \(warning)\n") }
        }
        if !invocation.common.quiet, let warning = FieldWarnings.absentMetrics(in: result) {
            context.console.err("warning: \(invocation.name): \(warning)\n")
        }
        if !invocation.common.quiet, let note = ResultWindowNote.note(result, invocation: invocation) {
            context.console.err("note: \(invocation.name): \(note)\n")
        }
        if invocation.common.verbose { reportRepairs(result, context: context) }
        let keepError = await keep(result, invocation: invocation, context: context) ?? incremental?.record(result)
        await Pager.paging(invocation.common.mayPage, context: context) { context in
            render(result, invocation: invocation, context: context)
        }
        if let error = result.error {
            Diagnostics.report(error, console: context.console, registry: context.registry)
        }
        // The results were fetched and are shown all the same; the exit code says they were not kept.
        if let keepError { return Diagnostics.report(keepError, console: context.console) }
        return ExitCode(for: [result])
    }

    /// `--to FILE`: writes a successful result's items into the SQLite file, in the operation's table, and says so
    /// on stderr (unless `--quiet`). A failed run writes nothing.
    /// - Returns: the error that kept the items from being written, if any.
    static func keep(_ result: ProviderResult, invocation: ProviderInvocation, context: Context) async -> AggregateError? {
        guard let path = invocation.common.to, result.error == nil else { return nil }
        let table = SQLTable(provider: invocation.provider, operation: invocation.operation)
        let items = result.items
        let written: SQLItemStore.Written
        do {
            // SQLite's writes block (and may wait for a lock): not on the cooperative pool.
            written = try await BlockingWork.run { () throws(AggregateError) -> SQLItemStore.Written in
                try SQLItemStore(path: path).write(items, to: table)
            }
        } catch {
            return error.attributed(to: invocation.name)
        }
        if !invocation.common.quiet {
            let rows = written.rows == 1 ? "1 row" : "\(written.rows) rows"
            context.console.err("note: \(invocation.name): wrote \(rows) to \(path) (table \(written.table))\n")
        }
        return nil
    }

    /// Says on stderr what reading the responses had to repair (lone UTF-16 surrogates read as U+FFFD).
    static func reportRepairs(_ result: ProviderResult, context: Context) {
        if let summary = result.parseNotes.summary { context.console.err("\(result.provider): \(summary)\n") }
    }

    /// The usage line of the operation the arguments name (the default operation when they name none).
    static func usageLine(for arguments: [String], registry: ProviderRegistry) -> String? {
        guard let name = arguments.first, let descriptor = registry.provider(named: name)?.descriptor else { return nil }
        let operation = arguments.dropFirst().first.flatMap(descriptor.operation(named:))
        return HelpText.usageLine(descriptor, operation: operation)
    }

    /// Writes a result to stdout in the chosen format.
    static func render(_ result: ProviderResult, invocation: ProviderInvocation, context: Context) {
        let console = context.console
        if invocation.common.raw {
            guard result.error == nil else { return }
            console.out(RawOutput.text(result.rawBodies, redactor: Redactor(secrets: invocation.provider.descriptor.auth.compactMap { invocation.common.providerEnvironment(context.environment)[$0.name] })))
            return
        }
        switch invocation.common.format {
        case .json:
            console.out(ResultRenderer.json([result]))
        case .ndjson:
            console.out(ResultRenderer.ndjson([result]))
        case .csv:
            guard result.error == nil else { return }
            console.out(ResultRenderer.csv([result]))
        case .markdown:
            guard result.error == nil else { return }
            console.out(ResultRenderer.markdown([result]))
        case .text:
            guard result.error == nil else { return }
            if result.items.isEmpty {
                console.out(TextRenderer.noItems(provider: result.provider))
                return
            }
            if result.meta.selectedFields != nil {
                console.out(ItemTable([result]).text(width: context.terminal.width))
            } else {
                let style = TextStyle(width: context.terminal.width, color: invocation.common.colorOnStdout(context.terminal))
                console.out(TextRenderer.view(of: result, by: invocation.provider, style: style))
            }
            // The `--fields` table is cut at the limit as much as the provider's own view is.
            if !invocation.common.quiet, let note = cutAtDefaultLimitNote(result, common: invocation.common) {
                console.err("note: \(result.provider): \(note)\n")
            }
        }
    }

    /// Says so when a text view stopped at the default limit and more items exist, so a short list is never
    /// mistaken for the whole: `showing 20 of 27; use --limit to see more`.
    static func cutAtDefaultLimitNote(_ result: ProviderResult, common: CommonOptions) -> String? {
        guard !common.limitIsExplicit, result.items.count >= common.limit else { return nil }
        if let total = result.meta.totalCount {
            return total > result.items.count ? "showing \(result.items.count) of \(total); use --limit to see more" : nil
        }
        return result.meta.nextCursor != nil ? "showing the first \(result.items.count); more exist; use --limit to see more" : nil
    }
}

/// `--raw` output: one body as it came, several as a JSON array of the bodies.
enum RawOutput {
    static func text(_ bodies: [Data], redactor: Redactor) -> String {
        let texts = bodies.map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
        let joined = texts.count == 1 ? texts[0] : "[\n" + texts.joined(separator: ",\n") + "\n]"
        return redactor.redact(joined) + "\n"
    }
}

/// A standard-input reader that reads nothing: it notes that it was asked and fails, so the caller can parse again
/// with the real (blocking) reader off the cooperative pool.
private final class InputAsked: @unchecked Sendable {
    private let lock = NSLock()
    private var asked = false

    var reader: ProviderArguments.StandardInputReader {
        { _ throws(AggregateError) in
            self.lock.lock()
            self.asked = true
            self.lock.unlock()
            throw AggregateError(.noInput, "standard input is read on a thread of its own")
        }
    }

    var wasAsked: Bool {
        lock.lock()
        defer { lock.unlock() }
        return asked
    }
}
