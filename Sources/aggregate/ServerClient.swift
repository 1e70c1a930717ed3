import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateRendering
import Foundation

/// `aggregate --server URL <provider> ...` (or `AGGREGATE_SERVER`): the command line is parsed here as for a local
/// run, so usage errors stay local; the invocation becomes `GET /v1/<provider>/<operation>?name=value...` of that
/// `aggregate serve`, fetched through the fetch chain `aggregate get` uses (``URLGetProvider``); the result
/// document it answers is read back (``ResultDocument/results(from:)-(Data)``) and rendered here in `--format`,
/// with the exit code a local run would have.
///
/// A token from `AGGREGATE_SERVER_TOKEN` is sent as `Authorization: Bearer` to the server's origin only, and masked
/// by the one ``Redactor`` wherever it could show.
enum ServerClient {
    static let serverVariable = "AGGREGATE_SERVER"
    static let tokenVariable = "AGGREGATE_SERVER_TOKEN"
    static let usage = "aggregate --server <URL> <provider> [operation] [arguments] [options]"

    /// The common options a server run honours; any other given on the command line is refused (``refused(_:)``).
    static let honoured: Set<String> = ["limit", "format", "fields", "sort", "timeout", "allow-http", "verbose", "quiet", "color", "no-pager", "help"]

    /// `--server`'s URL, else `AGGREGATE_SERVER`'s, else `nil` (a local run).
    static func server(context: Context) -> String? {
        if let server = context.server { return server }
        guard let value = context.environment[serverVariable]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// The options given that make no sense through a server, as a usage error; `nil` when there are none.
    static func refused(_ invocation: ProviderInvocation) -> AggregateError? {
        let refused = invocation.common.given.subtracting(honoured).sorted()
        guard !refused.isEmpty else { return nil }
        let names = refused.map { "--\($0)" }.joined(separator: ", ")
        return AggregateError(
            .usage,
            "\(names) cannot be used with --server (\(serverVariable)): the server fetches with its own settings, cache and store; drop \(refused.count == 1 ? "it" : "them"), or run without --server",
            provider: invocation.name)
    }

    /// The server's base URL, checked: absolute http(s), no query.
    static func baseURL(_ text: String) throws(AggregateError) -> URL {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              components.host?.isEmpty == false, components.query == nil, components.fragment == nil
        else {
            throw AggregateError(.usage, "--server needs the absolute http(s) URL of an aggregate serve, e.g. http://127.0.0.1:8080, not '\(Redactor().redact(text))'")
        }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        guard let url = components.url else { throw AggregateError(.usage, "--server '\(Redactor().redact(text))' is not a URL") }
        return url
    }

    /// The route's URL for `invocation`: `/v1/<provider>/<operation>` with every parameter by name, then `limit`,
    /// `fields` and `sort` as the command line gave them.
    static func routeURL(_ invocation: ProviderInvocation, base: URL) -> URL? {
        var items: [URLQueryItem] = []
        for member in invocation.parameters.members {
            for value in values(member.value) { items.append(URLQueryItem(name: member.key, value: value)) }
        }
        let common = invocation.common
        items.append(URLQueryItem(name: "limit", value: String(common.limit)))
        if let fields = common.fields { items.append(URLQueryItem(name: "fields", value: fields.map(\.description).joined(separator: ","))) }
        if let sort = common.sort { items.append(URLQueryItem(name: "sort", value: sort.description)) }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        let segment = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text }
        components.percentEncodedPath += "/v1/\(segment(invocation.name))/\(segment(invocation.operation.name))"
        components.queryItems = items
        // `+` would be read as a space by the server; it must arrive as itself.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url
    }

    /// A parameter's value as query words: one per element of a list, flags as `true` (a false flag is left out).
    static func values(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .number(let text): return [text]
        case .bool(let flag): return flag ? ["true"] : []
        case .array(let elements): return elements.flatMap(values)
        case .null: return []
        case .object: return [JSONWriter().string(value)]
        }
    }

    /// Runs `invocation` through the server and prints its result as a local run would.
    static func run(_ invocation: ProviderInvocation, server: String, arguments: [String], context: Context) async -> ExitCode {
        let usageLine = ProviderCommand.usageLine(for: arguments, registry: context.registry)
        if let refusal = refused(invocation) { return Diagnostics.report(refusal, console: context.console, usage: usageLine) }
        if invocation.parameters[DefinitionSince.parameterName]?.string == DefinitionSince.last {
            return Diagnostics.report(
                AggregateError(.usage, "--since last keeps its state on this machine, so it cannot be used with --server: give a time, e.g. --since 2026-01-31", provider: invocation.name),
                console: context.console, usage: usageLine)
        }
        let resolved: ProviderInvocation
        let base: URL
        do {
            (resolved, _) = try IncrementalRun.prepare(invocation, context: context)
            base = try baseURL(server)
        } catch {
            return Diagnostics.report(error, console: context.console, usage: usageLine)
        }
        guard let url = routeURL(resolved, base: base) else {
            return Diagnostics.report(AggregateError(.usage, "the parameters cannot be put in a URL"), console: context.console, usage: usageLine)
        }
        var originParts = URLComponents()
        (originParts.scheme, originParts.host, originParts.port) = (base.scheme, base.host, base.port)
        let origin = originParts.string ?? "the server"
        let token = context.environment[tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        var provider: URLGetProvider
        do {
            provider = try URLGetProvider(url: url.absoluteString, header: token.map { "Authorization: Bearer \($0)" })
        } catch {
            return Diagnostics.report(error, console: context.console, usage: usageLine)
        }
        let unsuccessful = UnsuccessfulResponse()
        provider.unsuccessful = unsuccessful
        let common = resolved.common
        var settings = ProviderRunner.Settings(limit: 1, limitIsExplicit: true, allowHTTP: common.allowHTTP)
        settings.timeout = common.timeout
        settings.keepsRawBodies = true
        let printer = EventPrinter(console: context.console, verbose: common.verbose, quiet: common.quiet)
        let runner = ProviderRunner(
            registry: context.registry, environment: context.environment, makeTransport: context.makeTransport,
            retrySleep: context.retrySleep, events: printer.handle)
        let fetched = await runner.run(provider, operation: URLGetProvider.operation, parameters: JSONObject(), settings: settings, environment: provider.environment)
        let redactor = Redactor(secrets: Array(provider.environment.values))
        var result: ProviderResult
        switch outcome(fetched, unsuccessful: unsuccessful.response, server: origin, provider: resolved.name) {
        case .failure(let error):
            var error = error
            error.message = redactor.redact(error.message)
            return Diagnostics.report(error, console: context.console)
        case .success(let read):
            result = read
        }
        result.explicitLimit = common.limitIsExplicit ? common.limit : nil
        if !common.quiet, let warning = FieldWarnings.absentMetrics(in: result) {
            context.console.err("warning: \(resolved.name): \(warning)\n")
        }
        if !common.quiet, let note = ResultWindowNote.note(result, invocation: resolved) {
            context.console.err("note: \(resolved.name): \(note)\n")
        }
        await Pager.paging(common.mayPage, context: context) { context in
            ProviderCommand.render(result, invocation: resolved, context: context)
        }
        if let error = result.error {
            Diagnostics.report(error, console: context.console, registry: context.registry)
        }
        return ExitCode(for: [result])
    }

    /// The result the server answered, or the one error that says what went wrong with the server itself.
    static func outcome(_ fetched: ProviderResult, unsuccessful: HTTPResponse?, server: String, provider: String) -> Result<ProviderResult, AggregateError> {
        let body: Data
        let status: Int
        if let error = fetched.error {
            guard let response = unsuccessful, error.httpStatus == response.status else {
                let what = error.kind == .timeout ? "did not answer in time" : "could not be reached"
                return .failure(AggregateError(
                    error.kind, "the server \(server) \(what) (\(error.message)); check --server or \(serverVariable), and that 'aggregate serve' runs there"))
            }
            (body, status) = (response.body, response.status)
        } else {
            guard let first = fetched.rawBodies.first else {
                return .failure(notServe(server, why: "it answered an empty body"))
            }
            (body, status) = (first, 200)
        }
        if status == 401 {
            return .failure(AggregateError(
                .auth, "the server \(server) requires a valid token (HTTP 401): set \(tokenVariable) to one of the tokens of its --token-file", httpStatus: 401))
        }
        guard let document = try? JSONParser().parse(body) else {
            return .failure(notServe(server, why: "its answer (HTTP \(status)) is not JSON"))
        }
        if document["schemaVersion"] != nil {
            do throws(AggregateError) {
                let results = try ResultDocument.results(from: document)
                guard results.count == 1, let only = results.first, only.provider == provider else {
                    return .failure(notServe(server, why: "its answer holds no result of \(provider)"))
                }
                return .success(only)
            } catch {
                return .failure(notServe(server, why: "its answer could not be read (\(error.message))"))
            }
        }
        // The server's own refusals: `{"error": {"kind", "message"}, "status"}` or `{"error": "...", "message", "status"}`.
        guard let message = document["error"]?["message"]?.string ?? document["message"]?.string, document["status"]?.int != nil else {
            return .failure(notServe(server, why: "its answer (HTTP \(status)) is no aggregate result document"))
        }
        let kind = document["error"]?["kind"]?.string.flatMap(AggregateError.Kind.init(rawValue:))
            ?? (status == 429 ? .rateLimited : status == 504 ? .timeout : status == 404 ? .notFound : .http)
        return .failure(AggregateError(kind, "the server \(server) answered HTTP \(status): \(message)", httpStatus: status))
    }

    static func notServe(_ server: String, why: String) -> AggregateError {
        AggregateError(.decoding, "\(server) does not look like an aggregate serve: \(why); check --server or \(serverVariable)")
    }
}
