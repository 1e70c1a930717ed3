public import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// A provider run from a ``ProviderDefinition``: the same stages as a Swift provider, driven by the definition.
public struct DeclarativeProvider: RunnableProvider {
    /// The definition it runs.
    public let definition: ProviderDefinition

    /// Creates the provider of `definition`.
    public init(_ definition: ProviderDefinition) { self.definition = definition }

    public var descriptor: ProviderDescriptor { definition.descriptor }

    // MARK: Stages

    public func configure(_ query: inout Query) throws {
        query.environment = descriptor.declaredEnvironment(from: query.environment)
        let operation = try operation(query)
        if query.source == .offline, !definition.hasSamples(for: operation.descriptor.name) {
            throw AggregateError(
                .config, "\(descriptor.name) has no sample data: its definition lists no samples for '\(operation.descriptor.name)'. Run it without --offline (--base-url URL for a server of your own)")
        }
        if descriptor.requiresCredentials, credential(query) == nil { throw descriptor.missingCredentialsError }
        try ResultWindow.checkDependencies(of: operation, query: query)
    }

    public func resolve(_ query: inout Query, using client: FetchClient) async throws {
        // A parent->child run keeps, for each request it sends, which step of the fan-out it is (FanOut.swift).
        if try operation(query).parent != nil { query.plan = FanOutLedger() }
    }

    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        let operation = try operation(query)
        if operation.parent != nil { return try fanOutRequest(operation, query: query, cursor: cursor) }
        return try request(operation, query: query, cursor: cursor)
    }

    /// The request of `operation` (whose parameters `query` holds) for the page at `cursor`.
    func request(_ operation: ProviderDefinition.Operation, query: Query, cursor: String?) throws -> HTTPRequestSpec {
        let paging = operation.pagination
        let headers = renderHeaders(definition.headers + operation.headers, query)
        if paging.kind == .link, let cursor, let next = URL(string: cursor) {
            return HTTPRequestSpec(method: operation.method, url: next, headers: headers, credential: credential(query)?.credential)
        }
        guard let path = operation.path.render({ parameterText($0, query)?.addingPercentEncoding(withAllowedCharacters: .pathSegmentAllowed) }) else {
            throw AggregateError(
                .usage, "\(definition.source): \(operation.pointer)/request/path: \(operation.path.names.map { "{\($0)}" }.joined(separator: ", ")) needs a value; give the parameter")
        }
        var items = operation.query.compactMap { entry in entry.template.render { parameterText($0, query) }.map { (entry.name, $0) } }
        if let since = operation.since, let time = try DefinitionSince.time(in: query) { items += since.items(after: time) }
        items += pagingItems(paging, cursor: cursor)
        return HTTPRequestSpec(
            method: operation.method, url: query.baseURL.appendingEndpoint(path).appendingQuery(items), headers: headers,
            credential: credential(query)?.credential)
    }

    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        let operation = try operation(query)
        if operation.parent != nil { return try fanOutPage(page, operation, query: query) }
        return try self.page(page, of: operation, query: query)
    }

    /// The records of `operation` in `json`, all of them (paging counts them) and those its `filter` keeps.
    func records(_ operation: ProviderDefinition.Operation, in json: JSONValue) throws(AggregateError) -> (all: [JSONValue], kept: [JSONValue]) {
        let records = try records(of: operation, in: json)
        return (records, operation.filter.map { filter in records.filter(filter.accepts) } ?? records)
    }

    /// One page of `operation`: its kept records as items, and where its next page is.
    func page(_ page: RawPage, of operation: ProviderDefinition.Operation, query: Query) throws -> Page {
        let json = try page.json()
        let all = try records(of: operation, in: json)
        // Never past `maxResults`: GitHub serves page 34 whole (results 991-1020) although its window is 1,000.
        let window = ResultWindow(paging: operation.pagination, url: page.url)
        let records = window.map { Array(all.prefix($0.kept(of: all.count))) } ?? all
        let kept = operation.filter.map { filter in records.filter(filter.accepts) } ?? records
        let mapper = DefinitionMapper(
            provider: descriptor.name, operation: operation, source: definition.source, linkBase: descriptor.defaultBaseURL.flatMap { URL(string: $0 + "/") })
        var mapped = kept.compactMap { mapper.item(from: $0) }
        if mapped.isEmpty, let first = kept.first { throw unmappable(operation, record: first, count: kept.count) }
        if operation.since != nil { mapped = DefinitionSince.newer(mapped, than: try DefinitionSince.time(in: query)) }
        // Stable sorts from the last key to the first order by the first key, ties by the next.
        let items = operation.order.reversed().reduce(mapped) { items, sort in sort.sorted(items) }
        let paging = operation.pagination
        let total = paging.totalCountPath.flatMap { try? $0.resolve(in: json) }.flatMap { $0.int ?? $0.string.flatMap { Int($0) } }
        let next = records.isEmpty || records.count < all.count ? nil : DefinitionPaging(paging).next(after: page, json: json, records: records.count, total: total)
        return Page(items: items, next: next, totalCount: total)
    }

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        let error = DefinitionErrorReader(definition: definition, environment: query.environment, now: query.now).error(for: response)
        return fanOutError(error, response: response, query: query)
    }

    public func interruptedWriteOutcome(for query: Query) -> String { "it may or may not have taken effect" }

    public func retryDelay(for response: HTTPResponse, now: Date) -> TimeInterval? {
        DefinitionErrorReader(definition: definition, environment: [:], now: now).retryDelay(for: response)
    }

    public func textView(_ result: ProviderResult, style: TextStyle) -> String? {
        guard let line = definition.textLine else { return nil }
        return result.items.map { item in
            let json = item.jsonValue
            let text = line.render(keepingEmpty: true) { name in
                (try? JSONPath(parsing: name).resolve(in: json)).flatMap(ValueRule.text)
            } ?? ""
            return TextLayout.truncate(text, to: style.width) + "\n"
        }.joined()
    }

    // MARK: Parts

    /// The records at the operation's `records` path.
    /// - Throws: a `decoding` error naming the definition's file, the pointer and what the response has there.
    private func records(of operation: ProviderDefinition.Operation, in json: JSONValue) throws(AggregateError) -> [JSONValue] {
        let found: JSONValue
        do throws(JSONPathLookupError) { found = try operation.records.resolve(in: json) } catch {
            throw AggregateError(.decoding, "\(definition.source): \(operation.pointer)/records: '\(operation.records)' is not in the response: \(error.reason)")
        }
        guard let records = found.array else {
            let what = found.object.map { "an object (keys there: \($0.keys.prefix(20).joined(separator: ", ")))" } ?? "a \(found.typeName)"
            throw AggregateError(.decoding, "\(definition.source): \(operation.pointer)/records: '\(operation.records)' is \(what), not a list of records")
        }
        return records
    }

    /// A page whose records all lack an id or a title: the mapping, not the API, is wrong, so the run says where
    /// instead of showing `(no results)`.
    private func unmappable(_ operation: ProviderDefinition.Operation, record: JSONValue, count: Int) -> AggregateError {
        let mapping = operation.item
        let (field, rule) = mapping.id.text(in: record).map { $0.isEmpty } == false ? ("title", mapping.title) : ("id", mapping.id)
        let records = count == 1 ? "the 1 record" : "none of the \(count) records"
        return AggregateError(
            .decoding,
            "\(definition.source): \(operation.pointer)/item/\(field): \(records) at '\(operation.records)' gave a \(field), so no item could be made (\(rule.whyEmpty(in: record))); fix the path (aggregate check \(definition.source) shows every field)")
    }

    func operation(_ query: Query) throws(AggregateError) -> ProviderDefinition.Operation {
        guard let operation = definition.operation(named: query.operation) else {
            throw AggregateError(.usage, "\(descriptor.name) has no operation '\(query.operation)'; operations: \(descriptor.operations.map(\.name).joined(separator: ", "))")
        }
        return operation
    }

    /// The first declared credential that is set (the core attaches it toward the provider's origin only).
    func credential(_ query: Query) -> ResolvedCredential? {
        Credentials(declaredBy: descriptor, environment: query.environment).first
    }

    /// A parameter's value as text: what was typed or its default; a boolean that is not set has none.
    private func parameterText(_ name: String, _ query: Query) -> String? {
        guard let value = query.parameters[name] else { return nil }
        if case .bool(false) = value { return nil }
        return ValueRule.text(value)
    }

    private func renderHeaders(_ templates: [ProviderDefinition.NamedTemplate], _ query: Query) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var seen: [String: Int] = [:]
        var fields: [(name: String, value: String)] = []
        for entry in templates {
            guard let value = entry.template.render({ parameterText($0, query) }) else { continue }
            if let index = seen[entry.name.lowercased()] {
                fields[index].value = value
            } else {
                seen[entry.name.lowercased()] = fields.count
                fields.append((entry.name, value))
            }
        }
        for field in fields { headers.add(field.name, field.value) }
        return headers
    }

    /// The query parameters that ask for the page at `cursor`.
    private func pagingItems(_ paging: ProviderDefinition.Pagination, cursor: String?) -> [(String, String)] {
        var items: [(String, String)] = []
        switch paging.kind {
        case .pageNumber:
            let ordinal = cursor.flatMap { Int($0) } ?? 1
            items.append((paging.parameter ?? "page", String(paging.firstPage + ordinal - 1)))
        case .offset:
            items.append((paging.parameter ?? "offset", cursor ?? "0"))
        case .cursor:
            if let cursor { items.append((paging.parameter ?? "cursor", cursor)) }
        case .link, .none:
            break
        }
        if let name = paging.pageSizeParameter, let size = paging.pageSize { items.append((name, String(size))) }
        return items
    }
}

extension CharacterSet {
    /// What may stay unescaped in one path segment.
    static let pathSegmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return allowed
    }()
}

/// Where the next page is, by the definition's paging kind.
struct DefinitionPaging {
    let paging: ProviderDefinition.Pagination

    init(_ paging: ProviderDefinition.Pagination) { self.paging = paging }

    /// The next page after `page`, which held `records` records; `nil` on the last page.
    func next(after page: HTTPResponse, json: JSONValue, records: Int, total: Int?) -> Page.Next? {
        let sent = page.url.flatMap { url in paging.parameter.flatMap { url.queryValue($0) } }.flatMap { Int($0) }
        switch paging.kind {
        case .pageNumber:
            let size = paging.pageSize ?? max(1, records)
            let ordinal = (sent ?? paging.firstPage) - paging.firstPage + 1
            var pages = paging.maxPages ?? Int.max
            if let maxResults = paging.maxResults { pages = min(pages, (maxResults + size - 1) / size) }
            if let path = paging.totalPagesPath {
                let declared = (try? path.resolve(in: json)).flatMap { $0.int ?? $0.string.flatMap { Int($0) } } ?? ordinal
                let last = min(declared, pages)
                return ordinal < last ? .numberedPages(current: ordinal, total: last, pageSize: size) : nil
            }
            return records >= size && ordinal < pages ? .cursor(String(ordinal + 1)) : nil
        case .offset:
            let size = paging.pageSize ?? records
            let offset = (sent ?? 0) + records
            guard records >= size else { return nil }
            if let total, offset >= total { return nil }
            if let maxResults = paging.maxResults, offset >= maxResults { return nil }
            if let maxPages = paging.maxPages, offset >= maxPages * max(1, size) { return nil }
            return .cursor(String(offset))
        case .cursor:
            guard let path = paging.cursorPath, let value = try? path.resolve(in: json), !ValueRule.isEmpty(value),
                  let cursor = ValueRule.text(value)
            else { return nil }
            return .cursor(cursor)
        case .link:
            guard let next = LinkHeader.url(page.headers["Link"], relation: "next") else { return nil }
            if let maxResults = paging.maxResults, let size = paging.pageSize,
               let number = URL(string: next)?.queryValue("page").flatMap({ Int($0) }), (number - 1) * size >= maxResults {
                return nil
            }
            return .cursor(next)
        case .none:
            return nil
        }
    }
}

/// RFC 8288 `Link` header fields: `<https://...&page=2>; rel="next", <...>; rel="last"`.
public enum LinkHeader {
    /// The target of the first link whose `rel` names `relation`, or `nil`.
    public static func url(_ header: String?, relation: String) -> String? {
        guard let header else { return nil }
        // Split at '<' rather than ',': a target may hold commas (`tags=(story,poll)`), never a raw '<'.
        for chunk in header.split(separator: "<") {
            guard let close = chunk.firstIndex(of: ">") else { continue }
            let target = chunk[..<close]
            let relations = chunk[chunk.index(after: close)...].split(separator: ";").compactMap { parameter -> [String]? in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { return nil }
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: ", ")).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.lowercased().split(separator: " ").map(String.init)
            }.flatMap { $0 }
            if relations.contains(relation.lowercased()) { return String(target) }
        }
        return nil
    }
}
