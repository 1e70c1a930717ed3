import AggregateDefinitions
import AggregateJSON
import AggregateSandboxKit
import Foundation

/// The declared filters of a ``DefinitionSandboxSpec`` applied to a request: every filter whose parameter was
/// sent must hold for a record to stay.
struct PoolFilter {
    let filters: [DefinitionSandboxSpec.Filter]
    let request: SandboxRequest

    /// The records every sent filter keeps, in pool order.
    func apply(_ records: [JSONValue], invalid: (String, String, String) -> SandboxExit) throws(SandboxExit) -> [JSONValue] {
        var kept = records
        for filter in filters {
            guard let text = request.queryValue(filter.parameter)?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { continue }
            switch filter {
            case .words(let parameter, let fields, let prefixLast, let qualifiers):
                let query = try WordsQuery(text, qualifiers: qualifiers, parameter: parameter, invalid: invalid)
                kept = kept.filter { query.matches($0, fields: fields, prefixLast: prefixLast) }
            case .equals(_, let field):
                kept = kept.filter { record in Self.texts(at: field, in: record).contains { $0.lowercased() == text.lowercased() } }
            case .tags(_, let field):
                let groups = Self.tagGroups(text)
                kept = kept.filter { record in
                    let tags = Set(Self.texts(at: field, in: record))
                    return groups.allSatisfy { group in group.contains(where: tags.contains) }
                }
            case .numeric(let parameter, let fields, let message):
                let conditions = try text.split(separator: ",").map { (part) throws(SandboxExit) -> NumericCondition in
                    let condition = part.trimmingCharacters(in: .whitespaces)
                    guard let parsed = NumericCondition(condition) else {
                        throw invalid(parameter, "invalid", message.replacingOccurrences(of: "{value}", with: condition))
                    }
                    return parsed
                }
                kept = kept.filter { record in
                    conditions.allSatisfy { condition in
                        // An attribute the API does not filter on matches nothing, as Algolia's do.
                        guard let path = fields[condition.field], let value = try? path.resolve(in: record), let number = Self.number(value) else { return false }
                        return condition.holds(for: number)
                    }
                }
            }
        }
        return kept
    }

    /// Algolia's tags: `a,b` = a and b, `(a,b)` = a or b; each group is a set of alternatives.
    static func tagGroups(_ text: String) -> [[String]] {
        var groups: [[String]] = []
        var current = "", inGroup = false, alternatives: [String] = []
        func close() {
            let tag = current.trimmingCharacters(in: .whitespaces)
            if !tag.isEmpty { alternatives.append(tag) }
            current = ""
        }
        for character in text {
            switch character {
            case "(":
                inGroup = true
            case ")":
                close()
                inGroup = false
                if !alternatives.isEmpty { groups.append(alternatives) }
                alternatives = []
            case "," where inGroup:
                close()
            case ",":
                close()
                if !alternatives.isEmpty { groups.append(alternatives) }
                alternatives = []
            default:
                current.append(character)
            }
        }
        close()
        if !alternatives.isEmpty { groups.append(alternatives) }
        return groups
    }

    /// The text of the value at `path` (each element's, for an array; none for null or absent).
    static func texts(at path: JSONPath, in record: JSONValue) -> [String] {
        guard let value = try? path.resolve(in: record) else { return [] }
        switch value {
        case .array(let elements): return elements.compactMap(text)
        default: return text(value).map { [$0] } ?? []
        }
    }

    static func text(_ value: JSONValue) -> String? { ValueRule.text(value) }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let text): return Double(text)
        case .string(let text): return Double(text)
        default: return nil
        }
    }
}

/// `field>N`, `field>=N`, `field=N`, `field!=N`, `field<=N`, `field<N` (Algolia's numeric filters), or GitHub's
/// qualifier ranges `>N`, `>=N`, `<N`, `<=N`, `N..M`, `N..*`, `*..N`, `N`.
struct NumericCondition {
    var field: String
    var low: (value: Double, inclusive: Bool)?
    var high: (value: Double, inclusive: Bool)?
    var excluded: Double?

    init?(_ text: String) {
        let operators = ["<=", ">=", "!=", "<", ">", "="]
        guard let found = operators.compactMap({ op in text.range(of: op).map { (op, $0) } }).min(by: { $0.1.lowerBound < $1.1.lowerBound }) else { return nil }
        let name = text[..<found.1.lowerBound].trimmingCharacters(in: .whitespaces)
        let number = text[found.1.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }), let value = Double(number), value.isFinite else { return nil }
        field = name
        switch found.0 {
        case "<=": high = (value, true)
        case ">=": low = (value, true)
        case "<": high = (value, false)
        case ">": low = (value, false)
        case "!=": excluded = value
        default: (low, high) = ((value, true), (value, true))
        }
    }

    /// A qualifier's range, as GitHub writes it after `stars:`.
    init?(range text: String) {
        field = ""
        func value(_ part: Substring) -> Double? { part == "*" ? nil : Double(part) }
        if let dots = text.range(of: "..") {
            let lower = text[..<dots.lowerBound], upper = text[dots.upperBound...]
            guard lower == "*" || Double(lower) != nil, upper == "*" || Double(upper) != nil else { return nil }
            low = value(lower).map { ($0, true) }
            high = value(upper).map { ($0, true) }
            return
        }
        for (prefix, isLow, inclusive) in [(">=", true, true), ("<=", false, true), (">", true, false), ("<", false, false)] where text.hasPrefix(prefix) {
            guard let number = Double(text.dropFirst(prefix.count)) else { return nil }
            if isLow { low = (number, inclusive) } else { high = (number, inclusive) }
            return
        }
        guard let number = Double(text) else { return nil }
        (low, high) = ((number, true), (number, true))
    }

    func holds(for number: Double) -> Bool {
        if let low, low.inclusive ? number < low.value : number <= low.value { return false }
        if let high, high.inclusive ? number > high.value : number >= high.value { return false }
        if let excluded, number == excluded { return false }
        return true
    }
}

/// A words parameter split into words (each must be a word of the declared fields) and qualifiers
/// (`name:value`, when the name is declared).
struct WordsQuery {
    var words: [String] = []
    var conditions: [(qualifier: DefinitionSandboxSpec.Qualifier, text: String, range: NumericCondition?)] = []

    init(_ text: String, qualifiers: [DefinitionSandboxSpec.Qualifier], parameter: String, invalid: (String, String, String) -> SandboxExit) throws(SandboxExit) {
        for token in text.split(whereSeparator: { $0.isWhitespace }) {
            if let colon = token.firstIndex(of: ":"), let qualifier = qualifiers.first(where: { $0.name == token[..<colon].lowercased() }) {
                let value = String(token[token.index(after: colon)...])
                var range: NumericCondition?
                if qualifier.numeric {
                    guard let parsed = NumericCondition(range: value) else {
                        throw invalid(parameter, "invalid", "'\(token)' is not a valid \(qualifier.name): qualifier (a number, >N, >=N, <N, <=N or N..M)")
                    }
                    range = parsed
                }
                conditions.append((qualifier, value, range))
            } else {
                words += Self.tokens(String(token))
            }
        }
    }

    /// Lower-case runs of letters and digits: what a word matches.
    static func tokens(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    func matches(_ record: JSONValue, fields: [JSONPath], prefixLast: Bool) -> Bool {
        for (qualifier, text, range) in conditions {
            let values = PoolFilter.texts(at: qualifier.field, in: record)
            if let range {
                guard values.contains(where: { Double($0).map(range.holds) ?? false }) else { return false }
            } else {
                guard values.contains(where: { $0.lowercased() == text.lowercased() }) else { return false }
            }
        }
        guard !words.isEmpty else { return true }
        let present = Set(fields.flatMap { PoolFilter.texts(at: $0, in: record) }.flatMap(Self.tokens))
        for (index, word) in words.enumerated() {
            if present.contains(word) { continue }
            if prefixLast, index == words.count - 1, present.contains(where: { $0.hasPrefix(word) }) { continue }
            return false
        }
        return true
    }
}

/// The first declared sort that applies to a request (its path, and its parameter's value when it is chosen by
/// one); none keeps the pool's order (the samples', which stands for relevance or best match).
struct PoolSort {
    let sorts: [DefinitionSandboxSpec.Sort]
    let request: SandboxRequest

    func apply(_ records: [JSONValue]) -> [JSONValue] {
        for sort in sorts where sort.path == nil || sort.path == request.path {
            if let field = sort.field { return Self.sorted(records, by: field, descending: sort.descending) }
            guard let parameter = sort.parameter, let value = request.queryValue(parameter), let field = sort.fields[value] else { continue }
            let ascending = sort.orderParameter.flatMap { request.queryValue($0) } == sort.ascendingValue
            return Self.sorted(records, by: field, descending: !ascending)
        }
        return records
    }

    /// A stable sort by the field (numbers as numbers, text as text); records without it come last either way.
    static func sorted(_ records: [JSONValue], by field: JSONPath, descending: Bool) -> [JSONValue] {
        enum Key: Comparable {
            case number(Double), text(String)
        }
        let keyed = records.enumerated().map { entry -> (Int, Key?, JSONValue) in
            let value = try? field.resolve(in: entry.element)
            let key: Key?
            switch value {
            case .number(let text)?: key = Double(text).map(Key.number)
            case .string(let text)?: key = .text(text)
            default: key = nil
            }
            return (entry.offset, key, entry.element)
        }
        return keyed.sorted { lhs, rhs in
            switch (lhs.1, rhs.1) {
            case (let left?, let right?) where left != right: return descending ? left > right : left < right
            case (nil, _?): return false
            case (_?, nil): return true
            default: return lhs.0 < rhs.0
            }
        }.map(\.2)
    }
}
