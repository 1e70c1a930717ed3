public import AggregateJSON
import Foundation

/// A condition on a raw record (the API's own fields, before mapping), declared as an operation's `filter`:
/// records it refuses are left out of the page. Paging still follows the page the API sent, so a page that the
/// filter empties does not end the run (the fetch layer keeps paging until `--limit` items or the last page).
///
/// ```json
/// "filter": {"all": [{"path": "fork", "equals": false}, {"path": "stargazers_count", "atLeast": 10}]}
/// ```
public indirect enum RecordFilter: Sendable, Equatable {
    /// The value at `path` equals `value` (numbers by value: `10` equals `10.0`; strings exactly).
    case equals(JSONPath, JSONValue)
    /// The value at `path`, a number or numeric text, is at least `bound`.
    case atLeast(JSONPath, Double)
    /// The value at `path`, a number or numeric text, is at most `bound`.
    case atMost(JSONPath, Double)
    /// The array at `path` holds `value`, or the text at `path` holds the text `value`.
    case contains(JSONPath, JSONValue)
    /// The value at `path` is there and not null (`true`), or is absent or null (`false`).
    case exists(JSONPath, Bool)
    /// Every condition holds.
    case all([RecordFilter])
    /// At least one condition holds.
    case any([RecordFilter])
    /// The condition does not hold.
    case not(RecordFilter)

    /// The tests a condition on one path may make, one per condition.
    static let tests = ["equals", "atLeast", "atMost", "contains", "exists"]

    /// Whether `record` passes. A missing path fails every test but `exists: false`.
    public func accepts(_ record: JSONValue) -> Bool {
        switch self {
        case .equals(let path, let wanted):
            return Self.value(path, record).map { Self.same($0, wanted) } ?? false
        case .atLeast(let path, let bound):
            return Self.value(path, record).flatMap(Self.number).map { $0 >= bound } ?? false
        case .atMost(let path, let bound):
            return Self.value(path, record).flatMap(Self.number).map { $0 <= bound } ?? false
        case .contains(let path, let wanted):
            switch Self.value(path, record) {
            case .array(let elements)?: return elements.contains { Self.same($0, wanted) }
            case .string(let text)?: return wanted.string.map { text.contains($0) } ?? false
            default: return false
            }
        case .exists(let path, let present):
            let found = Self.value(path, record)
            return (found != nil && found != .null) == present
        case .all(let conditions): return conditions.allSatisfy { $0.accepts(record) }
        case .any(let conditions): return conditions.contains { $0.accepts(record) }
        case .not(let condition): return !condition.accepts(record)
        }
    }

    private static func value(_ path: JSONPath, _ record: JSONValue) -> JSONValue? { try? path.resolve(in: record) }

    private static func number(_ value: JSONValue) -> Double? {
        value.double ?? value.string.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Equal as JSON, with numbers compared by value (`1` and `1.0`, as JSON means them).
    private static func same(_ found: JSONValue, _ wanted: JSONValue) -> Bool {
        if case .number = found, case .number = wanted, let left = found.double, let right = wanted.double { return left == right }
        return found == wanted
    }
}

extension RecordFilter {
    /// Reads a filter: `{"path": P, "<test>": V}` with exactly one test, or `{"all": [...]}`, `{"any": [...]}`,
    /// `{"not": {...}}`; every mistake names its JSON pointer.
    init(reading reader: DefinitionReader) throws(DefinitionProblem) {
        guard case .object(let object) = reader.value else { throw reader.problem("must be an object, not \(reader.value.typeName)") }
        let combinators = ["all", "any", "not"]
        if let combinator = combinators.first(where: { object[$0] != nil }) {
            let fields = try reader.object(allowed: [combinator])
            let inner = fields.required(combinator)
            switch combinator {
            case "not":
                self = .not(try RecordFilter(reading: inner))
            default:
                let conditions = try inner.array(minimum: 1).map { (entry) throws(DefinitionProblem) in try RecordFilter(reading: entry) }
                self = combinator == "all" ? .all(conditions) : .any(conditions)
            }
            return
        }
        let fields = try reader.object(allowed: ["path"] + Self.tests, required: ["path"])
        let path = try fields.required("path").jsonPath()
        let named = Self.tests.filter { object[$0] != nil }
        guard named.count == 1, let test = named.first else {
            let found = named.isEmpty ? "none" : named.joined(separator: ", ")
            throw reader.problem("needs exactly one test of \(Self.tests.joined(separator: ", ")) (found \(found)), or all, any or not")
        }
        let operand = fields.required(test)
        switch test {
        case "equals":
            guard ValueRule.text(operand.value) != nil || operand.value == .null else {
                throw operand.problem("must be a string, number, boolean or null, not \(operand.value.typeName)")
            }
            self = .equals(path, operand.value)
        case "atLeast": self = .atLeast(path, try operand.number())
        case "atMost": self = .atMost(path, try operand.number())
        case "contains":
            guard ValueRule.text(operand.value) != nil else { throw operand.problem("must be a string, number or boolean, not \(operand.value.typeName)") }
            self = .contains(path, operand.value)
        default: self = .exists(path, try operand.bool())
        }
    }
}
