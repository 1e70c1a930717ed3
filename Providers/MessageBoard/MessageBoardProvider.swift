public import AggregateCore
public import AggregateJSON
import AggregateText
import Foundation

/// A Rails-style message board (`rails g scaffold Message name message message_date`): lists its
/// `messages.json` and posts new messages to it as JSON. The one provider that writes.
public struct MessageBoardProvider: Provider, ProviderTextView {
    static let name = ParameterKey<String>("name", required: true, help: "Who is posting.")
    static let message = ParameterKey<String>(
        "message", required: true, valueName: "TEXT", readsStandardInputOnDash: true,
        help: "The message; '-' reads it from standard input (UTF-8, at most 1 MiB, several lines allowed; trailing line breaks are dropped).")

    /// The descriptor's name, stated without making the descriptor.
    public static let providerName = "messageboard"

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
        Plan(message: query[Self.message].map { String($0.reversed().drop(while: \.isNewline).reversed()) })
    }

    public func echo(_ plan: Plan, into parameters: inout JSONObject) { parameters.set("message", plan.message.map(JSONValue.string)) }

    public func operation(named name: String, plan: Plan) -> any APIOperation<Plan> { name == "post" ? Post() : List() }

    /// `GET {base}/messages.json`.
    struct List: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.url("/messages.json"), headers: ["Accept": "application/json"])
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page { try MessageBoardNormalizer.list(response.json()) }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? {
            MessageBoardErrors.explain(response, posting: false)
        }
    }

    /// `POST {base}/messages.json` with `{"message": {"name", "message", "message_date"}}`: a write, never retried.
    ///
    /// The body is always wrapped under `message`: Rails' parameter wrapping skips a body that already has a
    /// top-level `message` key, so an unwrapped body would reach the controller as a plain string.
    struct Post: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            guard let name = call[MessageBoardProvider.name], let message = call.plan.message else {
                throw AggregateError(.usage, "post needs --name and --message")
            }
            let date = ISO8601.string(from: call.query.now)
            let body: JSONValue = ["message": ["name": .string(name), "message": .string(message), "message_date": .string(date)]]
            return HTTPRequestSpec(
                method: "POST", url: call.url("/messages.json"), headers: ["Accept": "application/json", "Content-Type": "application/json"],
                body: JSONWriter().data(body), isIdempotent: false)
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try MessageBoardNormalizer.saved(response, query: call.query)
        }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? {
            MessageBoardErrors.explain(response, posting: true)
        }

        var interruptedWriteOutcome: String { "the message may or may not have been saved" }
    }

    // MARK: Text view

    /// `"JSON is fun!" — by Joe on 2012-04-29`, wrapped to the terminal; a saved message with its id, and where
    /// the board says it now lives.
    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        result.items.map { item in
            let quoted = "\"\(item.title.trimmingCharacters(in: .whitespacesAndNewlines))\"" + Self.byline(item)
            guard result.operation == "post" else { return Self.wrapped(quoted, style: style) }
            let location = item.extra["location"]?.string.map { "Location: \($0)\n" } ?? ""
            return Self.wrapped("Saved message \(item.id): " + quoted, style: style) + location
        }.joined()
    }

    /// `text` wrapped to the width; lines after the first start with one space, under the opening quote.
    private static func wrapped(_ text: String, style: TextStyle) -> String {
        var lines = TextLayout.wrap(text, width: style.width, indent: " ")
        lines[0].removeFirst()
        return lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : $0 }.joined(separator: "\n") + "\n"
    }

    /// ` — by NAME on DATE`, leaving out what the board did not say.
    private static func byline(_ item: Item) -> String {
        let parts = [item.author.map { "by \($0)" }, item.createdAt.map { "on \(ISO8601.string(from: $0).prefix(10))" }].compactMap { $0 }
        return parts.isEmpty ? "" : " — " + parts.joined(separator: " ")
    }
}
