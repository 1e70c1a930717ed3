public import AggregateCore
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
extension MessageBoardSandbox: SandboxProviding {
    public static let providerName = "messageboard"

    /// The board needs no credentials.
    public static let sandboxEnvironment: [String: String] = [:]

    /// The scaffold's routes, at the sandbox's root.
    public static let sandboxPaths: [SandboxPathPattern] = ["/messages", "/messages.json", "/messages/*"]

    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard let route = MessageBoardSandbox.Route(path: request.path) else { return nil }
        return MessageBoardSandbox(request: request, context: context).respond(to: route)
    }

    /// What Rails' exception handling sends for a JSON request in production.
    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        MessageBoardSandbox.railsError(status)
    }
}

/// One request to the sandbox board.
public struct MessageBoardSandbox {
    /// The store document that holds the messages.
    static let storeDocument = "messageboard-messages.json"
    /// Validation limits of the sandbox board (a real scaffold has none; this board's model adds them).
    static let maximumNameLength = 50
    static let maximumMessageLength = 1000

    /// The bundled messages the board starts with.
    static let seedMessages: [JSONValue] = (try? JSONParser().parse(MessageBoardSampleData.messagesJSON))?.array ?? []

    let request: SandboxRequest
    let context: SandboxContext

    /// The paths the board serves, as Rails routes them (`.json` or content negotiation).
    enum Route: Equatable {
        case collection(json: Bool)
        case member(id: String, json: Bool)

        init?(path: String) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            switch parts.count {
            case 1 where parts[0] == "messages": self = .collection(json: false)
            case 1 where parts[0] == "messages.json": self = .collection(json: true)
            case 2 where parts[0] == "messages" && parts[1].hasSuffix(".json"): self = .member(id: String(parts[1].dropLast(5)), json: true)
            case 2 where parts[0] == "messages": self = .member(id: parts[1], json: false)
            default: return nil
            }
        }
    }

    /// The two JSON shapes real boards send.
    enum Shape: String {
        /// `{"message": {...}}` with timestamps in whole seconds (Rails 3, `include_root_in_json`).
        case root
        /// Flat records with `url`, timestamps with milliseconds (jbuilder scaffolds).
        case flat
    }

    func respond(to route: Route) -> SandboxResponse {
        let json: Bool
        switch route {
        case .collection(let explicit), .member(_, let explicit): json = explicit
        }
        // Without `.json`, Rails picks the format from Accept; this board renders no HTML views.
        guard json || request.headers["Accept"]?.lowercased().contains("json") == true else {
            return .html(title: "ActionController::UnknownFormat", status: 406)
        }
        guard let shape = Shape(rawValue: request.queryValue("shape") ?? "root") else {
            return .json(["status": 400, "error": "Bad Request", "exception": "shape must be root or flat"], status: 400)
        }
        do {
            switch (request.method, route) {
            case ("GET", .collection), ("HEAD", .collection):
                return .json(.array(try messages().map { render($0, shape: shape) }))
            case ("POST", .collection):
                return try create(shape: shape)
            case ("GET", .member(let id, _)), ("HEAD", .member(let id, _)):
                guard let record = try messages().first(where: { $0["id"]?.idString == id }) else { return Self.railsError(404) }
                return .json(render(record, shape: shape))
            default:
                // A method the scaffold's routes do not map here: Rails raises a RoutingError.
                return Self.railsError(404)
            }
        } catch {
            return Self.railsError(500, exception: (error as? AggregateError)?.message ?? "\(error)")
        }
    }

    // MARK: Create

    private func create(shape: Shape) throws -> SandboxResponse {
        switch context.settings["messageboard.csrf"] {
        case "true":
            // protect_from_forgery with: :exception; JSON clients have no session to take a token from.
            return .html(title: "The change you wanted was rejected (ActionController::InvalidAuthenticityToken)", status: 422)
        case "production":
            // The same failure in production mode, where Rails answers a .json request with its public error body.
            return Self.railsError(422)
        default:
            break
        }
        guard let attributes = permittedAttributes() else { return Self.railsError(400) }
        let errors = validationErrors(attributes)
        if !errors.isEmpty {
            return .json(.object(errors), status: 422)
        }
        guard let store = context.store else {
            return Self.railsError(500, exception: "the sandbox was started without a data directory, so the message board cannot save messages")
        }
        let record = try store.update(Self.storeDocument) { document -> JSONValue in
            var messages = try Self.messages(in: document, store: store)
            let id = SandboxNumbers.sum(messages.compactMap { $0["id"]?.int }.max() ?? 0, 1)
            let now = Self.timestamp(context.now, milliseconds: true)
            let record: JSONValue = [
                "id": .int(id),
                "name": attributes["name"] ?? .null,
                "message": attributes["message"] ?? .null,
                "message_date": attributes["message_date"] ?? .null,
                "created_at": .string(now),
                "updated_at": .string(now),
            ]
            messages.append(record)
            document = .array(messages)
            return record
        }
        let location = memberURL(record, json: false)
        return .json(render(record, shape: shape), status: 201, headers: ["Location": location])
    }

    /// The permitted attributes as Rails' strong parameters see them, or `nil` when `params.require(:message)` fails.
    ///
    /// ParamsWrapper wraps a JSON body under `message` only when the body has no top-level `message` key, so
    /// `{"name": "x"}` is wrapped but `{"name": "x", "message": "hi"}` arrives as the string "hi" (a 400 here).
    private func permittedAttributes() -> JSONObject? {
        guard request.headers["Content-Type"]?.lowercased().contains("json") == true,
            let body = request.jsonBody?.object
        else { return nil }
        let params: JSONObject
        if let member = body["message"] {
            guard let nested = member.object else { return nil }
            params = nested
        } else {
            params = body
        }
        var permitted = JSONObject()
        for key in ["name", "message", "message_date"] {
            switch params[key] {
            case .string(let text)?: permitted[key] = .string(text)
            case .number(let text)?: permitted[key] = .string(text)
            case .null?: permitted[key] = .null
            default: break
            }
        }
        guard !permitted.isEmpty else { return nil }
        if let date = permitted["message_date"]?.string {
            permitted["message_date"] = Self.dateColumn(date).map(JSONValue.string) ?? .null
        }
        return permitted
    }

    /// `validates :name, :message, presence: true, length: {maximum: ...}`, as `errors.as_json`.
    private func validationErrors(_ attributes: JSONObject) -> JSONObject {
        var errors = JSONObject()
        for (key, maximum) in [("name", Self.maximumNameLength), ("message", Self.maximumMessageLength)] {
            let text = attributes[key]?.string ?? ""
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                errors[key] = ["can't be blank"]
            } else if text.unicodeScalars.count > maximum {
                errors[key] = [.string("is too long (maximum is \(maximum) characters)")]
            }
        }
        return errors
    }

    // MARK: Reading

    /// The board's messages: the store's, or the bundled ones before the first post.
    private func messages() throws -> [JSONValue] {
        guard let store = context.store else { return Self.seedMessages }
        return try Self.messages(in: store.read(Self.storeDocument), store: store)
    }

    /// The messages in a store document.
    /// - Throws: when the document is not a list of messages with ids (it is then left as it is).
    static func messages(in document: JSONValue?, store: SandboxStore) throws -> [JSONValue] {
        guard let document else { return seedMessages }
        guard let messages = document.array, messages.allSatisfy({ $0["id"]?.int != nil }) else {
            let path = store.directory.appendingPathComponent(storeDocument).path
            throw AggregateError(
                .decoding,
                "the sandbox store \(path) does not hold a list of messages with ids; it was left untouched: repair or remove it")
        }
        return messages
    }

    // MARK: Rendering

    /// A stored record in the requested shape.
    private func render(_ record: JSONValue, shape: Shape) -> JSONValue {
        var fields = JSONObject()
        for key in ["id", "name", "message", "message_date"] { fields[key] = record[key] ?? .null }
        for key in ["created_at", "updated_at"] {
            let date = record[key]?.string.flatMap(ISO8601.date(from:))
            fields[key] = date.map { .string(Self.timestamp($0, milliseconds: shape == .flat)) } ?? .null
        }
        switch shape {
        case .root:
            return ["message": .object(fields)]
        case .flat:
            fields["url"] = .string(memberURL(record, json: true))
            return .object(fields)
        }
    }

    /// `message_url(message)`, with `format: :json` for jbuilder's `url`.
    private func memberURL(_ record: JSONValue, json: Bool) -> String {
        context.baseURL.appendingEndpoint("/messages/\(record["id"]?.idString ?? "")\(json ? ".json" : "")").absoluteString
    }

    /// Rails times in UTC: `2012-05-04T12:00:00Z` (Rails 3) or `2024-05-04T12:00:00.000Z` (newer Rails).
    static func timestamp(_ date: Date, milliseconds: Bool) -> String {
        UTCTimestamp.iso8601(date, milliseconds: milliseconds)
    }

    /// What a `date` column keeps of a posted value: its day, or `nil` when it is not a date.
    static func dateColumn(_ text: String) -> String? {
        let day = String(text.trimmingCharacters(in: .whitespaces).prefix(10))
        let formatter = ISO8601.utcFormatter(format: "yyyy-MM-dd")
        // Round-trip so that impossible dates such as 2012-02-30 are refused rather than rolled over.
        guard day.count == 10, let date = formatter.date(from: day), formatter.string(from: date) == day else { return nil }
        return day
    }

    /// Rails' `PublicExceptions` body for a JSON request: `{"status": 404, "error": "Not Found"}`.
    /// `exception` is added as development API apps do, to say what went wrong in the sandbox itself.
    static func railsError(_ status: Int, exception: String? = nil) -> SandboxResponse {
        var body: JSONObject = JSONObject(pairs: ["status": .int(status), "error": .string(reasonPhrases[status] ?? "Error")])
        body.set("exception", exception.map(JSONValue.string))
        return .json(.object(body), status: status)
    }

    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 406: "Not Acceptable",
        408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Entity", 429: "Too Many Requests",
        500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}
