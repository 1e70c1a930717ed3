import AggregateCore
import AggregateJSON
import Foundation

/// Pure functions from message board responses to items and pages.
///
/// Boards answer in two shapes: Rails 3 with `include_root_in_json` wraps each record as `{"message": {...}}`,
/// jbuilder scaffolds (Rails 4+) send flat records with a `url`. A flat record also has a `message` member (the
/// text), so a record counts as wrapped only when its `message` member is an object.
enum MessageBoardNormalizer {
    /// A `GET /messages.json` body: every message, newest first.
    static func list(_ json: JSONValue) throws -> Page {
        guard let elements = json.array else {
            let article = ["object", "array"].contains(json.typeName) ? "an" : "a"
            throw AggregateError(.decoding, "/messages.json sent \(article) \(json.typeName) where a JSON array of messages was expected")
        }
        let items = newestFirst(elements.compactMap(item))
        return Page(items: items, next: nil, totalCount: items.count)
    }

    /// The answer to a post: the saved message from the body, with the `Location` header in `extra.location`.
    ///
    /// The message was saved when this runs (the status is 2xx), so anything unreadable here says so: the user
    /// must not post it again without checking.
    static func saved(_ response: HTTPResponse, query: Query) throws -> Page {
        let location = response.headers["Location"].flatMap { URL(string: $0, relativeTo: response.url)?.absoluteString }
        var saved: Item
        if response.body.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            saved = try fromLocation(location, status: response.status, query: query)
        } else {
            let json: JSONValue
            do {
                json = try response.json()
            } catch let error as AggregateError {
                throw mayHaveBeenSaved(error.message, status: response.status)
            }
            guard let record = fields(json), let item = item(record) else {
                throw mayHaveBeenSaved("the board's answer (HTTP \(response.status)) is not a saved message with an id", status: response.status)
            }
            saved = item
        }
        saved.extra.set("location", location.map(JSONValue.string))
        return Page(items: [saved], next: nil, totalCount: nil)
    }

    /// A message built from what was posted, for boards that answer `head :created, location: ...` (no body).
    private static func fromLocation(_ location: String?, status: Int, query: Query) throws -> Item {
        guard let location, let id = URL(string: location)?.deletingPathExtension().lastPathComponent, !id.isEmpty, id != "/" else {
            throw mayHaveBeenSaved("the board accepted the post (HTTP \(status)) but sent back neither the message nor its Location", status: status)
        }
        var item = Item(provider: "messageboard", kind: "message", id: id, title: query[MessageBoardProvider.message] ?? "")
        item.author = query[MessageBoardProvider.name]
        item.createdAt = query.now
        return item
    }

    private static func mayHaveBeenSaved(_ problem: String, status: Int) -> AggregateError {
        AggregateError(
            .decoding,
            "\(problem); the message was probably saved: check with 'aggregate messageboard list' before posting it again",
            httpStatus: status)
    }

    /// The record inside a list element or a create answer, in either shape.
    static func fields(_ element: JSONValue) -> JSONValue? {
        if let inner = element["message"], inner.object != nil { return inner }
        return element.object != nil ? element : nil
    }

    /// One message; `nil` for an element without an id. Rails casts a string or a number into a string column.
    static func item(_ element: JSONValue) -> Item? {
        guard let record = fields(element), let id = record["id"]?.idString else { return nil }
        let text = record["message"]?.nonEmptyString ?? record["message"]?.numberText
        var item = Item(provider: "messageboard", kind: "message", id: id, title: text ?? "(empty message)")
        item.author = record["name"]?.nonEmptyString ?? record["name"]?.numberText
        // message_date is the date the poster gave (a `date` column: day precision); created_at is when it was stored.
        item.createdAt = ["message_date", "created_at"].lazy.compactMap { record[$0]?.string.flatMap(ISO8601.date(from:)) }.first
        item.url = record["url"]?.nonEmptyString
        // The board's own timestamps, at the precision it sent (Rails 5+ sends milliseconds).
        for (key, member) in [("createdAt", "created_at"), ("updatedAt", "updated_at")] {
            item.extra.set(key, record[member]?.string.flatMap(ISO8601.utcString(keepingPrecisionOf:)).map(JSONValue.string))
        }
        return item
    }

    /// Newest first: by the message's date, then by when it was stored, then by id (higher ids are newer).
    static func newestFirst(_ items: [Item]) -> [Item] {
        func key(_ item: Item) -> (Date, Date, Int, String) {
            let stored = item.extra["createdAt"]?.string.flatMap(ISO8601.date(from:))
            return (item.createdAt ?? .distantPast, stored ?? .distantPast, Int(item.id) ?? Int.min, item.id)
        }
        return items.sorted { key($0) > key($1) }
    }
}

/// Explains unsuccessful board responses in one line each.
enum MessageBoardErrors {
    /// What the board's owner must change for CSRF rejections, in development (HTML page) and production (JSON) alike.
    static let csrfFix = "it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)"

    /// Why listing or posting failed, with the kind the status stands for.
    static func explain(_ response: HTTPResponse, posting: Bool) -> AggregateError {
        let message = (posting ? postProblem(response) : nil) ?? (posting ? "not saved: " : "") + problem(response)
        return AggregateError(APIErrorKit.kind(forStatus: response.status), message, httpStatus: response.status)
    }

    /// What only a post can run into. 422 is either the board's validation errors or a CSRF rejection.
    private static func postProblem(_ response: HTTPResponse) -> String? {
        let json = try? JSONParser().parse(response.body)
        let framework = json.flatMap(frameworkError)
        switch response.status {
        case 422:
            if let json, let problems = validationProblems(json) { return "not saved: \(problems.joined(separator: "; ")) (HTTP 422)" }
            let frameworkTexts = [framework?.error, framework?.exception].compactMap { $0 }
            if response.looksLikeHTML || frameworkTexts.contains(where: { $0.localizedCaseInsensitiveContains("AuthenticityToken") }) {
                return "not saved: the board rejected a JSON post without a CSRF token (HTTP 422 with \(response.looksLikeHTML ? "an HTML page" : "no field errors")); \(csrfFix)"
            }
            if framework != nil {
                // Rails in production answers a .json request's CSRF failure with {"status":422,"error":"Unprocessable Entity"}.
                return "not saved: the board rejected the post without naming a field (\(describe(response))), as a board in production mode answers a JSON post without a CSRF token; \(csrfFix)"
            }
            return "not saved: the board rejected the message (\(describe(response)))"
        case 429:
            // Writes are never retried (RetryPolicy), so "retries ran out" would be untrue here.
            return "not saved: the board is rate limiting (HTTP 429), and a POST is never retried; wait before posting again"
        case 500...599:
            return "the board failed while saving (\(describe(response))), so the message may or may not have been saved; check with 'aggregate messageboard list'"
        default:
            return nil
        }
    }

    /// The explanation shared by both operations.
    private static func problem(_ response: HTTPResponse) -> String {
        switch response.status {
        case 404:
            return "the board has no /messages.json at this address (HTTP 404): set MESSAGEBOARD_URL or --base-url to the board's root, e.g. http://localhost:3000"
        case 401, 403:
            return "the board refused access (\(describe(response))): it wants a login, and aggregate sends no credentials to message boards"
        case 429:
            return "the board is rate limiting (HTTP 429) and retries ran out; wait before trying again"
        default:
            return "the board answered \(describe(response))"
        }
    }

    /// `HTTP 500 Internal Server Error: <exception>`, `HTTP 400 with an HTML page`, `HTTP 418: "<body>"` or `HTTP 418`.
    static func describe(_ response: HTTPResponse) -> String {
        let status = "HTTP \(response.status)"
        if let json = try? JSONParser().parse(response.body), let framework = frameworkError(json) {
            return "\(status) \(framework.error)" + (framework.exception.map { ": \($0)" } ?? "")
        }
        if response.looksLikeHTML { return "\(status) with an HTML page" }
        if response.body.isEmpty { return status }
        return "\(status): \"\(response.excerpt(limit: 80))\""
    }

    /// Rails validation errors as `attribute message` sentences: `ActiveModel::Errors#as_json` is
    /// `{"attribute": ["message", ...]}`; some apps send `{"errors": {...}}` or full messages `["Name can't be blank"]`.
    static func validationProblems(_ json: JSONValue) -> [String]? {
        if let errors = json["errors"], errors.object != nil || errors.array != nil { return validationProblems(errors) }
        if let sentences = json.array?.compactMap(\.nonEmptyString), !sentences.isEmpty, sentences.count == json.array?.count {
            return sentences
        }
        guard let members = json.object?.members, !members.isEmpty else { return nil }
        var problems: [String] = []
        for member in members {
            guard let values = member.value.array, !values.isEmpty else { return nil }
            let messages = values.compactMap(\.nonEmptyString)
            guard messages.count == values.count else { return nil }
            let attribute = member.key == "base" ? "" : member.key.replacingOccurrences(of: "_", with: " ") + " "
            problems += messages.map { attribute + $0 }
        }
        return problems.isEmpty ? nil : problems
    }

    /// What Rails' exception pages send for a JSON request: `{"status": 422, "error": "Unprocessable Entity"}`
    /// (production), plus `exception` in development API apps.
    static func frameworkError(_ json: JSONValue) -> (error: String, exception: String?)? {
        guard json["status"] != nil, let error = json["error"]?.nonEmptyString else { return nil }
        return (error, json["exception"]?.nonEmptyString)
    }
}
