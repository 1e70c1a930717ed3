import AggregateCore
import AggregateJSON
import Foundation

/// Where a parent->child run is: asking the parent for a page of records, or asking the child for a page of the
/// first parent record still in the queue. It is the run's cursor (as JSON text), so the fetch layer pages through
/// the whole fan-out as one list: it stops as soon as it has `--limit` items, so no child is asked for more than that
/// needs, and every request goes through it (`--verbose`, `meta.requests`, retries, the rate limiter).
struct FanOutState: Sendable, Equatable {
    /// One parent record's share: the values it fills and the fields it passes on to its children's items.
    struct Parent: Sendable, Equatable {
        var parameters: JSONObject
        var fields: JSONObject
    }

    /// The parent page to ask for next (`nil`: its first), when asking the parent.
    var parentCursor: String?
    /// The parent records not yet finished, the current one first; empty while asking the parent.
    var queue: [Parent]
    /// The current child's page (`nil`: its first).
    var childCursor: String?
    /// The parent's next page once the queue is done, `nil` when the parent is done (or the cap is reached).
    var parentNext: String?
    /// How many parent records the run has taken so far (the cap counts them).
    var taken: Int

    /// The first request of a run: the parent's first page.
    static let start = FanOutState(parentCursor: nil, queue: [], childCursor: nil, parentNext: nil, taken: 0)

    var asksParent: Bool { queue.isEmpty }

    /// The cursor text.
    var text: String {
        var object = JSONObject()
        if asksParent {
            object["parent"] = parentCursor.map(JSONValue.string) ?? .null
        } else {
            object["queue"] = .array(queue.map { .object(["parameters": .object($0.parameters), "fields": .object($0.fields)]) })
            object["child"] = childCursor.map(JSONValue.string) ?? .null
            object["parentNext"] = parentNext.map(JSONValue.string) ?? .null
        }
        object["taken"] = .number(String(taken))
        return String(decoding: JSONWriter().data(.object(object)), as: UTF8.self)
    }

    /// The state a cursor text holds.
    init(text: String) throws(AggregateError) {
        guard let json = try? JSONParser().parse(Data(text.utf8)), json.object != nil else {
            throw AggregateError(.usage, "'\(text)' is not a cursor of this operation (it asks a parent first)")
        }
        taken = json["taken"]?.int ?? 0
        parentCursor = json["parent"]?.string
        childCursor = json["child"]?.string
        parentNext = json["parentNext"]?.string
        queue = (json["queue"]?.array ?? []).map { entry in
            Parent(parameters: entry["parameters"]?.object ?? JSONObject(), fields: entry["fields"]?.object ?? JSONObject())
        }
    }

    init(parentCursor: String?, queue: [Parent], childCursor: String?, parentNext: String?, taken: Int) {
        (self.parentCursor, self.queue, self.childCursor, self.parentNext, self.taken) = (parentCursor, queue, childCursor, parentNext, taken)
    }

    /// After the current child's last page: the next parent record's children, or the parent's next page, or the end.
    var afterChild: FanOutState? {
        if queue.count > 1 { return FanOutState(parentCursor: nil, queue: Array(queue.dropFirst()), childCursor: nil, parentNext: parentNext, taken: taken) }
        return parentNext.map { FanOutState(parentCursor: $0, queue: [], childCursor: nil, parentNext: nil, taken: taken) }
    }
}

/// Which state each request of a run was sent for, so that `normalize` (which sees only the response) reads its
/// page as a parent's or a child's. One per run, in ``Query/plan``.
final class FanOutLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [String: FanOutState] = [:]
    private var last: FanOutState?

    func record(_ state: FanOutState, for url: URL) {
        lock.lock()
        defer { lock.unlock() }
        states[url.absoluteString] = state
        last = state
    }

    /// The state `url` was asked for; the latest one when the URL is not known (a redirect's target), since the
    /// fan-out pages one request at a time.
    func state(for url: URL?) -> FanOutState? {
        lock.lock()
        defer { lock.unlock() }
        return url.flatMap { states[$0.absoluteString] } ?? last
    }
}

extension DeclarativeProvider {
    /// The request for `cursor` of an operation with a `parent`: the parent's page, or the current parent record's
    /// child page with the parameters it fills.
    func fanOutRequest(_ operation: ProviderDefinition.Operation, query: Query, cursor: String?) throws -> HTTPRequestSpec {
        guard let parent = operation.parent, let asked = definition.operation(named: parent.operation) else {
            return try request(operation, query: query, cursor: cursor)
        }
        let state = try cursor.map { (text) throws(AggregateError) in try FanOutState(text: text) } ?? .start
        let spec: HTTPRequestSpec
        if let current = state.queue.first {
            var child = query
            for member in current.parameters.members { child.parameters[member.key] = member.value }
            spec = try request(operation, query: child, cursor: state.childCursor)
        } else {
            var parentQuery = query
            parentQuery.operation = asked.descriptor.name
            for declared in asked.descriptor.parameters where parentQuery.parameters[declared.name] == nil {
                if let value = declared.defaultValue { parentQuery.parameters[declared.name] = .string(value) }
            }
            spec = try request(asked, query: parentQuery, cursor: state.parentCursor)
        }
        (query.plan as? FanOutLedger)?.record(state, for: spec.url)
        return spec
    }

    /// A page of a parent->child run: a parent page gives no items but the parent records to ask about (at most the
    /// declared `limit` in all); a child page gives its items, each with the parent's declared `fields` in `extra`.
    func fanOutPage(_ response: RawPage, _ operation: ProviderDefinition.Operation, query: Query) throws -> Page {
        guard let parent = operation.parent, let asked = definition.operation(named: parent.operation) else { return try page(response, of: operation, query: query) }
        let state = (query.plan as? FanOutLedger)?.state(for: response.url) ?? .start
        if let current = state.queue.first {
            var page = try self.page(response, of: operation, query: query)
            for index in page.items.indices {
                for member in current.fields.members where page.items[index].extra[member.key] == nil {
                    page.items[index].extra.set(member.key, member.value)
                }
            }
            let next = Self.cursorText(page.next).map { FanOutState(parentCursor: nil, queue: state.queue, childCursor: $0, parentNext: state.parentNext, taken: state.taken) }
                ?? state.afterChild
            return Page(items: page.items, next: next.map { .cursor($0.text) }, totalCount: nil)
        }
        let json = try response.json()
        let (records, kept) = try records(asked, in: json)
        var parents: [FanOutState.Parent] = []
        for record in kept where state.taken + parents.count < parent.limit {
            // A parent value seen twice on one page (the same user twice) would only repeat its children.
            guard let share = Self.share(of: record, parent), !parents.contains(where: { $0.parameters == share.parameters }) else { continue }
            parents.append(share)
        }
        let taken = state.taken + parents.count
        let total = asked.pagination.totalCountPath.flatMap { try? $0.resolve(in: json) }.flatMap { $0.int ?? $0.string.flatMap { Int($0) } }
        let more = records.isEmpty || taken >= parent.limit ? nil : DefinitionPaging(asked.pagination).next(after: response, json: json, records: records.count, total: total)
        let parentNext = Self.cursorText(more)
        let next: FanOutState?
        if parents.isEmpty {
            next = parentNext.map { FanOutState(parentCursor: $0, queue: [], childCursor: nil, parentNext: nil, taken: taken) }
        } else {
            next = FanOutState(parentCursor: nil, queue: parents, childCursor: nil, parentNext: parentNext, taken: taken)
        }
        return Page(items: [], next: next.map { .cursor($0.text) }, totalCount: nil)
    }

    /// A child request's error names the parent record it was for, so a user sees which of many failed.
    func fanOutError(_ error: AggregateError, response: HTTPResponse, query: Query) -> AggregateError {
        guard let parent = definition.operation(named: query.operation)?.parent,
              let current = (query.plan as? FanOutLedger)?.state(for: response.url)?.queue.first
        else { return error }
        var named = error
        let values = current.parameters.members.compactMap { member in ValueRule.text(member.value).map { "\(member.key) '\($0)'" } }
        named.message += " (the request for \(values.joined(separator: ", ")), from a record of '\(parent.operation)')"
        return named
    }

    /// What one parent record fills and passes on, or `nil` when it lacks a value a parameter needs.
    static func share(of record: JSONValue, _ parent: ParentRequest) -> FanOutState.Parent? {
        var parameters = JSONObject()
        for binding in parent.parameters {
            guard let value = try? binding.path.resolve(in: record), let text = ValueRule.text(value), !text.isEmpty else { return nil }
            parameters[binding.name] = .string(text)
        }
        var fields = JSONObject()
        for binding in parent.fields {
            if let value = try? binding.path.resolve(in: record), !ValueRule.isEmpty(value) { fields[binding.name] = value }
        }
        return FanOutState.Parent(parameters: parameters, fields: fields)
    }

    /// A next page as a cursor the operation's own request reads (numbered pages by their 1-based ordinal).
    static func cursorText(_ next: Page.Next?) -> String? {
        switch next {
        case .cursor(let cursor)?: return cursor
        case .numberedPages(let current, let total, _)? where current < total: return String(current + 1)
        default: return nil
        }
    }
}
