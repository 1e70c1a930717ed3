public import AggregateCore
import Foundation

/// A Rails-style message board (`rails g scaffold Message name message message_date`): lists its
/// `messages.json` and posts new messages to it as JSON. The one provider that writes.
public struct MessageBoardProvider: Provider, ProviderTextView {
    static let name = ParameterKey<String>("name", required: true, help: "Who is posting.")
    static let message = ParameterKey<String>(
        "message", required: true, valueName: "TEXT", readsStandardInputOnDash: true,
        help: "The message; '-' reads it from standard input (UTF-8, several lines allowed; trailing line breaks are dropped).")

    public static let descriptor = ProviderDescriptor(
        name: "messageboard",
        displayName: "Message board",
        summary: "Messages on a Rails-style message board (messages.json): list them, or post a new one.",
        docsURL: "https://guides.rubyonrails.org/command_line.html#bin-rails-generate",
        defaultBaseURL: nil,
        baseURLVariables: ["MESSAGEBOARD_URL"],
        auth: [],
        authStyle: "none (the board must accept JSON posts without a CSRF token)",
        paginationStyle: "none: one response holds every message",
        operations: [
            ProviderOperation(name: "list", summary: "The board's messages, newest first.", itemKind: "message"),
            ProviderOperation(
                name: "post",
                summary: "Posts a new message dated now (UTC) and shows it as the board saved it. Never retried automatically.",
                itemKind: "message", declaring: [name, message], writes: true),
        ],
        cacheFreshness: CacheFreshness(defaultSeconds: 30),
        examples: [
            ProviderExample(["messageboard", "list"], "Every message on the sandbox board, newest first (the tutorial's list)."),
            ProviderExample(["messageboard", "list", "--limit", "3"], "The three newest messages."),
        ])

    public init() {}

    /// The message to post, as it will be sent.
    public struct Plan: Sendable {
        var message: String?
    }

    /// `echo hi | aggregate messageboard post --message -` reads "hi\n": the shell's line break is not part of it.
    public func plan(for query: Query, credentials: Credentials) throws -> Plan {
        Plan(message: query[Self.message].map(MessageBoardRequests.droppingTrailingLineBreaks))
    }

    public func echo(_ plan: Plan, into parameters: inout JSONObject) { parameters.set("message", plan.message.map(JSONValue.string)) }

    public func operation(named name: String, plan: Plan) -> any APIOperation<Plan> { name == "post" ? Post() : List() }

    /// `GET messages.json`.
    struct List: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            MessageBoardRequests.list(baseURL: call.query.baseURL)
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page { try MessageBoardNormalizer.list(response.json()) }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? { MessageBoardErrors.listFailed(response) }
    }

    /// `POST messages.json`: a write, never retried.
    struct Post: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            guard let name = call[MessageBoardProvider.name], let message = call.plan.message else {
                throw AggregateError(.usage, "post needs --name and --message")
            }
            return MessageBoardRequests.post(baseURL: call.query.baseURL, name: name, message: message, date: call.query.now)
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try MessageBoardNormalizer.saved(response, query: call.query)
        }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? { MessageBoardErrors.postFailed(response) }

        var interruptedWriteOutcome: String { "the message may or may not have been saved" }
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        let post = result.operation == "post"
        return result.items.map { post ? MessageBoardText.saved($0, style: style) : MessageBoardText.line(for: $0, style: style) }.joined()
    }
}

/// The requests the board understands, as its scaffold's routes and strong parameters expect them.
enum MessageBoardRequests {
    /// `GET {base}/messages.json`.
    static func list(baseURL: URL) -> HTTPRequestSpec {
        HTTPRequestSpec(url: baseURL.appendingEndpoint("/messages.json"), headers: ["Accept": "application/json"])
    }

    /// `POST {base}/messages.json` with `{"message": {"name", "message", "message_date"}}`.
    ///
    /// The body is always wrapped under `message`: Rails' parameter wrapping skips a body that already has a
    /// top-level `message` key, so an unwrapped body would reach the controller as a plain string.
    /// Not idempotent: the fetch layer never retries it.
    static func post(baseURL: URL, name: String, message: String, date: Date) -> HTTPRequestSpec {
        let body: JSONValue = [
            "message": [
                "name": .string(name),
                "message": .string(message),
                "message_date": .string(ISO8601.string(from: date)),
            ]
        ]
        return HTTPRequestSpec(
            method: "POST", url: baseURL.appendingEndpoint("/messages.json"),
            headers: ["Accept": "application/json", "Content-Type": "application/json"],
            body: JSONWriter().data(body), isIdempotent: false)
    }

    /// `text` without the line breaks at its end (spaces and inner line breaks are kept).
    static func droppingTrailingLineBreaks(_ text: String) -> String {
        var result = text
        while let last = result.last, last.isNewline { result.removeLast() }
        return result
    }
}

/// The text view: `"JSON is fun!" — by Joe on 2012-04-29`, wrapped to the terminal.
enum MessageBoardText {
    /// One message, continuation lines indented under the opening quote.
    static func line(for item: Item, style: TextStyle) -> String {
        wrapped(quoted(item), style: style)
    }

    /// A saved message with its id, and where the board says it now lives.
    static func saved(_ item: Item, style: TextStyle) -> String {
        var text = wrapped("Saved message \(item.id): " + quoted(item), style: style)
        if let location = item.extra["location"]?.string { text += "Location: \(location)\n" }
        return text
    }

    private static func quoted(_ item: Item) -> String {
        "\"\(item.title.trimmingCharacters(in: .whitespacesAndNewlines))\"" + byline(item)
    }

    /// `text` wrapped to the width; lines after the first start with one space.
    private static func wrapped(_ text: String, style: TextStyle) -> String {
        var lines = TextLayout.wrap(text, width: style.width, indent: " ")
        lines[0].removeFirst()
        return lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : $0 }.joined(separator: "\n") + "\n"
    }

    /// ` — by NAME on DATE`, leaving out what the board did not say.
    private static func byline(_ item: Item) -> String {
        var parts: [String] = []
        if let author = item.author { parts.append("by \(author)") }
        if let date = item.createdAt { parts.append("on \(day.withLock { $0.string(from: date) })") }
        return parts.isEmpty ? "" : " — " + parts.joined(separator: " ")
    }

    /// Made once: a formatter per line would cost more than the line.
    private static let day = LockedFormatter(ISO8601.utcFormatter(format: "yyyy-MM-dd"))
}
