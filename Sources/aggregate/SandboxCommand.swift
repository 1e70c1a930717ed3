import AggregateCore
import AggregateHTTP
import AggregateSandbox
import AggregateSandboxKit
import AggregateText
import Foundation

/// `aggregate sandbox`: serves every provider's emulated API on a loopback port until Ctrl-C.
enum SandboxCommand {
    static let options: [OptionSpec] = [
        OptionSpec("port", valueName: "PORT", help: "The port to listen on (default: 8787; 0 picks a free one)."),
        OptionSpec("host", valueName: "HOST", help: "The address to listen on (default: 127.0.0.1; other interfaces only when asked)."),
        OptionSpec("latency", valueName: "MS", help: "Milliseconds added before every response (default: 0)."),
        OptionSpec("fail-rate", valueName: "P", help: "The probability, 0 to 1, that a request gets an injected 503 (default: 0)."),
        OptionSpec("fault", arity: .repeated, valueName: "SPEC", help: "A server-wide fault rule, e.g. 'status=503; retry-after=2; times=1' (see docs/sandbox-faults.md). Repeatable."),
        OptionSpec("data-dir", valueName: "DIR", help: "Where writable providers keep their data (default: $XDG_DATA_HOME/aggregate/sandbox)."),
        OptionSpec("rate-limit", arity: .repeated, valueName: "PROVIDER=N/WINDOW", help: "Enforce this limit instead of the provider's real one, e.g. 'kiva=5/2s' (see docs/sandbox-faults.md). Repeatable."),
        OptionSpec("replay", valueName: "DIR", help: "Serve the exchanges recorded in DIR/cassette.json (by --record) instead of the emulators."),
        OptionSpec("token-lifetime", valueName: "SECONDS", help: "The lifetime of the OAuth2 tokens the definitions' token endpoints issue, instead of each one's sandboxTokenLifetime (0: already expired)."),
        OptionSpec("messageboard-csrf", arity: .flag, help: "Make the message board reject JSON posts without a CSRF token, like a Rails app with forgery protection."),
        OptionSpec("env", arity: .flag, help: "Print 'export' lines for every provider's base URL (this address, with --port and --host) and demo credentials, and exit; the server is not started."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "sandbox", summary: "Run the local API emulator for every provider.",
        usage: "aggregate sandbox [--port 8787] [--host 127.0.0.1] [--latency MS] [--fail-rate P] [--fault SPEC]... [--rate-limit PROVIDER=N/WINDOW]... [--token-lifetime SECONDS] [--replay DIR] [--data-dir DIR] | --env [--port 8787] [--host 127.0.0.1]",
        options: options,
        discussion: """
            A real HTTP/1.1 server that speaks each provider's real paths, parameters, auth errors, pagination and \
            rate-limit headers over the sample data bundled in the binary. Routes are mounted at the root (/2/groups) \
            and under each provider's name (/meetup/2/groups). Point a provider at it with --base-url or \
            AGGREGATE_<NAME>_BASE_URL and the demo credentials printed at start-up. Faults can also be injected per \
            request with the X-Sandbox-Fault header. Kiva's REST limit (60 requests a minute, 500 with app_id) is \
            enforced per window, with a 403 lock-out past it; --rate-limit kiva=5/2s shrinks it for tests. With \
            --replay DIR it serves a cassette recorded with --record instead: each recorded exchange once, matched by \
            method, path, query and body. One line per request is logged on stderr, credentials redacted; Ctrl-C \
            stops it. --env only prints, for a sandbox started separately on the same --port and --host: \
            eval "$(aggregate sandbox --env)" points every provider at it with its demo credentials, so commands without \
            --offline take the live code path against the sandbox.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        let server: SandboxServer
        do {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            if let extra = parsed.positionals.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
            if parsed.has("env") { try checkEnvOptions(parsed) }
            server = SandboxServer(catalog: context.catalog, configuration: try configuration(parsed, context: context))
            if parsed.has("env") {
                let start = ["aggregate", "sandbox"] + ["port", "host"].flatMap { name in parsed.value(name).map { ["--\(name)", $0] } ?? [] }
                console.out(exports(baseURL: server.baseURL, catalog: context.catalog, start: start.map(shellQuoted).joined(separator: " ")))
                return .success
            }
            try server.start()
        } catch let error as AggregateError {
            return Diagnostics.report(error.kind == .usage ? error : error.attributed(to: "sandbox"), console: console, usage: command.usage)
        } catch {
            return Diagnostics.report(AggregateError(.config, "\(error)", provider: "sandbox"), console: console)
        }

        console.err(banner(server: server, catalog: context.catalog))
        let signals = stopOnSignals(server)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                server.waitUntilStopped()
                continuation.resume()
            }
        }
        signals.forEach { $0.cancel() }
        console.err("sandbox stopped (\(server.requestCount) requests served)\n")
        return .success
    }

    static func configuration(_ parsed: ParsedArguments, context: Context) throws -> SandboxServerConfiguration {
        var configuration = SandboxServerConfiguration()
        if let text = parsed.value("port") {
            guard let port = Int(text), (0...65535).contains(port) else { throw AggregateError(.usage, "--port must be 0 to 65535, not '\(text)'") }
            configuration.port = port
        }
        if let host = parsed.value("host") { configuration.host = host }
        if let text = parsed.value("latency") {
            guard let milliseconds = DecimalText.number(text, in: 0...600_000) else {
                throw AggregateError(.usage, "--latency must be a number of milliseconds from 0 to 600000, not '\(text)'")
            }
            configuration.latency = milliseconds / 1000
        }
        if let text = parsed.value("fail-rate") {
            guard let rate = DecimalText.number(text, in: 0...1) else { throw AggregateError(.usage, "--fail-rate must be between 0 and 1, not '\(text)'") }
            configuration.failRate = rate
        }
        configuration.faults = try (parsed.values["fault"] ?? []).map { spec in
            do {
                return try SandboxFault.parse(spec)
            } catch let error as AggregateError {
                throw AggregateError(.usage, "--fault '\(spec)': \(error.message)")
            }
        }
        let directory = parsed.value("data-dir").map { URL(fileURLWithPath: $0) } ?? context.dataDirectory
        configuration.store = SandboxStore(directory: directory)
        if parsed.has("messageboard-csrf") { configuration.settings["messageboard.csrf"] = "true" }
        if let lifetime = parsed.value("token-lifetime") {
            guard let seconds = Int(lifetime), (0...31_536_000).contains(seconds) else {
                throw AggregateError(.usage, "--token-lifetime must be a whole number of seconds from 0 to 31536000, not '\(lifetime)'")
            }
            configuration.settings[DefinitionSandbox.tokenLifetimeSetting] = String(seconds)
        }
        for spec in parsed.values["rate-limit"] ?? [] {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, context.catalog.sandbox(named: parts[0]) != nil, RateBudget.parseRate(parts[1]) != nil else {
                throw AggregateError(.usage, "--rate-limit must be PROVIDER=N/WINDOW with a served provider, e.g. kiva=5/2s, not '\(spec)'")
            }
            configuration.settings[SandboxContext.rateLimitSetting(provider: parts[0])] = parts[1]
        }
        if let replay = parsed.value("replay") { configuration.replayer = try CassetteReplayer(directory: URL(fileURLWithPath: replay)) }
        let console = context.console
        configuration.log = { line in console.err(line.hasSuffix("\n") ? line : line + "\n") }
        return configuration
    }

    /// What the sandbox serves and how to use it, printed at start-up.
    static func banner(server: SandboxServer, catalog: SandboxCatalog) -> String {
        let base = server.baseURL.absoluteString
        var text = "aggregate sandbox listening on \(base) (providers: \(catalog.registry.names.joined(separator: ", ")))\n"
        for (provider, variables) in environment(baseURL: server.baseURL, catalog: catalog) {
            text += "  \(provider): \(variables.map { "\($0.name)=\($0.value)" }.joined(separator: " "))\n"
        }
        text += "Press Ctrl-C to stop.\n"
        return text
    }

    /// The variables that point each provider at a sandbox on `baseURL`: its base URL variable, then the demo
    /// credentials its emulator accepts (by name). The banner and `--env` both show these.
    static func environment(baseURL: URL, catalog: SandboxCatalog) -> [(provider: String, variables: [(name: String, value: String)])] {
        let registry = catalog.registry
        let base = baseURL.absoluteString
        return registry.providers.map { provider in
            let descriptor = provider.descriptor
            let credentials = (catalog.sandbox(named: descriptor.name)?.sandboxEnvironment ?? [:]).sorted { $0.key < $1.key }
            // Definitions' emulators are mounted under /<name> only.
            let mount = registry.origin(of: descriptor.name) == .builtInSwift ? base : base + "/" + descriptor.name
            return (descriptor.name, [(descriptor.baseURLVariable, mount)] + credentials.map { ($0.key, $0.value) })
        }
    }

    /// `--env`: the environment as `export` lines for a POSIX shell, for `eval "$(aggregate sandbox --env)"`.
    /// - Parameter start: the command that starts a sandbox on `baseURL`, for the first comment line.
    static func exports(baseURL: URL, catalog: SandboxCatalog, start: String) -> String {
        var text = "# Every provider pointed at the sandbox on \(baseURL.absoluteString), which '\(start)' starts.\n"
        for (provider, variables) in environment(baseURL: baseURL, catalog: catalog) {
            text += "# \(provider)\n"
            for variable in variables { text += "export \(variable.name)=\(shellQuoted(variable.value))\n" }
        }
        return text
    }

    /// `--env` only prints, so it takes only the options that say where the sandbox is, and a fixed port.
    static func checkEnvOptions(_ parsed: ParsedArguments) throws(AggregateError) {
        let serving = options.map(\.name).filter { !["env", "port", "host", "help"].contains($0) && parsed.has($0) }
        if let option = serving.first { throw AggregateError(.usage, "--env only prints the variables; --\(option) is for the server (give it to 'aggregate sandbox')") }
        if parsed.value("port") == "0" { throw AggregateError(.usage, "--env needs the sandbox's port: give the one it listens on, not 0") }
    }

    /// Stops the server on SIGINT or SIGTERM.
    static func stopOnSignals(_ server: SandboxServer) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
    }
}
