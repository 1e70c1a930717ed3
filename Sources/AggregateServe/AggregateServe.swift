// AggregateServe: `aggregate serve`, one HTTP gateway over every provider — its routes (providers, descriptors, one
// operation's result as JSON, NDJSON or CSV, health, Prometheus metrics), the access log, bearer tokens and
// per-client budgets — on AggregateHTTPServer. What a route runs comes from a ``ServeBackend``, which the executable
// builds from the command line's own code path, so a served result is the same document `--format json` prints.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateHTTPServer, AggregateRendering, Foundation, Glibc, Darwin
package import AggregateCore
package import AggregateHTTP
package import AggregateJSON
package import AggregateRendering
package import Foundation

/// One provider operation asked for over HTTP: `GET /v1/{provider}/{operation}?name=value&limit=N&format=json`.
package struct ServeCall: Sendable, Equatable {
    package var provider: String
    package var operation: String
    /// The query's parameters in order, `limit` included, `format` left out.
    package var parameters: [ServeParameter]
    package var format: ServeFormat

    package init(provider: String, operation: String, parameters: [ServeParameter], format: ServeFormat) {
        self.provider = provider
        self.operation = operation
        self.parameters = parameters
        self.format = format
    }
}

/// One `name=value` of a query, percent-decoded.
package struct ServeParameter: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The formats a result is served in: `format=json` (the default), `ndjson` or `csv`.
package enum ServeFormat: String, Sendable, CaseIterable {
    case json, ndjson, csv

    /// The `Content-Type` of a body in this format.
    package var contentType: String {
        switch self {
        case .json: return "application/json; charset=utf-8"
        case .ndjson: return "application/x-ndjson; charset=utf-8"
        case .csv: return "text/csv; charset=utf-8"
        }
    }
}

/// What a backend answers: the HTTP status, the body and its type.
package struct ServeAnswer: Sendable {
    package var status: Int
    package var contentType: String
    package var body: Data

    package init(status: Int, contentType: String, body: Data) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// The HTTP status of an error of `kind`: 400 `usage`, 404 `notFound`, 429 `rateLimited`, 502 for what an API
    /// did, 504 `timeout`, 500 for the server's own settings.
    package static func status(for kind: AggregateError.Kind) -> Int {
        switch kind {
        case .usage, .invalidInput, .noInput: return 400
        case .notFound: return 404
        case .rateLimited: return 429
        case .timeout: return 504
        case .auth, .http, .network, .decoding, .tooLarge: return 502
        case .config, .ioError: return 500
        }
    }

    /// `error` as a JSON error document, under its kind's status.
    package static func error(_ error: AggregateError) -> ServeAnswer {
        ServeAnswer.error(status(for: error.kind), kind: error.kind.rawValue, error.message)
    }

    /// A JSON error document: `{"error": {"kind": ..., "message": ...}, "status": N}`.
    package static func error(_ status: Int, kind: String, _ message: String) -> ServeAnswer {
        let document: JSONValue = ["error": ["kind": .string(kind), "message": .string(message)], "status": .int(status)]
        return ServeAnswer(status: status, contentType: ServeFormat.json.contentType, body: JSONWriter().data(document))
    }
}

/// What the routes run: the executable implements it with the command line's own parser, runner and renderers.
package protocol ServeBackend: Sendable {
    /// Every provider's name, in the order `/v1/providers` lists them.
    var providerNames: [String] { get }
    /// `GET /v1/providers`: what `aggregate providers --format json` prints.
    func providersDocument() -> JSONValue
    /// `GET /v1/providers/{name}`: what `aggregate describe <name> --format json` prints, or `nil` for no such provider.
    func descriptorDocument(provider: String) -> JSONValue?
    /// Runs one operation and renders its result; `events` receives the fetch layer's events (for the metrics).
    func run(_ call: ServeCall, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer
    /// Every provider's descriptor, in the order the web page lists them (the same as ``providerNames``).
    var descriptors: [ProviderDescriptor] { get }
    /// Runs a command line written as after `aggregate` (the web page's selection, e.g. `["tmdb", "search",
    /// "--limit=3", "--", "batman"]`) to its result, by the same code path as ``run(_:events:)``.
    /// - Throws: what keeps it from running: a command line that does not parse or an operation that writes
    ///   (`usage`), the server's own settings (`config`).
    func result(_ arguments: [String], events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> ProviderResult
    /// Runs invocations written as after `aggregate` concurrently, as `aggregate compare` runs them, `limit` for
    /// those that set none of their own; the rows are in the order given.
    /// - Throws: a `usage` error naming the first invocation that does not parse (nothing is run then).
    func compare(_ invocations: [String], limit: Int?, events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> [ComparisonRow]
    /// `GET /v1/sql?q=...`: what `aggregate sql "<statement>" --format json` prints, or its error as one JSON line
    /// under its kind's status.
    func sql(_ statement: String, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer
    /// The credentials the server holds, masked in every log line.
    var secrets: [String] { get }
    /// The shared store's state for `/healthz` (`redis: up`, `redis: down since ...`), or `nil` without `--store`
    /// or with a folder.
    var storeHealth: String? { get }
}

extension ServeBackend {
    /// No shared store.
    package var storeHealth: String? { nil }
}
