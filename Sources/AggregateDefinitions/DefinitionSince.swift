public import AggregateCore
public import AggregateJSON
import AggregateText
public import Foundation

/// An operation's `since` section: how a run asks for only the records newer than a time (`--since TIME|last`).
/// The time goes into the request through `query` templates that name `{since}` (the API filters: Hacker News's
/// `numericFilters=created_at_i>{since}`), in the declared `format`; whatever the API sends back, records whose
/// `createdAt` is not newer are dropped client-side, so a definition with no cursor parameter still runs
/// incrementally by its date field.
///
/// ```json
/// "since": { "query": { "numericFilters": "created_at_i>{since}" }, "format": "epoch-seconds" }
/// ```
public struct DefinitionSince: Sendable, Equatable {
    /// How the time is written into the request.
    public enum Format: String, Sendable, CaseIterable {
        case epochSeconds = "epoch-seconds", epochMilliseconds = "epoch-ms", iso8601, date
    }

    /// The parameter's name: `--since`.
    public static let parameterName = "since"
    /// The `last` value: newer than the newest record of the last successful run.
    public static let last = "last"

    /// Query parameters that carry the time (`{since}` in their templates).
    public var query: [ProviderDefinition.NamedTemplate]
    /// How `{since}` is written.
    public var format: Format

    /// The parameter every operation with `since` gets, so help, completions, `describe` and the parser know it.
    static let parameter = Parameter(
        parameterName, valueName: "TIME|last",
        help: "Only records newer than TIME (ISO 8601: 2026-01-31, 2026-01-31T12:00:00Z), or 'last': newer than the newest record of the last successful run with the same parameters.")

    init(reading reader: DefinitionReader, hasCreatedAt: Bool) throws(DefinitionProblem) {
        let fields = try reader.object(allowed: ["query", "format"])
        var templates: [ProviderDefinition.NamedTemplate] = []
        for member in try fields["query"]?.members() ?? [] {
            let template = try member.value.template()
            guard template.names == [Self.parameterName] else {
                throw member.value.problem("a since template names {since} and nothing else (it names \(template.names.map { "{\($0)}" }.joined(separator: ", ")))")
            }
            templates.append(ProviderDefinition.NamedTemplate(name: member.key, template: template))
        }
        if templates.isEmpty, !hasCreatedAt {
            throw reader.problem("needs a 'query' template with {since}, or an item.createdAt to filter by")
        }
        query = templates
        format = try fields["format"]?.word(Format.self) ?? .iso8601
    }

    /// The run's time, when it asked for one.
    /// - Throws: a `usage` error for a value that is not a time (`last` is the command line's to resolve).
    public static func time(in query: Query) throws(AggregateError) -> Date? {
        guard let text = query.parameters[parameterName]?.string else { return nil }
        if text == last {
            // Only `aggregate <provider>` keeps the state `last` reads; an app or `aggregate sql` gives a time.
            throw AggregateError(.usage, "'last' works only as --since on a provider's command line; give a time here, e.g. since = '2026-01-31'")
        }
        guard let date = parse(text) else {
            throw AggregateError(.usage, "--since takes an ISO 8601 date or time (2026-01-31, 2026-01-31T12:00:00Z) or 'last', not '\(text)'")
        }
        return date
    }

    /// An ISO 8601 date (midnight UTC) or time, or `nil`.
    public static func parse(_ text: String) -> Date? { UTCTimestamp.date(fromISO8601: text.trimmingCharacters(in: .whitespaces)) }

    /// `date` as the API takes it.
    func text(_ date: Date) -> String {
        switch format {
        case .epochSeconds: return String(Int(date.timeIntervalSince1970.rounded(.down)))
        case .epochMilliseconds: return String(Int((date.timeIntervalSince1970 * 1000).rounded(.down)))
        case .iso8601: return UTCTimestamp.iso8601(date)
        case .date: return String(UTCTimestamp.iso8601(date).prefix(10))
        }
    }

    /// The query items that ask for records newer than `date`.
    func items(after date: Date) -> [(String, String)] {
        query.compactMap { entry in entry.template.render { _ in text(date) }.map { (entry.name, $0) } }
    }

    /// The time a request asks for, read back from its query (the emulator's side), or `nil`.
    public func time(inQuery value: (String) -> String?) -> Date? {
        for entry in query {
            guard let sent = value(entry.name) else { continue }
            // The literal text around {since}: `created_at_i>{since}` inside `points>5,created_at_i>1700000000`.
            let rendered = entry.template.render { _ in "\u{1}" } ?? ""
            let pieces = rendered.components(separatedBy: "\u{1}")
            guard pieces.count == 2 else { continue }
            for part in sent.split(separator: ",").map(String.init) where part.hasPrefix(pieces[0]) && part.hasSuffix(pieces[1]) {
                let inner = String(part.dropFirst(pieces[0].count).dropLast(pieces[1].count))
                switch format {
                case .epochSeconds: if let seconds = Double(inner) { return Date(timeIntervalSince1970: seconds) }
                case .epochMilliseconds: if let milliseconds = Double(inner) { return Date(timeIntervalSince1970: milliseconds / 1000) }
                case .iso8601, .date: if let date = Self.parse(inner) { return date }
                }
            }
        }
        return nil
    }

    /// `items` without those not newer than `date` (an item without a date stays: nothing says it is old).
    static func newer(_ items: [Item], than date: Date?) -> [Item] {
        guard let date else { return items }
        return items.filter { $0.createdAt.map { $0 > date } ?? true }
    }
}

extension ProviderDefinition.Operation {
    /// The `createdAt` a record maps to (the emulator filters samples by it as the API filters by its own field).
    public func createdAt(in record: JSONValue) -> Date? {
        DefinitionMapper(provider: "", operation: self).item(from: record)?.createdAt
    }
}
