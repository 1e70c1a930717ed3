public import AggregateCore
public import AggregateJSON
public import Foundation

// The reader of the `--format json` document, beside its writer (``ResultRenderer/json(_:extra:)``, from
// ``ResultDocument``, ``ProviderResult/jsonValue`` and ``Item/jsonValue`` in AggregateCore): what one writes, the
// other reads back, so that a result fetched from `aggregate serve`
// renders locally in every format exactly as the result the server rendered.

extension ResultDocument {
    /// Reads the results back from a `--format json` document (`{"schemaVersion": 1, "results": [...]}`).
    ///
    /// Rendering the results read (JSON, NDJSON, CSV, Markdown or text) gives the bytes rendering the originals
    /// gave. What the document does not hold is not restored: raw bodies (`--raw`), the explicit limit and the
    /// parse notes of the original run.
    /// - Throws: ``AggregateError`` of kind `decoding` when `document` is not such a document, or its
    ///   `schemaVersion` is not ``schemaVersion``.
    public static func results(from document: JSONValue) throws(AggregateError) -> [ProviderResult] {
        guard let version = document["schemaVersion"]?.int, let results = document["results"]?.array else {
            throw AggregateError(.decoding, "not an aggregate result document (no schemaVersion and results)")
        }
        guard version == schemaVersion else {
            throw AggregateError(.decoding, "the result document has schemaVersion \(version); this aggregate reads version \(schemaVersion)")
        }
        var read: [ProviderResult] = []
        for result in results { read.append(try ProviderResult(json: result)) }
        return read
    }

    /// Reads the results back from the bytes of a `--format json` document.
    /// - Throws: ``AggregateError`` of kind `decoding` when `data` is not JSON or not such a document.
    public static func results(from data: Data) throws(AggregateError) -> [ProviderResult] {
        var notes = JSONParseNotes()
        let document: JSONValue
        do {
            document = try JSONParser().parse(data, notes: &notes)
        } catch {
            throw AggregateError(.decoding, "the result document is not JSON (\(error))")
        }
        var read = try results(from: document)
        for index in read.indices { read[index].parseNotes = notes }
        return read
    }
}

extension ProviderResult {
    /// Reads one result back from its JSON form (``jsonValue``). Items narrowed by `--fields` (`meta.fields`) are
    /// read with empty text for the fields left out, which the same selection leaves out again when rendered.
    /// - Throws: ``AggregateError`` of kind `decoding` when a required member is missing or not of its type.
    public init(json: JSONValue) throws(AggregateError) {
        func string(_ key: String, in value: JSONValue?, of what: String) throws(AggregateError) -> String {
            guard let text = value?[key]?.string else { throw AggregateError(.decoding, "\(what) is missing the string field '\(key)'") }
            return text
        }
        let provider = try string("provider", in: json, of: "a result")
        let operation = try string("operation", in: json, of: "a result")
        guard let query = json["query"]?.object else { throw AggregateError(.decoding, "a result is missing the object field 'query'") }
        let meta = try ResultMeta(json: json["meta"])
        var error: AggregateError?
        if let failure = json["error"], failure != .null {
            let text = try string("kind", in: failure, of: "an error")
            guard let kind = AggregateError.Kind(rawValue: text) else { throw AggregateError(.decoding, "unknown error kind '\(text)'") }
            error = AggregateError(kind, try string("message", in: failure, of: "an error"), provider: provider, httpStatus: failure["httpStatus"]?.int)
        }
        var items: [Item] = []
        for item in json["items"]?.array ?? [] {
            items.append(try Item(json: item, narrowed: meta.selectedFields != nil))
        }
        self.init(provider: provider, operation: operation, query: query, items: items, error: error, meta: meta)
    }
}

extension ResultMeta {
    /// Reads `meta` back from its JSON form (``jsonValue``); `elapsedMs` keeps the one decimal it was written with.
    /// - Throws: ``AggregateError`` of kind `decoding` for a missing or unknown `source`, or an unknown field name.
    public init(json: JSONValue?) throws(AggregateError) {
        guard let json, let text = json["source"]?.string, let source = DataSource(rawValue: text) else {
            throw AggregateError(.decoding, "a result's meta has no known source")
        }
        self.init(
            source: source, requests: json["requests"]?.int ?? 0, pages: json["pages"]?.int ?? 0, bytes: json["bytes"]?.int ?? 0,
            elapsedMs: json["elapsedMs"]?.double ?? 0, totalCount: json["totalCount"]?.int, nextCursor: json["nextCursor"]?.string)
        sortedLocally = json["sortedLocally"]?.string
        if let names = json["fields"]?.array {
            var paths: [ItemFieldPath] = []
            for name in names {
                guard let text = name.string, let path = try? ItemFieldPath(parsing: text) else {
                    throw AggregateError(.decoding, "a result's meta.fields holds an unknown field")
                }
                paths.append(path)
            }
            selectedFields = paths
        }
    }
}

extension Item {
    /// Reads an item back; with `narrowed` (the item was written by `--fields`), the required text fields left out
    /// are read as empty.
    init(json: JSONValue, narrowed: Bool) throws(AggregateError) {
        guard narrowed else {
            do {
                try self.init(json: json)
            } catch let error as AggregateError {
                throw error
            } catch {
                throw AggregateError(.decoding, "an item could not be read (\(error))")
            }
            return
        }
        var filled = json.object ?? JSONObject()
        for key in ["provider", "kind", "id", "title"] where filled[key] == nil { filled[key] = .string("") }
        do {
            try self.init(json: .object(filled))
        } catch let error as AggregateError {
            throw error
        } catch {
            throw AggregateError(.decoding, "an item could not be read (\(error))")
        }
    }
}
