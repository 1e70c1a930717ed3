public import AggregateJSON
public import Foundation

/// Where a result's data came from.
public enum DataSource: String, Sendable {
    /// The live API (or any server given with `--base-url`).
    case live
    /// The bundled sandbox data (`--offline`).
    case offline
    /// The disk cache, with no request sent: every response was fresh there.
    case cache
    /// The disk cache, after the server confirmed the stored responses with `304 Not Modified`.
    case revalidated
    /// A cassette recorded with `--record` (`--replay DIR`): no request left the process. Providers still see the
    /// query as `live`, since a replay must send exactly the requests the recorded live run sent.
    case replay
}

/// Figures about how a result was fetched.
public struct ResultMeta: Sendable, Equatable {
    /// Live, offline, cache, revalidated or replay.
    public var source: DataSource
    /// HTTP exchanges made, retries and redirects included.
    public var requests: Int
    /// Pages read.
    public var pages: Int
    /// Response body bytes received.
    public var bytes: Int
    /// Wall time of the whole run in milliseconds.
    public var elapsedMs: Double
    /// The API's count of all matches, when it gives one.
    public var totalCount: Int?
    /// The cursor of the next page not fetched, when more exist.
    public var nextCursor: String?
    /// The `--sort` that reordered the items after fetching (e.g. `-createdAt`), or `nil` for the API's order.
    public var sortedLocally: String?
    /// The fields `--fields` kept in the output, or `nil` for all of them.
    public var selectedFields: [ItemFieldPath]?

    /// Creates meta figures.
    public init(source: DataSource, requests: Int = 0, pages: Int = 0, bytes: Int = 0, elapsedMs: Double = 0, totalCount: Int? = nil, nextCursor: String? = nil) {
        self.source = source
        self.requests = requests
        self.pages = pages
        self.bytes = bytes
        self.elapsedMs = elapsedMs
        self.totalCount = totalCount
        self.nextCursor = nextCursor
    }

    /// The JSON contract's `meta` object.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "source": .string(source.rawValue),
            "requests": .int(requests),
            "pages": .int(pages),
            "bytes": .int(bytes),
            "elapsedMs": .number(String(format: "%.1f", elapsedMs)),
            "totalCount": totalCount.map(JSONValue.int) ?? .null,
            "nextCursor": .optional(nextCursor),
        ]
        // Present only when used, so the default output stays as it was.
        object.set("sortedLocally", sortedLocally.map(JSONValue.string))
        object.set("fields", selectedFields.map { .array($0.map { .string($0.description) }) })
        return .object(object)
    }
}

/// The outcome of one provider invocation: its items, or the error that stopped it.
public struct ProviderResult: Sendable {
    /// The provider's name.
    public var provider: String
    /// The operation's name.
    public var operation: String
    /// The parameters used.
    public var query: JSONObject
    /// The items (empty when failed).
    public var items: [Item]
    /// Why it failed, or `nil` on success.
    public var error: AggregateError?
    /// How it was fetched.
    public var meta: ResultMeta
    /// The raw response bodies of the pages read, in order (for `--raw`).
    public var rawBodies: [Data]
    /// The limit the user asked for explicitly, or `nil` when the default applied (for text views; not in JSON).
    public var explicitLimit: Int?
    /// What reading the pages' JSON had to repair, e.g. lone surrogates (for `--verbose`; not in JSON).
    public var parseNotes: JSONParseNotes

    /// Creates a result.
    public init(
        provider: String, operation: String, query: JSONObject = JSONObject(), items: [Item] = [], error: AggregateError? = nil,
        meta: ResultMeta, rawBodies: [Data] = [], explicitLimit: Int? = nil, parseNotes: JSONParseNotes = JSONParseNotes()
    ) {
        self.explicitLimit = explicitLimit
        self.parseNotes = parseNotes
        self.provider = provider
        self.operation = operation
        self.query = query
        self.items = items
        self.error = error
        self.meta = meta
        self.rawBodies = rawBodies
    }

    /// One item's JSON form, narrowed to `meta.selectedFields` when `--fields` was given.
    public func itemJSON(_ item: Item) -> JSONValue {
        meta.selectedFields.map(item.jsonValue(selecting:)) ?? item.jsonValue
    }

    /// `ok` or `failed`.
    public var status: String { error == nil ? "ok" : "failed" }

    /// The result in the JSON contract's shape.
    public var jsonValue: JSONValue {
        [
            "provider": .string(provider),
            "operation": .string(operation),
            "query": .object(query),
            "status": .string(status),
            "items": .array(items.map(itemJSON)),
            "error": error?.jsonValue ?? .null,
            "meta": meta.jsonValue,
        ]
    }
}

/// The `--format json` document.
public enum ResultDocument {
    /// The version of the JSON contract; bumped only for incompatible changes.
    public static let schemaVersion = 1

    /// `{"schemaVersion": 1, "results": [...]}` plus any extra top-level members (e.g. `comparison`).
    public static func jsonValue(_ results: [ProviderResult], extra: [JSONObject.Member] = []) -> JSONValue {
        var object = JSONObject()
        object["schemaVersion"] = .int(schemaVersion)
        object["results"] = .array(results.map(\.jsonValue))
        for member in extra { object[member.key] = member.value }
        return .object(object)
    }
}
