public import AggregateCore
public import AggregateJSON
import Foundation

/// An operation's `sandbox` section: how its emulator behaves like the real API instead of serving the sample
/// files as fixed pages. With it, the records of all the operation's samples are one pool, and each answer is the
/// first sample's envelope with the records the request selects (checked, filtered, sorted, paged) and the totals
/// and echoed fields recomputed (docs/provider-definitions.md, "The emulator").
public struct DefinitionSandboxSpec: Sendable {
    /// A declared check of one query parameter.
    public struct Check: Sendable, Equatable {
        public var parameter: String
        /// Absent or empty is an error (`code` `missing`).
        public var required: Bool
        /// The values allowed, or `nil` for any (`code` `invalid` otherwise).
        public var values: [String]?
        /// When set, the value must be a whole number in this range (`code` `invalid` otherwise).
        public var integer: ClosedRange<Int>?
    }

    /// An answer in the API's own error shape: the status and the body, whose strings may hold `{message}`,
    /// `{parameter}` and `{code}`.
    public struct ErrorAnswer: Sendable, Equatable {
        public var status: Int
        public var body: JSONValue
    }

    /// The page-size parameter: absent means `defaultSize`; a value out of `minimum...maximum` is clamped into it,
    /// as GitHub does with `per_page=500`.
    public struct PageSize: Sendable, Equatable {
        public var parameter: String
        public var defaultSize: Int
        public var minimum: Int
        public var maximum: Int
    }

    /// The result window: the API serves the first `results` records of a query and no more.
    public struct Window: Sendable, Equatable {
        /// What a request whose page starts past the window gets.
        public enum Past: Sendable, Equatable {
            /// An error (GitHub's 422 "Only the first 1000 search results are available").
            case error(ErrorAnswer)
            /// An empty page with these top-level members set over the usual echoes (Algolia's `message`, `nbHits: 0`).
            case emptyPage(JSONObject)
        }

        public var results: Int
        /// Whether the page that crosses the window is cut at it (Algolia) or served whole (GitHub: at 30 a page,
        /// page 34 holds results 991-1020).
        public var cutsLastPage: Bool
        public var past: Past
    }

    /// A qualifier inside a words parameter, e.g. GitHub's `language:Swift` or `stars:>100`.
    public struct Qualifier: Sendable, Equatable {
        public var name: String
        public var field: JSONPath
        /// Compares numbers (`>N`, `>=N`, `<N`, `<=N`, `N..M`, `N`) rather than text (case-insensitive equality).
        public var numeric: Bool
    }

    /// How a query parameter selects records.
    public enum Filter: Sendable, Equatable {
        /// Every word must be a word of one of `fields` (case-insensitive; the last one may be a prefix); `name:value`
        /// words that name a qualifier select by it instead.
        case words(parameter: String, fields: [JSONPath], prefixLast: Bool, qualifiers: [Qualifier])
        /// The field equals the value (case-insensitive).
        case equals(parameter: String, field: JSONPath)
        /// Algolia's tags: `a,b` both, `(a,b)` either, over the array at `field`.
        case tags(parameter: String, field: JSONPath)
        /// Algolia's `numericFilters`: `field>N`, `field<=N`, ... comma-separated (all must hold), over the named
        /// fields; a condition that does not parse is an `invalid` error with `invalidMessage` (`{value}` = the condition).
        case numeric(parameter: String, fields: [String: JSONPath], invalidMessage: String)

        public var parameter: String {
            switch self {
            case .words(let parameter, _, _, _), .equals(let parameter, _), .tags(let parameter, _), .numeric(let parameter, _, _): return parameter
            }
        }
    }

    /// An order the pool is put in; the first that applies to a request wins, none means the samples' order.
    public struct Sort: Sendable, Equatable {
        /// Applies only to this request path (e.g. `/search_by_date`), or to every path.
        public var path: String?
        /// A fixed order: the field and direction.
        public var field: JSONPath?
        public var descending: Bool
        /// An order chosen by a parameter: its values' fields (others, or absent, mean the samples' order).
        public var parameter: String?
        public var fields: [String: JSONPath]
        /// The parameter that sets the direction, and its value for ascending (anything else is descending).
        public var orderParameter: String?
        public var ascendingValue: String
    }

    /// What the answer echoes at a path of the envelope.
    public enum Echo: Sendable, Equatable {
        /// The number of records that match, window or not.
        case total
        /// The number of pages, capped at the window.
        case pages
        /// The page number asked for.
        case page
        /// The page size used.
        case pageSize
        /// A query parameter's value as sent, or `fallback`.
        case parameter(String, fallback: String)
        /// The query string as sent, form-encoded, with `suffix` appended (Algolia's `params`).
        case queryString(suffix: String)
    }

    public var checks: [Check]
    /// The answer to a failed check, or `nil` for a 400 in the definition's `errors.body`.
    public var invalid: ErrorAnswer?
    public var pageSize: PageSize?
    public var window: Window?
    public var filters: [Filter]
    public var sorts: [Sort]
    public var echoes: [(path: JSONPath, echo: Echo)]
    /// The validators this operation's answers carry, over the definition's `sandboxCaching`.
    public var caching: APICaching?

    static let fields = ["parameters", "invalid", "pageSize", "window", "filters", "sort", "echo", "caching"]

    /// Reads an operation's `sandbox`.
    init(reading reader: DefinitionReader) throws(DefinitionProblem) {
        let fields = try reader.object(allowed: Self.fields)
        checks = try fields["parameters"]?.members().map { (member) throws(DefinitionProblem) -> Check in
            let entry = try member.value.object(allowed: ["required", "values", "minimum", "maximum"])
            let low = try entry["minimum"]?.integer(), high = try entry["maximum"]?.integer()
            if let low, let high, low > high { throw member.value.problem("minimum is above maximum") }
            return Check(
                parameter: member.key, required: try entry["required"]?.bool() ?? false,
                values: try entry["values"]?.array(minimum: 1).map { (value) throws(DefinitionProblem) in try value.string() },
                integer: low == nil && high == nil ? nil : (low ?? Int.min)...(high ?? Int.max))
        } ?? []
        invalid = try fields["invalid"].map { (entry) throws(DefinitionProblem) in try Self.errorAnswer(entry) }
        pageSize = try fields["pageSize"].map { (entry) throws(DefinitionProblem) -> PageSize in
            let size = try entry.object(allowed: ["parameter", "default", "minimum", "maximum"], required: ["parameter", "default", "maximum"])
            let minimum = try size["minimum"]?.integer(in: 0...100_000) ?? 1
            let maximum = try size.required("maximum").integer(in: max(1, minimum)...100_000)
            return PageSize(
                parameter: try size.required("parameter").string(), defaultSize: try size.required("default").integer(in: minimum...maximum),
                minimum: minimum, maximum: maximum)
        }
        window = try fields["window"].map { (entry) throws(DefinitionProblem) -> Window in
            let window = try entry.object(allowed: ["results", "lastPage", "past"], required: ["results", "past"])
            let past = try window.required("past").object(allowed: ["status", "body", "set"])
            let answer: Window.Past
            if let set = past["set"] {
                guard let members = set.value.object else { throw set.problem("must be an object, not \(set.value.typeName)") }
                answer = .emptyPage(members)
            } else {
                answer = .error(try Self.errorAnswer(window.required("past")))
            }
            return Window(
                results: try window.required("results").integer(in: 1...Int.max / 2),
                cutsLastPage: try window["lastPage"]?.word(["whole", "cut"]) == "cut", past: answer)
        }
        filters = try fields["filters"]?.array().map { (entry) throws(DefinitionProblem) in try Self.filter(entry) } ?? []
        sorts = try fields["sort"]?.array().map { (entry) throws(DefinitionProblem) in try Self.sort(entry) } ?? []
        echoes = try fields["echo"]?.members().map { (member) throws(DefinitionProblem) -> (path: JSONPath, echo: Echo) in
            let path: JSONPath
            do { path = try JSONPath(parsing: member.key) } catch { throw member.value.problem("'\(member.key)' is not a JSON path: \(error)") }
            return (path, try Self.echo(member.value))
        } ?? []
        caching = try fields["caching"].map { (entry) throws(DefinitionProblem) in try DefinitionLimits.sandboxCaching(entry) }
    }

    // MARK: Parts

    private static func errorAnswer(_ reader: DefinitionReader) throws(DefinitionProblem) -> ErrorAnswer {
        let fields = try reader.object(allowed: ["status", "body"], required: ["status", "body"])
        let body = fields.required("body")
        guard body.value.object != nil else { throw body.problem("must be an object, not \(body.value.typeName)") }
        return ErrorAnswer(status: try fields.required("status").integer(in: 200...599), body: body.value)
    }

    private static func paths(_ reader: DefinitionReader) throws(DefinitionProblem) -> [JSONPath] {
        try reader.array(minimum: 1).map { (entry) throws(DefinitionProblem) in try entry.jsonPath() }
    }

    private static func filter(_ reader: DefinitionReader) throws(DefinitionProblem) -> Filter {
        let fields = try reader.object(
            allowed: ["parameter", "words", "prefixLast", "qualifiers", "equals", "tags", "numeric", "invalidMessage"], required: ["parameter"])
        let parameter = try fields.required("parameter").string()
        let kinds = ["words", "equals", "tags", "numeric"].filter { fields[$0] != nil }
        guard kinds.count == 1 else { throw reader.problem("a filter takes one of words, equals, tags or numeric (found \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")))") }
        switch kinds[0] {
        case "words":
            let qualifiers = try fields["qualifiers"]?.members().map { (member) throws(DefinitionProblem) -> Qualifier in
                let entry = try member.value.object(allowed: ["field", "numeric"], required: ["field"])
                return Qualifier(name: member.key.lowercased(), field: try entry.required("field").jsonPath(), numeric: try entry["numeric"]?.bool() ?? false)
            } ?? []
            return .words(parameter: parameter, fields: try paths(fields.required("words")), prefixLast: try fields["prefixLast"]?.bool() ?? false, qualifiers: qualifiers)
        case "equals":
            return .equals(parameter: parameter, field: try fields.required("equals").jsonPath())
        case "tags":
            return .tags(parameter: parameter, field: try fields.required("tags").jsonPath())
        default:
            var named: [String: JSONPath] = [:]
            for (name, path) in try fields.required("numeric").members() { named[name] = try path.jsonPath() }
            return .numeric(
                parameter: parameter, fields: named,
                invalidMessage: try fields["invalidMessage"]?.string() ?? "invalid numeric condition '{value}'")
        }
    }

    private static func sort(_ reader: DefinitionReader) throws(DefinitionProblem) -> Sort {
        let fields = try reader.object(allowed: ["path", "by", "descending", "parameter", "fields", "orderParameter", "ascending"])
        var fieldsByValue: [String: JSONPath] = [:]
        for (value, path) in try fields["fields"]?.members() ?? [] { fieldsByValue[value] = try path.jsonPath() }
        let sort = Sort(
            path: try fields["path"]?.string(), field: try fields["by"]?.jsonPath(), descending: try fields["descending"]?.bool() ?? false,
            parameter: try fields["parameter"]?.string(), fields: fieldsByValue, orderParameter: try fields["orderParameter"]?.string(),
            ascendingValue: try fields["ascending"]?.string() ?? "asc")
        guard (sort.field == nil) != (sort.parameter == nil) else { throw reader.problem("a sort takes either 'by' (a fixed order) or 'parameter' with 'fields'") }
        if sort.parameter != nil, sort.fields.isEmpty { throw reader.problem("a sort by 'parameter' needs 'fields': each value's record field") }
        return sort
    }

    private static func echo(_ reader: DefinitionReader) throws(DefinitionProblem) -> Echo {
        if reader.value.string != nil {
            switch try reader.word(["total", "pages", "page", "pageSize", "queryString"]) {
            case "total": return .total
            case "pages": return .pages
            case "page": return .page
            case "pageSize": return .pageSize
            default: return .queryString(suffix: "")
            }
        }
        let fields = try reader.object(allowed: ["parameter", "default", "queryString"])
        if let parameter = fields["parameter"] {
            return .parameter(try parameter.string(), fallback: try fields["default"]?.string(nonEmpty: false) ?? "")
        }
        guard let query = fields["queryString"] else { throw reader.problem("an echo is a word (total, pages, page, pageSize, queryString) or {parameter} or {queryString: {suffix}}") }
        let suffix = try query.object(allowed: ["suffix"])["suffix"]?.string(nonEmpty: false) ?? ""
        return .queryString(suffix: suffix)
    }
}

extension DefinitionSandboxSpec: Equatable {
    public static func == (lhs: DefinitionSandboxSpec, rhs: DefinitionSandboxSpec) -> Bool {
        lhs.checks == rhs.checks && lhs.invalid == rhs.invalid && lhs.pageSize == rhs.pageSize && lhs.window == rhs.window
            && lhs.filters == rhs.filters && lhs.sorts == rhs.sorts && lhs.echoes.map(\.path) == rhs.echoes.map(\.path)
            && lhs.echoes.map(\.echo) == rhs.echoes.map(\.echo) && lhs.caching == rhs.caching
    }
}

/// `onlyWith` of a parameter: the parameter the real API needs beside it, or it ignores this one (GitHub's `order`
/// without `sort`). The engine refuses such a run as a usage error rather than send what would be ignored.
public struct ParameterDependency: Sendable, Equatable {
    public var parameter: String
    public var needs: String
}

extension ParameterDependency {
    /// The `onlyWith` entries of an operation's `parameters`; each must name another declared parameter.
    static func read(_ parameters: DefinitionReader?, declared: [String]) throws(DefinitionProblem) -> [ParameterDependency] {
        var found: [ParameterDependency] = []
        for entry in try parameters?.array() ?? [] {
            // The parameter itself has been read (and its fields checked) as a ``Parameter``.
            guard let value = entry.value["onlyWith"], let name = entry.value["name"]?.string else { continue }
            let needs = DefinitionReader(value, pointer: entry.pointer(to: "onlyWith"))
            let other = try needs.string()
            guard other != name, declared.contains(other) else {
                throw needs.problem("'\(other)' is not another parameter of this operation (declared: \(declared.joined(separator: ", ")))")
            }
            found.append(ParameterDependency(parameter: name, needs: other))
        }
        return found
    }
}
