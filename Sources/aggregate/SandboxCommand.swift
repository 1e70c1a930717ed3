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
        OptionSpec("messageboard-csrf", arity: .flag, help: "Make the message board reject JSON posts without a CSRF token, like a Rails app with forgery protection."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "sandbox", summary: "Run the local API emulator for every provider.",
        usage: "aggregate sandbox [--port 8787] [--host 127.0.0.1] [--latency MS] [--fail-rate P] [--fault SPEC]... [--rate-limit PROVIDER=N/WINDOW]... [--replay DIR] [--data-dir DIR]",
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
            stops it.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        let server: SandboxServer
        do {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            if let extra = parsed.positionals.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
            server = SandboxServer(catalog: context.catalog, configuration: try configuration(parsed, context: context))
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
        let registry = catalog.registry
        let base = server.baseURL.absoluteString
        var text = "aggregate sandbox listening on \(base) (providers: \(registry.names.joined(separator: ", ")))\n"
        for provider in registry.providers {
            let descriptor = provider.descriptor
            let credentials = (catalog.sandbox(named: descriptor.name)?.sandboxEnvironment ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            // Definitions' emulators are mounted under /<name> only.
            let mount = registry.origin(of: descriptor.name) == .builtInSwift ? base : base + "/" + descriptor.name
            let line = (["\(descriptor.baseURLVariable)=\(mount)"] + credentials).joined(separator: " ")
            text += "  \(descriptor.name): \(line)\n"
        }
        text += "Press Ctrl-C to stop.\n"
        return text
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
