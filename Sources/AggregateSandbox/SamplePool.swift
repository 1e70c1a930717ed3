import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandboxKit
import Foundation

/// An operation's emulator when its definition declares `sandbox` (``DefinitionSandboxSpec``): the records of all
/// its samples are one pool, and each answer is the first sample's envelope with the records the request selects —
/// its parameters checked, the pool filtered, sorted and paged by the declared kind within the API's result window
/// — and the totals and echoed fields recomputed.
struct SamplePool {
    let operation: ProviderDefinition.Operation
    let spec: DefinitionSandboxSpec
    let files: [String]
    let sample: @Sendable (String) -> String?
    /// The samples already parsed, so a large pool is not parsed again for every request.
    let parsed: ParsedSamples

    /// Where the requested page starts in the filtered pool, and how it is numbered.
    private struct Position {
        var start: Int
        var size: Int
        /// The page number as the API counts it (from `firstPage`).
        var page: Int
        var firstPage: Int
    }

    /// The answer to `request`; `error` makes a response in the definition's `errors.body` (for checks when the
    /// section declares no `invalid`, and for unreadable samples).
    func response(
        for request: SandboxRequest, context: SandboxContext, error: (Int, String) -> SandboxResponse
    ) throws(SandboxExit) -> SandboxResponse {
        func invalid(_ parameter: String, _ code: String, _ message: String) -> SandboxExit {
            guard let answer = spec.invalid else { return SandboxExit(error(400, message)) }
            let filled = Self.fill(answer.body, ["message": message, "parameter": parameter, "code": code])
            return SandboxExit(.json(filled, status: answer.status))
        }
        try check(request, invalid: invalid)
        let (envelope, pool) = try load(error: error)
        let matching = try PoolFilter(filters: spec.filters, request: request).apply(pool, invalid: invalid)
        let sorted = PoolSort(sorts: spec.sorts, request: request).apply(matching)
        let position = try position(request, count: sorted.count, invalid: invalid)
        let total = sorted.count
        let windowPages = spec.window.map { Self.pages(results: $0.results, size: position.size) }
        let pages = min(Self.pages(results: total, size: position.size), windowPages ?? Int.max)
        var body: JSONValue
        if let window = spec.window, position.start >= window.results, position.size > 0 {
            switch window.past {
            case .error(let answer):
                throw SandboxExit(.json(Self.fill(answer.body, ["message": "past the result window", "parameter": "page", "code": "invalid"]), status: answer.status))
            case .emptyPage(let members):
                body = echo(into: envelope, records: [], total: total, pages: pages, position: position, request: request)
                for member in members.members { body = Self.setting(member.value, at: JSONPath([.key(member.key)]).segments[...], in: body) }
                return .json(body)
            }
        }
        var end = min(total, position.start + position.size)
        if let window = spec.window, window.cutsLastPage { end = min(end, window.results) }
        let records = position.start < end ? Array(sorted[position.start..<end]) : []
        body = echo(into: envelope, records: records, total: total, pages: pages, position: position, request: request)
        var headers = HTTPHeaders()
        let pageOrdinal = position.page - position.firstPage + 1
        switch operation.pagination.kind {
        case .link:
            if let links = Self.linkHeader(page: pageOrdinal, last: pages, request: request, context: context) { headers.add("Link", links) }
        case .cursor:
            if let path = operation.pagination.cursorPath {
                let next: JSONValue = end < min(total, spec.window?.results ?? Int.max) ? .string(Self.cursor(for: end)) : .null
                body = Self.setting(next, at: path.segments[...], in: body)
            }
        case .pageNumber, .offset, .none:
            break
        }
        return .json(body, headers: headers)
    }

    // MARK: Steps

    /// The declared checks, in order: a required parameter absent or empty is `missing`; a value outside the
    /// declared values or range is `invalid`.
    private func check(_ request: SandboxRequest, invalid: (String, String, String) -> SandboxExit) throws(SandboxExit) {
        for check in spec.checks {
            let value = request.queryValue(check.parameter)?.trimmingCharacters(in: .whitespaces) ?? ""
            if value.isEmpty {
                if check.required { throw invalid(check.parameter, "missing", "\(check.parameter) is missing") }
                continue
            }
            if let values = check.values, !values.contains(value) {
                throw invalid(check.parameter, "invalid", "'\(value)' is not a valid \(check.parameter) (one of: \(values.joined(separator: ", ")))")
            }
            if let range = check.integer, !(Int(value).map(range.contains) ?? false) {
                throw invalid(check.parameter, "invalid", "\(check.parameter) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
            }
        }
    }

    /// The first sample (the envelope) and the records of every sample, in file order.
    private func load(error: (Int, String) -> SandboxResponse) throws(SandboxExit) -> (JSONValue, [JSONValue]) {
        var envelope: JSONValue?
        var records: [JSONValue] = []
        for file in files {
            guard let text = sample(file), let body = parsed.body(of: file, text: text),
                  let found = (try? operation.records.resolve(in: body))?.array
            else { throw SandboxExit(error(500, "the sample \(file) cannot be read as JSON with a '\(operation.records)' list")) }
            if envelope == nil { envelope = body }
            records += found
        }
        guard let envelope else { throw SandboxExit(error(500, "the definition lists no samples for '\(operation.descriptor.name)'")) }
        return (envelope, records)
    }

    /// The page size (declared parameter, clamped; else the paging's size) and where the page starts.
    private func position(_ request: SandboxRequest, count: Int, invalid: (String, String, String) -> SandboxExit) throws(SandboxExit) -> Position {
        let paging = operation.pagination
        var size = paging.pageSize ?? max(1, count)
        if let declared = spec.pageSize {
            size = declared.defaultSize
            if let text = request.queryValue(declared.parameter) {
                guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw invalid(declared.parameter, "invalid", "\(declared.parameter) must be a whole number, not '\(text)'")
                }
                size = min(declared.maximum, max(declared.minimum, number))
            }
        }
        func number(_ name: String, from low: Int) throws(SandboxExit) -> Int {
            guard let text = request.queryValue(name) else { return low }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= low else {
                throw invalid(name, "invalid", "\(name) must be a whole number from \(low), not '\(text)'")
            }
            return value
        }
        func start(page: Int, first: Int) -> Int {
            let (product, overflow) = (page - first).multipliedReportingOverflow(by: size)
            return overflow ? Int.max : product
        }
        switch paging.kind {
        case .pageNumber:
            let page = try number(paging.parameter ?? "page", from: paging.firstPage)
            return Position(start: start(page: page, first: paging.firstPage), size: size, page: page, firstPage: paging.firstPage)
        case .link:
            let page = try number("page", from: 1)
            return Position(start: start(page: page, first: 1), size: size, page: page, firstPage: 1)
        case .offset:
            let offset = try number(paging.parameter ?? "offset", from: 0)
            return Position(start: offset, size: size, page: offset / max(1, size), firstPage: 0)
        case .cursor:
            let name = paging.parameter ?? "cursor"
            guard let text = request.queryValue(name) else { return Position(start: 0, size: size, page: 0, firstPage: 0) }
            guard let offset = Self.offset(inCursor: text) else { throw invalid(name, "invalid", "the cursor '\(text)' is not one this server gave") }
            return Position(start: offset, size: size, page: offset / max(1, size), firstPage: 0)
        case .none:
            return Position(start: 0, size: spec.pageSize == nil ? max(1, count) : size, page: 0, firstPage: 0)
        }
    }

    /// The envelope with `records` in place and every declared echo filled in.
    private func echo(into envelope: JSONValue, records: [JSONValue], total: Int, pages: Int, position: Position, request: SandboxRequest) -> JSONValue {
        var body = Self.setting(.array(records), at: operation.records.segments[...], in: envelope)
        for (path, echo) in spec.echoes {
            let value: JSONValue
            switch echo {
            case .total: value = .int(total)
            case .pages: value = .int(pages)
            case .page: value = .int(position.page)
            case .pageSize: value = .int(position.size)
            case .parameter(let name, let fallback): value = .string(request.queryValue(name) ?? fallback)
            case .queryString(let suffix): value = .string(Self.formEncoded(request.query) + suffix)
            }
            body = Self.setting(value, at: path.segments[...], in: body)
        }
        return body
    }

    // MARK: Pieces

    static func pages(results: Int, size: Int) -> Int { size <= 0 ? 0 : (results + size - 1) / size }

    /// An opaque-looking cursor for the record at `offset`, and back.
    static func cursor(for offset: Int) -> String { "p" + String(offset, radix: 36) }

    static func offset(inCursor cursor: String) -> Int? {
        guard cursor.hasPrefix("p"), let offset = Int(cursor.dropFirst(), radix: 36), offset >= 0 else { return nil }
        return offset
    }

    /// `a=1&b=two+words`, each value form-encoded as Algolia shows the query string it was given.
    static func formEncoded(_ query: [(name: String, value: String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~ ")
        func encode(_ text: String) -> String {
            (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: " ", with: "+")
        }
        return query.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    /// `body` with `value` at `path`, creating a missing object key (an envelope of 2014 has no `incomplete_results`).
    static func setting(_ value: JSONValue, at path: ArraySlice<JSONPath.Segment>, in body: JSONValue) -> JSONValue {
        guard let segment = path.first else { return value }
        switch (segment, body) {
        case (.key(let key), .object(var object)), (.name(let key), .object(var object)):
            object.set(key, setting(value, at: path.dropFirst(), in: object[key] ?? .object(JSONObject())))
            return .object(object)
        default:
            return SamplePages.replacing(path, in: body, with: value)
        }
    }

    /// Strings with `{name}` placeholders filled in, through the whole value.
    static func fill(_ value: JSONValue, _ values: [String: String]) -> JSONValue {
        switch value {
        case .string(var text):
            for (name, replacement) in values { text = text.replacingOccurrences(of: "{\(name)}", with: replacement) }
            return .string(text)
        case .array(let elements): return .array(elements.map { fill($0, values) })
        case .object(let object): return .object(JSONObject(object.members.map { JSONObject.Member($0.key, fill($0.value, values)) }))
        default: return value
        }
    }

    /// GitHub's `Link`: `next` and `last` before the last page, `prev` and `first` after the first, absolute URLs
    /// to this sandbox with the request's other parameters (`per_page` among them) kept.
    static func linkHeader(page: Int, last: Int, request: SandboxRequest, context: SandboxContext) -> String? {
        func url(_ number: Int) -> String {
            let items = request.query.filter { $0.name != "page" }.map { ($0.name, $0.value) } + [("page", String(number))]
            return context.baseURL.appendingEndpoint(request.path).appendingQuery(items).absoluteString
        }
        var links: [String] = []
        if page < last {
            links.append("<\(url(page + 1))>; rel=\"next\"")
            links.append("<\(url(last))>; rel=\"last\"")
        }
        if page > 1 {
            links.append("<\(url(min(page - 1, max(1, last))))>; rel=\"prev\"")
            links.append("<\(url(1))>; rel=\"first\"")
        }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }
}

/// Parsed sample bodies by file, each kept with the text it was parsed from: a sample edited while the sandbox runs
/// is parsed again, an unchanged one is not.
final class ParsedSamples: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String: (text: String, body: JSONValue)] = [:]

    func body(of file: String, text: String) -> JSONValue? {
        lock.lock()
        let cached = bodies[file]
        lock.unlock()
        if let cached, cached.text == text { return cached.body }
        guard let body = try? JSONParser().parse(Data(text.utf8)) else { return nil }
        lock.lock()
        bodies[file] = (text, body)
        lock.unlock()
        return body
    }
}
