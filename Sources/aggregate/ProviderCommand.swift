import AggregateCore
import Foundation

/// A parsed `aggregate <provider> [operation] [arguments] [options]` command line.
struct ProviderInvocation: Sendable {
    let provider: any Provider.Type
    let operation: ProviderOperation
    let parameters: JSONObject
    let common: CommonOptions

    var name: String { provider.descriptor.name }

    /// Parses the arguments after `aggregate`: the provider's name first.
    /// - Parameter standardInput: reads standard input, for parameters that take `-` to mean stdin.
    static func parse(
        _ arguments: [String], registry: ProviderRegistry, standardInput: () -> String? = { nil }
    ) throws(AggregateError) -> ProviderInvocation {
        guard let first = arguments.first else { throw AggregateError(.usage, "missing provider name") }
        let provider = try registry.require(first)
        let descriptor = provider.descriptor
        var rest = Array(arguments.dropFirst())
        var operation = descriptor.defaultOperation
        if let candidate = rest.first, !candidate.hasPrefix("-"), let named = descriptor.operation(named: candidate) {
            operation = named
            rest.removeFirst()
        }
        let parameters = descriptor.options + operation.parameters
        let specs = CommonOptions.specs + parameters.filter { $0.style != .positional }.map { parameter in
            OptionSpec(parameter.name, arity: parameter.style == .flag ? .flag : .value, valueName: parameter.valueName, help: parameter.help)
        }
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser(options: specs).parse(rest)
        } catch {
            throw error.attributed(to: descriptor.name)
        }
        let common: CommonOptions
        do {
            common = try CommonOptions(parsed)
        } catch {
            throw error.attributed(to: descriptor.name)
        }
        if common.help {
            return ProviderInvocation(provider: provider, operation: operation, parameters: JSONObject(), common: common)
        }

        var values = JSONObject()
        var positionals = parsed.positionals[...]
        for parameter in parameters {
            var text: String?
            switch parameter.style {
            case .positional: text = positionals.popFirst()
            case .option: text = parsed.value(parameter.name)
            case .flag: text = parsed.has(parameter.name) ? "true" : nil
            }
            if parameter.readsStandardInputOnDash, text == "-" {
                guard let input = standardInput() else {
                    throw AggregateError(.usage, "--\(parameter.name) - reads standard input, but nothing could be read", provider: descriptor.name)
                }
                text = input
            }
            if let text {
                do {
                    values[parameter.name] = try parameter.value(from: text)
                } catch {
                    throw error.attributed(to: descriptor.name)
                }
            } else if let fallback = parameter.defaultValue {
                values[parameter.name] = try parameter.value(from: fallback)
            } else if parameter.isRequired {
                let label = parameter.style == .positional ? "<\(parameter.valueName.lowercased())>" : "--\(parameter.name) <\(parameter.valueName)>"
                throw AggregateError(.usage, "missing \(label) for '\(descriptor.name) \(operation.name)'", provider: descriptor.name)
            }
        }
        if let extra = positionals.first {
            let hint = descriptor.operations.count > 1 && parsed.positionals.first == extra
                ? " (operations: \(descriptor.operations.map(\.name).joined(separator: ", ")))" : ""
            throw AggregateError(.usage, "unexpected argument '\(extra)'\(hint)", provider: descriptor.name)
        }
        return ProviderInvocation(provider: provider, operation: operation, parameters: values, common: common)
    }
}

/// What a command needs from the world: registry, environment, output, terminal and data directory.
struct Context: Sendable {
    var registry: ProviderRegistry
    var environment: [String: String]
    var console: Console
    var terminal: Terminal
    /// Where the sandbox keeps state (the message board's messages).
    var dataDirectory: URL
    /// The live transport (tests may inject another).
    var makeTransport: @Sendable () -> any HTTPTransport = { URLSessionTransport() }
    /// Waits between retries; tests replace it so that retries run without waiting (`nil`: really wait).
    var retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil
    /// Reads all of standard input.
    var readStandardInput: @Sendable () -> String? = {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return String(data: data, encoding: .utf8)
    }

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

    /// The base URL `--offline` uses: requests never leave the process, this only names them in traces.
    static func offlineBaseURL(for name: String) -> URL { URL(string: "http://sandbox.localhost/\(name)")! }

    /// Builds the query for `invocation`; throws configuration errors (e.g. a bad base URL).
    func query(for invocation: ProviderInvocation) throws(AggregateError) -> Query {
        let descriptor = invocation.provider.descriptor
        let offline = invocation.common.offline
        let baseURL = offline
            ? Self.offlineBaseURL(for: descriptor.name)
            : try descriptor.baseURL(override: invocation.common.baseURL, environment: context.environment)
        var query = Query(
            provider: descriptor.name, operation: invocation.operation.name, parameters: invocation.parameters,
            limit: invocation.common.limit, baseURL: baseURL,
            environment: offline ? invocation.provider.sandboxEnvironment : context.environment)
        query.isLimitExplicit = invocation.common.limitIsExplicit
        return query
    }

    /// The fetcher for `invocation`: the sandbox in-process when offline, the network otherwise.
    func fetcher(for invocation: ProviderInvocation, cache: RunCache, transport: (any HTTPTransport)? = nil) -> Fetcher {
        var options = FetchOptions(timeout: invocation.common.timeout, events: events, keepsRawBodies: invocation.common.raw)
        if let sleep = context.retrySleep { options.sleep = sleep }
        if invocation.common.offline {
            let store = SandboxStore(directory: context.dataDirectory)
            return Fetcher(transport: SandboxTransport(registry: context.registry, store: store), options: options, source: .offline, cache: cache)
        }
        return Fetcher(transport: transport ?? context.makeTransport(), options: options, source: .live, cache: cache)
    }

    /// Runs one invocation to a result (failures included, never thrown).
    func run(_ invocation: ProviderInvocation, cache: RunCache = RunCache(), transport: (any HTTPTransport)? = nil) async -> ProviderResult {
        let descriptor = invocation.provider.descriptor
        do {
            let query = try query(for: invocation)
            return await fetcher(for: invocation, cache: cache, transport: transport).run(invocation.provider.init(), query: query)
        } catch {
            return ProviderResult(
                provider: descriptor.name, operation: invocation.operation.name, query: invocation.parameters,
                error: error.attributed(to: descriptor.name),
                meta: ResultMeta(source: invocation.common.offline ? .offline : .live))
        }
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
        let invocation: ProviderInvocation
        do {
            // A parameter given as '-' reads standard input to its end, which blocks: not on the cooperative pool.
            let (registry, readStandardInput) = (context.registry, context.readStandardInput)
            invocation = try await BlockingWork.run { () throws(AggregateError) -> ProviderInvocation in
                try ProviderInvocation.parse(arguments, registry: registry, standardInput: readStandardInput)
            }
        } catch {
            return Diagnostics.report(error, console: context.console, usage: usageLine(for: arguments, registry: context.registry))
        }
        if invocation.common.help {
            context.console.out(HelpText.provider(invocation.provider.descriptor, width: context.terminal.width))
            return .success
        }
        let printer = EventPrinter(console: context.console, verbose: invocation.common.verbose, quiet: invocation.common.quiet)
        let runner = InvocationRunner(context: context, events: printer.handle)
        if invocation.common.offline, !invocation.common.quiet {
            context.console.err(invocation.operation.writes
                ? "note: \(invocation.name): offline: writing to the sandbox's local store in \(context.dataDirectory.path), not to a live server\n"
                : "note: \(invocation.name): offline: these are the sandbox's bundled sample data, not live results\n")
        }
        let result = await runner.run(invocation)
        render(result, invocation: invocation, context: context)
        if let error = result.error {
            Diagnostics.report(error, console: context.console, registry: context.registry)
        }
        return ExitCode(for: [result])
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
            console.out(RawOutput.text(result.rawBodies, redactor: Redactor(secrets: invocation.provider.descriptor.auth.compactMap { context.environment[$0.name] })))
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
            let style = TextStyle(width: context.terminal.width, color: context.terminal.colorOnStdout)
            console.out(invocation.provider.init().renderText(result, style: style))
        }
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
