import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateRedis
import AggregateRendering
import AggregateSQL
import AggregateServe
import AggregateText
import Foundation

/// `aggregate serve`: one HTTP gateway over every provider for a team (docs/serve.md). The routes, metrics and
/// limits are AggregateServe's; this wires them to the command line's own parser, runner and renderers.
enum ServeCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("port", valueName: "PORT", help: "The port to listen on (default: 8080; 0 picks a free one)."),
        OptionSpec("bind", valueName: "ADDRESS", help: "The address to listen on (default: 127.0.0.1; any other needs --token-file)."),
        OptionSpec("offline", arity: .flag, help: "Answer from the sandbox's bundled sample data instead of the live APIs."),
        OptionSpec(
            "store", valueName: "PATH|URL",
            help: "Keep the cache and rate budgets in the folder PATH, or share them with other serve processes and CLI runs through Redis at redis://HOST:PORT/DB (default: AGGREGATE_STORE; see docs/serve.md)."),
        OptionSpec("token-file", valueName: "FILE", help: "A file of bearer tokens, one a line: every request must carry one ('Authorization: Bearer <token>'), else 401."),
        OptionSpec("client-budget", valueName: "N/WINDOW", help: "Requests one client (a token, else an address) may make per window, e.g. 30/min; past it, 429 with Retry-After."),
        OptionSpec("drain", valueName: "SECONDS", help: "On SIGTERM or SIGINT, how long requests in flight may take to finish before the server closes (default: 10)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "serve", summary: "Serve every provider over HTTP, with one cache and one set of rate budgets.",
        usage: "aggregate serve [--port 8080] [--bind 127.0.0.1] [--offline] [--store PATH|redis://HOST:PORT/DB] [--token-file FILE] [--client-budget N/WINDOW] [--drain SECONDS]",
        options: options,
        discussion: """
            A long-running HTTP service: GET /v1/providers, /v1/providers/<name>, and /v1/<provider>/<operation>?name=value&limit=N \
            answering the document 'aggregate <provider> <operation> ... --format json' prints (format=ndjson or csv for those); \
            POST /v1/compare and GET /v1/sql?q=... (compare's and sql's JSON); a web page at / and /compare; \
            /healthz and /metrics (Prometheus). Provider credentials stay in the server's environment and are never sent to \
            clients. One JSON line per request is logged on stderr. SIGTERM or Ctrl-C stops accepting, lets requests in \
            flight finish within --drain seconds, and exits 0. See docs/serve.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        let server: ServeServer
        let drain: TimeInterval
        do {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            if let extra = parsed.positionals.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
            var configuration = ServeConfiguration()
            if let text = parsed.value("port") {
                guard let port = Int(text), (0...65535).contains(port) else { throw AggregateError(.usage, "--port must be 0 to 65535, not '\(text)'") }
                configuration.port = port
            }
            if let host = parsed.value("bind") { configuration.host = host }
            if let path = parsed.value("token-file") { configuration.tokens = try readTokens(path) }
            if let text = parsed.value("client-budget") {
                guard let budget = ServeConfiguration.parseBudget(text) else {
                    throw AggregateError(.usage, "--client-budget must be N/WINDOW, e.g. 30/min, 5/2s or 1000/hour, not '\(text)'")
                }
                configuration.clientBudget = budget
            }
            drain = try parsed.value("drain").map { text throws(AggregateError) in
                guard let seconds = DecimalText.number(text, in: 0...3600) else { throw AggregateError(.usage, "--drain must be 0 to 3600 seconds, not '\(text)'") }
                return seconds
            } ?? 10
            configuration.log = { line in console.err(line + "\n") }
            let offline = parsed.has("offline")
            // Opened once for the server: every client's requests share one cache and one set of budgets, and an
            // unreachable Redis is one error line now rather than on every request.
            var shared: SharedStores?
            if let text = parsed.value("store") ?? context.environment["AGGREGATE_STORE"].flatMap({ $0.isEmpty ? nil : $0 }), !offline {
                do {
                    shared = try SharedStores.open(StoreLocation(text), localRoot: CacheLocation.root(environment: context.environment)) { line in
                        console.err("serve: \(line)\n")
                    }
                } catch {
                    throw error.aggregateError
                }
            }
            let backend = CommandLineBackend(context: context, offline: offline, shared: shared)
            server = try ServeServer(backend: backend, configuration: configuration)
            try server.start()
        } catch let error as AggregateError {
            return Diagnostics.report(error, console: console, usage: command.usage)
        } catch {
            return Diagnostics.report(AggregateError(.config, "\(error)", provider: "serve"), console: console)
        }
        console.err("aggregate serve listening on \(server.baseURL.absoluteString) (\(context.registry.names.count) providers); SIGTERM or Ctrl-C drains and stops\n")
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stop(drain: drain) }
            source.resume()
            return source
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                server.waitUntilStopped()
                continuation.resume()
            }
        }
        signals.forEach { $0.cancel() }
        console.err("aggregate serve stopped (\(server.requestCount) requests served)\n")
        return .success
    }

    /// The tokens of `--token-file`: one a line, blank lines and `#` comments skipped.
    static func readTokens(_ path: String) throws(AggregateError) -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw AggregateError(.config, "cannot read the token file \(path): \(FileSystemReason.describe(error)); give --token-file a readable file of tokens, one a line")
        }
        let tokens = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !tokens.isEmpty else { throw AggregateError(.config, "the token file \(path) holds no token: write one token a line") }
        guard tokens.allSatisfy({ $0.count >= 16 && !$0.contains(" ") }) else {
            throw AggregateError(.config, "a token in \(path) is shorter than 16 characters or holds a space: use long random tokens, e.g. from 'openssl rand -hex 32'")
        }
        return tokens
    }
}

/// The routes' backend: a provider operation runs through the command line's own parser (``ProviderInvocation``),
/// runner (``InvocationRunner``, with the disk cache and the rate limiter) and renderers, so a served answer is the
/// very document `aggregate <provider> <operation> ... --format json` prints.
struct CommandLineBackend: ServeBackend {
    let context: Context
    let offline: Bool
    /// `--store`'s cache and rate budgets, opened once for every client; `nil` for the disk's, as the CLI's.
    var shared: SharedStores?
    /// One for the server: concurrent identical upstream requests of every client wait for one fetch.
    let flights = SingleFlight()

    /// The common options a client may set; the others (base URLs, profiles, files) are the server's own.
    static let clientOptions: Set<String> = ["limit", "fields", "sort"]

    var providerNames: [String] { context.registry.names }

    var storeHealth: String? { shared?.health?.description }

    var secrets: [String] {
        context.registry.providers.flatMap { provider in provider.descriptor.auth.compactMap { context.environment[$0.name] } }
            .filter { !$0.isEmpty }
    }

    func providersDocument() -> JSONValue { InfoCommands.providersJSON(registry: context.registry) }

    func descriptorDocument(provider: String) -> JSONValue? {
        guard let descriptor = context.registry.provider(named: provider)?.descriptor else { return nil }
        return InfoCommands.descriptorJSON(descriptor, sqlTables: InfoCommands.sqlTableNames(of: descriptor.name, registry: context.registry))
    }

    var descriptors: [ProviderDescriptor] { context.registry.providers.map(\.descriptor) }

    /// The server's own options for every run: no progress on stderr, and the sandbox's data under `--offline`.
    var serverOptions: [String] { ["--quiet"] + (offline ? ["--offline"] : []) }

    func run(_ call: ServeCall, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer {
        let result: ProviderResult
        do {
            result = try await self.result(try commandLine(for: call), events: events)
        } catch {
            return ServeAnswer.error(error)
        }
        let status = result.error.map { ServeAnswer.status(for: $0.kind) } ?? 200
        switch call.format {
        case .json:
            return ServeAnswer(status: status, contentType: call.format.contentType, body: Data(ResultRenderer.json([result]).utf8))
        case .ndjson:
            return ServeAnswer(status: status, contentType: call.format.contentType, body: Data(ResultRenderer.ndjson([result]).utf8))
        case .csv:
            // CSV has no place for an error: a failed run answers the JSON document, as `--format csv` prints nothing.
            guard result.error == nil else {
                return ServeAnswer(status: status, contentType: ServeFormat.json.contentType, body: Data(ResultRenderer.json([result]).utf8))
            }
            return ServeAnswer(status: status, contentType: call.format.contentType, body: Data(ResultRenderer.csv([result]).utf8))
        }
    }

    /// Every run of the server, the JSON route's and the web page's: parsed by the command line's own parser (the
    /// server's options put before a `--`), refused when it writes, run by its runner with the server's tools.
    func result(_ arguments: [String], events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> ProviderResult {
        var arguments = arguments
        arguments.insert(contentsOf: serverOptions, at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
        let invocation = try ProviderInvocation.parse(arguments, registry: context.registry, settings: try SettingsSources(context: context))
        try refuseWrites(invocation)
        let runner = InvocationRunner(context: context, events: events, tools: try tools(invocation.common.tools, offline: invocation.common.offline))
        return await runner.run(invocation)
    }

    /// Runs invocations as `aggregate compare` does: each parsed with compare's parser (the server's options and
    /// `limit` as compare's own), then all at once, with one set of the server's tools.
    func compare(_ invocations: [String], limit: Int?, events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> [ComparisonRow] {
        let options = serverOptions + (limit.map { ["--limit", String($0)] } ?? [])
        guard let parsed = try CompareCommand.command.parse(options, context: context) else { return [] }
        let shared = try CompareCommand.sharedOptions(parsed)
        let settings = try SettingsSources(context: context)
        let parsedInvocations = try invocations.enumerated().map { index, text throws(AggregateError) in
            try refuseServerOptions(text, number: index + 1)
            let invocation = try CompareCommand.invocation(text, number: index + 1, shared: shared, context: context, settings: settings)
            try refuseWrites(invocation)
            return invocation
        }
        let results = await CompareCommand.runAll(
            parsedInvocations, context: context, tools: try tools(shared.tools, offline: shared.offline)) { _, event in events(event) }
        return zip(zip(invocations, parsedInvocations), results).map { entry, result in
            ComparisonRow(invocation: entry.0, result: result, descriptor: entry.1.provider.descriptor)
        }
    }

    /// `GET /v1/sql`: the statement run as `aggregate sql "<statement>" --format json` runs it (offline when the
    /// server is), with the server's tools; its document, or its error as one JSON line.
    func sql(_ statement: String, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer {
        do throws(AggregateError) {
            guard let parsed = try SQLCommand.command.parse(serverOptions, context: context) else { return ServeAnswer.error(AggregateError(.usage, "no statement")) }
            var common = try CommonOptions(parsed)
            let options = SQLEngine.Options(defaultLimit: common.limit)
            let environments = try SQLCommand.providerEnvironments(common, context: context)
            common.limit = options.defaultLimit
            let result = try await SQLCommand.execute(
                statement, engine: SQLEngine(catalog: SQLCatalog(registry: context.registry)), options: options, common: common,
                environments: environments, context: context, tools: try tools(common.tools, offline: common.offline), events: events)
            return ServeAnswer(status: 200, contentType: ServeFormat.json.contentType, body: Data((JSONWriter(pretty: true).string(result.jsonValue) + "\n").utf8))
        } catch {
            return ServeAnswer.error(error.provider == nil ? error.attributed(to: "sql") : error)
        }
    }

    /// A client's invocation may set its operation's parameters, `--limit` and `--sort`, as the JSON route allows;
    /// base URLs, profiles, timeouts and the like are the server's own (a `--base-url` would send the server's
    /// credentials to another host).
    /// Checked before the invocation is parsed, against every parameter of its provider, so the parser's own
    /// checks (of a profile, say) never run on what the client may not set.
    private func refuseServerOptions(_ text: String, number: Int) throws(AggregateError) {
        let words: [String]
        do {
            words = try ShellWords.split(text)
        } catch {
            throw AggregateError(.usage, "invocation \(number) ('\(text)'): \(error.message)")
        }
        let named = words.first == "aggregate" ? words.dropFirst().first : words.first
        // An unknown provider is left to compare's parser, which names the valid ones.
        guard let descriptor = named.flatMap({ context.registry.provider(named: $0)?.descriptor }) else { return }
        let allowed = Set((descriptor.options + descriptor.operations.flatMap(\.parameters)).map(\.name)).union(Self.clientOptions)
        for word in words.prefix(while: { $0 != "--" }) where word.hasPrefix("--") {
            let name = String(word.dropFirst(2).prefix { $0 != "=" })
            guard allowed.contains(name) else {
                throw AggregateError(
                    .usage, "invocation \(number) ('\(text)'): --\(name) is the server's own; an invocation may set its operation's parameters, --limit and --sort")
            }
        }
    }

    private func refuseWrites(_ invocation: ProviderInvocation) throws(AggregateError) {
        guard !invocation.operation.writes else {
            throw AggregateError(.usage, "\(invocation.name) \(invocation.operation.name) writes; serve answers only operations that read")
        }
    }

    /// The tools of one run: the server's store (opened once at start) in place of the environment's, and the
    /// server's single flight.
    private func tools(_ options: RunToolOptions, offline: Bool) throws(AggregateError) -> RunTools {
        var environment = context.environment
        environment["AGGREGATE_STORE"] = nil
        var tools: RunTools
        do {
            tools = try RunTools(options, offline: offline, environment: environment)
        } catch {
            // A client sets no tool option, so what fails here is the server's own setting.
            throw AggregateError(.config, error.message)
        }
        if let shared, !offline {
            tools.cacheStore = shared.cache
            if tools.rateLimitStore != nil { tools.rateLimitStore = shared.rateLimits }
        }
        tools.singleFlight = flights
        return tools
    }

    /// The command line the call stands for: `<provider> <operation> <positionals> --name value ... --quiet`.
    func commandLine(for call: ServeCall) throws(AggregateError) -> [String] {
        let provider = try context.registry.require(call.provider)
        let descriptor = provider.descriptor
        guard let operation = descriptor.operation(named: call.operation) else {
            throw AggregateError(
                .notFound,
                "\(call.provider) has no operation '\(call.operation)'\(DidYouMean.suffix(for: call.operation, among: descriptor.operations.map(\.name), otherwise: ".")) Operations: \(descriptor.operations.map(\.name).joined(separator: ", ")).")
        }
        let parameters = descriptor.options + operation.parameters
        var positionals: [(index: Int, value: String)] = []
        var options: [String] = []
        for given in call.parameters {
            if Self.clientOptions.contains(given.name) {
                options += ["--\(given.name)", given.value]
                continue
            }
            guard let index = parameters.firstIndex(where: { $0.name == given.name }) else {
                let names = parameters.map(\.name) + Self.clientOptions.sorted() + ["format"]
                throw AggregateError(
                    .usage, "unknown parameter '\(given.name)' for \(call.provider) \(call.operation)\(DidYouMean.suffix(for: given.name, among: names, otherwise: ".")) Parameters: \(names.joined(separator: ", ")).")
            }
            switch parameters[index].style {
            case .positional: positionals.append((index, given.value))
            case .option: options += ["--\(given.name)", given.value]
            case .flag:
                guard ["true", "1", ""].contains(given.value.lowercased()) else {
                    if ["false", "0"].contains(given.value.lowercased()) { continue }
                    throw AggregateError(.usage, "\(given.name) is a flag: give \(given.name)=true or leave it out, not '\(given.value)'")
                }
                options.append("--\(given.name)")
            }
        }
        // Positionals in their declared order; a value must not be read as an option.
        let ordered = positionals.sorted { $0.index < $1.index }.map(\.value)
        if let dashed = ordered.first(where: { $0.hasPrefix("-") }) {
            throw AggregateError(.usage, "a value starting with '-' ('\(dashed)') cannot be served as a positional parameter")
        }
        return [call.provider, call.operation] + ordered + options
    }
}
