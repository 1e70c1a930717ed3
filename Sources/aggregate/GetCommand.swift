import AggregateCore
import AggregateHTTP
import AggregateJSON
import Foundation

/// `aggregate get URL [--header 'Name: value'] [--record DIR]`: one GET of any JSON URL through the same fetch
/// chain a provider run takes (cache, rate limiter, retry, redirects, size cap, deadline, recorder, redaction),
/// printing the body as `--raw` does. Recording a new API then needs no definition: `aggregate import recording`
/// reads the cassette.
enum GetCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("header", valueName: "'NAME: VALUE'", help: "One credential header, e.g. 'Authorization: Bearer $TOKEN': sent only to the URL's origin and masked in every output, error, cache entry and cassette."),
        OptionSpec("timeout", valueName: "SECONDS", help: "Seconds the exchange may take (default: 15)."),
        OptionSpec("allow-http", arity: .flag, help: "Allow plain http to hosts other than this machine."),
        OptionSpec("verbose", short: "v", arity: .flag, help: "Trace the request and response on stderr (credentials masked)."),
    ] + RunToolOptions.specs + CacheChoice.specs + [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")]

    static let command = HelpText.Command(
        name: "get", summary: "GET any JSON URL through the fetch chain and print the body, e.g. to record a new API with --record.",
        usage: "aggregate get <URL> [--header 'NAME: VALUE'] [--record <DIR>] [options]",
        arguments: [("<URL>", "An absolute http(s) URL answering JSON; plain http only to this machine unless --allow-http.")],
        options: options,
        discussion: """
            Prints the body as it came, as a provider's --raw does. The request goes through what provider runs use: \
            the disk cache, retries, redirects (the header goes only to the URL's origin), the size cap and the \
            deadline; --record DIR writes the exchange to DIR/cassette.json with the header masked, and \
            'aggregate import recording DIR' makes a definition from it. Exit codes as for provider runs: 0 done; \
            1 the API answered an error or not JSON; 64 usage (a bad URL or header); 74 the cassette cannot be written; \
            78 plain http refused.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let text = parsed.positionals.first else { throw AggregateError(.usage, "get: name the URL, e.g. aggregate get https://hn.algolia.com/api/v1/search?query=swift") }
            if let extra = parsed.positionals.dropFirst().first { throw AggregateError(.usage, "get: unexpected argument '\(extra)'") }
            let provider = try URLGetProvider(url: text, header: parsed.value("header"))
            var settings = ProviderRunner.Settings(limit: 1, limitIsExplicit: true, allowHTTP: parsed.has("allow-http"))
            if let timeout = parsed.value("timeout") {
                guard let seconds = TimeInterval(timeout), seconds > 0, seconds.isFinite else {
                    throw AggregateError(.usage, "get: --timeout must be a positive number of seconds, not '\(timeout)'")
                }
                settings.timeout = seconds
            }
            settings.cache = try CacheChoice(parsed).settings(root: context.cacheDirectory)
            let tools = try RunTools(try RunToolOptions(parsed), offline: false, environment: context.environment)
            let printer = EventPrinter(console: context.console, verbose: parsed.has("verbose"), quiet: false)
            let runner = tools.applied(to: ProviderRunner(
                registry: context.registry, environment: context.environment, makeTransport: context.makeTransport,
                retrySleep: context.retrySleep, events: printer.handle))
            let result = await runner.run(provider, operation: URLGetProvider.operation, parameters: JSONObject(), settings: settings, environment: provider.environment)
            if let error = result.error { return Diagnostics.report(error, console: context.console) }
            context.console.out(RawOutput.text(result.rawBodies, redactor: Redactor(secrets: Array(provider.environment.values))))
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }
}

/// The provider behind `aggregate get`: one request for one URL, its origin the only one the credential header
/// goes to. The header's value is a declared credential (`AGGREGATE_GET_HEADER`, and the token after a scheme such
/// as `Bearer` as `AGGREGATE_GET_HEADER_SECRET`), so the one ``Redactor`` masks it wherever it shows.
struct URLGetProvider: RunnableProvider {
    static let name = "get"
    static let operation = "get"
    static let headerVariable = "AGGREGATE_GET_HEADER"
    static let secretVariable = "AGGREGATE_GET_HEADER_SECRET"

    let url: URL
    let header: (name: String, value: String)?
    /// Keeps the last unsuccessful response, whose body the caller reads (`--server`: a failed result's document);
    /// `nil` for `aggregate get`, which shows only the error.
    var unsuccessful: UnsuccessfulResponse?

    /// - Throws: a usage error for a URL that is not absolute http(s), or a header that is not `Name: value`.
    init(url text: String, header line: String?) throws(AggregateError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw AggregateError(.usage, "get: '\(text)' is not an absolute http(s) URL, e.g. https://api.example.com/v1/items")
        }
        self.url = url
        header = try line.map { (line) throws(AggregateError) in
            guard let colon = line.firstIndex(of: ":") else { throw AggregateError(.usage, "get: --header needs 'NAME: VALUE', e.g. 'X-Api-Key: KEY'") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !value.isEmpty, name.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw AggregateError(.usage, "get: --header needs a name and a value, 'NAME: VALUE', e.g. 'X-Api-Key: KEY'")
            }
            return (name, value)
        }
    }

    /// The credential variables' values: the header's value, and the token after its scheme (`Bearer abc` → `abc`).
    var environment: [String: String] {
        guard let header else { return [:] }
        var values = [Self.headerVariable: header.value]
        if let space = header.value.firstIndex(of: " ") { values[Self.secretVariable] = header.value[space...].trimmingCharacters(in: .whitespaces) }
        return values
    }

    /// The URL's origin: the credential goes there only.
    var origin: String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        return components.string ?? url.absoluteString
    }

    var descriptor: ProviderDescriptor {
        ProviderDescriptor(
            name: Self.name, displayName: "GET", summary: "One GET of a JSON URL.", docsURL: origin, defaultBaseURL: origin,
            auth: [AuthVariable(Self.headerVariable, usage: "the --header value"), AuthVariable(Self.secretVariable, usage: "the --header token")],
            authStyle: "the --header credential", paginationStyle: "none",
            operations: [ProviderOperation(name: Self.operation, summary: "One GET.", itemKind: "document")], examples: [])
    }

    func configure(_ query: inout Query) throws {}

    func resolve(_ query: inout Query, using client: FetchClient) async throws {}

    func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        HTTPRequestSpec(url: url, headers: ["Accept": "application/json"], credential: header.map { .header(name: $0.name, value: $0.value) })
    }

    /// No items: the body is the output. It must be JSON, as for any provider.
    func normalize(_ page: RawPage, for query: Query) throws -> Page {
        do {
            _ = try JSONParser().parse(page.body)
        } catch {
            throw AggregateError(.decoding, "\(url.host ?? "the server") answered \(page.headers["Content-Type"] ?? "a body without a Content-Type"), not JSON (\(error))", httpStatus: page.status)
        }
        return Page(items: [])
    }

    func error(for response: HTTPResponse, query: Query) -> AggregateError {
        unsuccessful?.keep(response)
        return .generic(for: response, descriptor: descriptor)
    }

    func interruptedWriteOutcome(for query: Query) -> String { "nothing was changed (a GET)" }

    func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? { RetryAfter.delay(response, now: now) }

    func textView(_ result: ProviderResult, style: TextStyle) -> String? { nil }
}

/// The last unsuccessful response of a ``URLGetProvider``, kept for the caller to read after the run.
final class UnsuccessfulResponse: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: HTTPResponse?

    func keep(_ response: HTTPResponse) {
        lock.lock()
        stored = response
        lock.unlock()
    }

    var response: HTTPResponse? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
