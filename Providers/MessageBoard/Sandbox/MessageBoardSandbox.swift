import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
import AggregateText
import Foundation

/// The message board's part of the sandbox: a writable Rails scaffold board.
///
/// - `GET /messages.json` lists every message, root-wrapped (`[{"message": {...}}]`, Rails 3) or flat with a
///   `url` (jbuilder) by `?shape=root|flat` (default root).
/// - `POST /messages.json` creates a message with Rails-like strong parameters and validations: 201 with
///   `Location`, or 422 with the error hash. With the setting `messageboard.csrf=true` every post is answered
///   like a board that demands a CSRF token: 422 with an HTML page (`production`: Rails' production JSON body).
/// - `GET /messages/:id.json` shows one message.
///
/// Messages live in the ``SandboxStore`` document `messageboard-messages.json`; until the first post the board
/// shows the bundled messages (`SampleData/messages.json`). A store that cannot be read is reported, never replaced.
public enum MessageBoardSandbox: RoutedSandbox {
    public static let providerName = "messageboard"

    /// The board needs no credentials.
    public static let sandboxEnvironment: [String: String] = [:]

    /// The scaffold's routes, at the sandbox's root, `.json` or by content negotiation. A method they do not map
    /// raises a RoutingError in Rails: 404, after the same format checks.
    public static let routes = SandboxRoutes(
        [
            SandboxRoute("GET", "/messages", action { try $0.index() }),
            SandboxRoute("POST", "/messages", action { try $0.create() }),
            SandboxRoute("GET", "/messages.json", action { try $0.index() }),
            SandboxRoute("POST", "/messages.json", action { try $0.create() }),
            SandboxRoute("GET", "/messages/*", action { try $0.show() }),
        ],
        methodNotAllowed: { request in
            do throws(SandboxExit) {
                _ = try BoardRequest.shape(of: request)
                return railsError(404)
            } catch {
                return error.response
            }
        })

    /// What Rails' exception handling sends for a JSON request in production.
    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        railsError(status)
    }

    /// The bundled messages the board starts with.
    static let seedMessages: [JSONValue] = (try? JSONParser().parse(MessageBoardSampleData.messagesJSON))?.array ?? []

    /// A route's handler: the board's checks, then `body`, whose failures (an unreadable store) are Rails' 500.
    static func action(_ body: @escaping @Sendable (BoardRequest) throws -> SandboxResponse) -> SandboxRoute.Handler {
        { request, context, _ in
            let board = try BoardRequest(request: request, context: context, shape: BoardRequest.shape(of: request))
            do {
                return try body(board)
            } catch {
                return railsError(500, exception: (error as? AggregateError)?.message ?? "\(error)")
            }
        }
    }

    /// Rails' `PublicExceptions` body for a JSON request: `{"status": 404, "error": "Not Found"}`.
    /// `exception` is added as development API apps do, to say what went wrong in the sandbox itself.
    static func railsError(_ status: Int, exception: String? = nil) -> SandboxResponse {
        var body = JSONObject(pairs: ["status": .int(status), "error": .string(reasonPhrases[status] ?? "Error")])
        body.set("exception", exception.map(JSONValue.string))
        return .json(.object(body), status: status)
    }

    /// Rack's reason phrases (422 is still "Unprocessable Entity" there).
    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 406: "Not Acceptable",
        408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Entity", 429: "Too Many Requests",
        500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// One request to the sandbox board.
struct BoardRequest {
    /// The store document that holds the messages.
    static let storeDocument = "messageboard-messages.json"
    /// The attributes strong parameters permit, in the order records keep them.
    static let permitted = ["name", "message", "message_date"]
    /// Validation limits of the sandbox board (a real scaffold has none; this board's model adds them).
    static let maximumLengths = [("name", 50), ("message", 1000)]

    /// The two JSON shapes real boards send.
    enum Shape: String {
        /// `{"message": {...}}` with timestamps in whole seconds (Rails 3, `include_root_in_json`).
        case root
        /// Flat records with `url`, timestamps with milliseconds (jbuilder scaffolds).
        case flat
    }

    let request: SandboxRequest
    let context: SandboxContext
    let shape: Shape

    /// The checks Rails makes before any action: the format (without `.json`, Rails picks it from Accept, and
    /// this board renders no HTML views), then the requested shape.
    static func shape(of request: SandboxRequest) throws(SandboxExit) -> Shape {
        guard request.path.split(separator: "/").last?.hasSuffix(".json") == true
            || request.headers["Accept"]?.lowercased().contains("json") == true
        else { throw SandboxExit(.html(title: "ActionController::UnknownFormat", status: 406)) }
        guard let shape = Shape(rawValue: request.queryValue("shape") ?? "root") else {
            throw SandboxExit(MessageBoardSandbox.railsError(400, exception: "shape must be root or flat"))
        }
        return shape
    }

    /// `GET /messages(.json)`.
    func index() throws -> SandboxResponse { .json(.array(try messages().map(render))) }

    /// `GET /messages/:id(.json)`.
    func show() throws -> SandboxResponse {
        let last = request.path.split(separator: "/").last ?? ""
        let id = String(last.hasSuffix(".json") ? last.dropLast(5) : last)
        guard let record = try messages().first(where: { $0["id"]?.idString == id }) else { return MessageBoardSandbox.railsError(404) }
        return .json(render(record))
    }

    // MARK: Create

    func create() throws -> SandboxResponse {
        switch context.settings["messageboard.csrf"] {
        case "true":
            // protect_from_forgery with: :exception; JSON clients have no session to take a token from.
            return .html(title: "The change you wanted was rejected (ActionController::InvalidAuthenticityToken)", status: 422)
        case "production":
            // The same failure in production mode, where Rails answers a .json request with its public error body.
            return MessageBoardSandbox.railsError(422)
        default:
            break
        }
        guard let attributes = permittedAttributes() else { return MessageBoardSandbox.railsError(400) }
        // `validates :name, :message, presence: true, length: {maximum: ...}`, as `errors.as_json`.
        var errors = JSONObject()
        for (key, maximum) in Self.maximumLengths {
            let text = attributes[key]?.string ?? ""
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                errors[key] = ["can't be blank"]
            } else if text.unicodeScalars.count > maximum {
                errors[key] = [.string("is too long (maximum is \(maximum) characters)")]
            }
        }
        guard errors.isEmpty else { return .json(.object(errors), status: 422) }
        guard let store = context.store else {
            return MessageBoardSandbox.railsError(
                500, exception: "the sandbox was started without a data directory, so the message board cannot save messages")
        }
        let record = try store.update(Self.storeDocument) { document -> JSONValue in
            var messages = try Self.messages(in: document, store: store)
            var record = JSONObject(pairs: ["id": .int(SandboxNumbers.sum(messages.compactMap { $0["id"]?.int }.max() ?? 0, 1))])
            for key in Self.permitted { record[key] = attributes[key] ?? .null }
            for key in ["created_at", "updated_at"] { record[key] = .string(UTCTimestamp.iso8601(context.now, milliseconds: true)) }
            messages.append(.object(record))
            document = .array(messages)
            return .object(record)
        }
        return .json(render(record), status: 201, headers: ["Location": memberURL(record, json: false)])
    }

    /// The permitted attributes as Rails' strong parameters see them, or `nil` when `params.require(:message)` fails.
    ///
    /// ParamsWrapper wraps a JSON body under `message` only when the body has no top-level `message` key, so
    /// `{"name": "x"}` is wrapped but `{"name": "x", "message": "hi"}` arrives as the string "hi" (a 400 here).
    private func permittedAttributes() -> JSONObject? {
        guard request.headers["Content-Type"]?.lowercased().contains("json") == true, let body = request.jsonBody?.object,
            let params = body["message"].map(\.object) ?? body
        else { return nil }
        var permitted = JSONObject()
        for key in Self.permitted {
            switch params[key] {
            case .string(let text)?, .number(let text)?: permitted[key] = .string(text)
            case .null?: permitted[key] = .null
            default: break
            }
        }
        guard !permitted.isEmpty else { return nil }
        if let date = permitted["message_date"]?.string {
            // A `date` column keeps the day; impossible dates such as 2012-02-30 become nil rather than rolling over.
            let day = String(date.trimmingCharacters(in: .whitespaces).prefix(10))
            permitted["message_date"] = day.count == 10 && UTCTimestamp.date(fromISO8601: day) != nil ? .string(day) : .null
        }
        return permitted
    }

    // MARK: Reading

    /// The board's messages: the store's, or the bundled ones before the first post.
    private func messages() throws -> [JSONValue] {
        guard let store = context.store else { return MessageBoardSandbox.seedMessages }
        return try Self.messages(in: store.read(Self.storeDocument), store: store)
    }

    /// The messages in a store document.
    /// - Throws: when the document is not a list of messages with ids (it is then left as it is).
    static func messages(in document: JSONValue?, store: SandboxStore) throws -> [JSONValue] {
        guard let document else { return MessageBoardSandbox.seedMessages }
        guard let messages = document.array, messages.allSatisfy({ $0["id"]?.int != nil }) else {
            let path = store.directory.appendingPathComponent(storeDocument).path
            throw AggregateError(
                .decoding,
                "the sandbox store \(path) does not hold a list of messages with ids; it was left untouched: repair or remove it")
        }
        return messages
    }

    // MARK: Rendering

    /// A stored record in the requested shape; Rails times in UTC: `2012-05-04T12:00:00Z` (Rails 3) or
    /// `2024-05-04T12:00:00.000Z` (newer Rails).
    private func render(_ record: JSONValue) -> JSONValue {
        var fields = JSONObject()
        for key in ["id"] + Self.permitted { fields[key] = record[key] ?? .null }
        for key in ["created_at", "updated_at"] {
            let date = record[key]?.string.flatMap(ISO8601.date(from:))
            fields[key] = date.map { .string(UTCTimestamp.iso8601($0, milliseconds: shape == .flat)) } ?? .null
        }
        guard shape == .flat else { return ["message": .object(fields)] }
        fields["url"] = .string(memberURL(record, json: true))
        return .object(fields)
    }

    /// `message_url(message)`, with `format: :json` for jbuilder's `url`.
    private func memberURL(_ record: JSONValue, json: Bool) -> String {
        context.baseURL.appendingEndpoint("/messages/\(record["id"]?.idString ?? "")\(json ? ".json" : "")").absoluteString
    }
}
