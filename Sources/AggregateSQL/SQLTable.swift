public import AggregateCore
import AggregateJSON
import Foundation

/// A column's SQLite type, as the table declares it.
public enum SQLColumnType: String, Sendable, Equatable {
    case text = "TEXT"
    case integer = "INTEGER"
    case real = "REAL"
    /// A metric: whole numbers stay integers, others are reals (NUMERIC affinity, so a `--to` file keeps 11809, not
    /// 11809.0).
    case numeric = "NUMERIC"
    /// JSON text (`tags`, `metrics`, `extra`), for `json_extract` and `->>`.
    case json = "JSON"

    /// The declared type SQLite sees (`JSON` has text affinity).
    var declaration: String { self == .json ? "TEXT" : rawValue }
}

/// A visible column of a provider table: one of the unified item's fields, or one of its metrics.
public struct SQLColumn: Sendable, Equatable {
    /// Where the value comes from.
    public enum Source: Sendable, Equatable {
        case provider, kind, id, title, subtitle, summary, url, imageURL, author, createdAt
        case city, country, latitude, longitude, tags, metrics, extra
        /// `metrics[name]`.
        case metric(String)
    }

    /// The column's snake_case name, stable across releases.
    public var name: String
    public var type: SQLColumnType
    public var source: Source

    /// The item's fields, in the order every table has them.
    public static let itemColumns: [SQLColumn] = [
        SQLColumn(name: "provider", type: .text, source: .provider), SQLColumn(name: "kind", type: .text, source: .kind),
        SQLColumn(name: "id", type: .text, source: .id), SQLColumn(name: "title", type: .text, source: .title),
        SQLColumn(name: "subtitle", type: .text, source: .subtitle), SQLColumn(name: "summary", type: .text, source: .summary),
        SQLColumn(name: "url", type: .text, source: .url), SQLColumn(name: "image_url", type: .text, source: .imageURL),
        SQLColumn(name: "author", type: .text, source: .author), SQLColumn(name: "created_at", type: .text, source: .createdAt),
        SQLColumn(name: "city", type: .text, source: .city), SQLColumn(name: "country", type: .text, source: .country),
        SQLColumn(name: "latitude", type: .real, source: .latitude), SQLColumn(name: "longitude", type: .real, source: .longitude),
        SQLColumn(name: "tags", type: .json, source: .tags), SQLColumn(name: "metrics", type: .json, source: .metrics),
        SQLColumn(name: "extra", type: .json, source: .extra),
    ]

    /// This column's value for `item`: `NULL` where the API said nothing.
    public func value(of item: Item) -> SQLValue {
        switch source {
        case .provider: return .text(item.provider)
        case .kind: return .text(item.kind)
        case .id: return .text(item.id)
        case .title: return .text(item.title)
        case .subtitle: return .optionalText(item.subtitle)
        case .summary: return .optionalText(item.summary)
        case .url: return .optionalText(item.url)
        case .imageURL: return .optionalText(item.imageUrl)
        case .author: return .optionalText(item.author)
        case .createdAt: return .optionalText(item.createdAt.map(ISO8601.string(from:)))
        case .city: return .optionalText(item.location?.city)
        case .country: return .optionalText(item.location?.country)
        case .latitude: return item.location?.latitude.map(SQLValue.real) ?? .null
        case .longitude: return item.location?.longitude.map(SQLValue.real) ?? .null
        case .tags: return .text(JSONWriter().string(.array(item.tags.map(JSONValue.string))))
        case .metrics: return .text(JSONWriter().string(.object(JSONObject(item.metrics.sorted { $0.key < $1.key }.map { .init($0.key, .decimal($0.value)) }))))
        case .extra: return .text(JSONWriter().string(.object(item.extra)))
        case .metric(let name): return item.metrics[name].map(SQLValue.init(decimal:)) ?? .null
        }
    }
}

/// A hidden column that carries one of the operation's parameters: an `=` or `IN` constraint on it, or a
/// table-valued-function argument, becomes the API parameter.
public struct SQLKeyColumn: Sendable, Equatable {
    /// The column's name: the parameter's in snake_case; a search's words are `query`; a name that a visible column
    /// has gets the item kind before it (TMDb movie's `<id>` is `movie_id`, Kiva's `--country` is `loan_country`).
    public var name: String
    /// The parameter it carries.
    public var parameter: Parameter

    /// Whether a statement must constrain it.
    public var isRequired: Bool { parameter.isRequired }

    /// Its SQLite type.
    public var type: SQLColumnType {
        switch parameter.type {
        case .integer, .boolean: return .integer
        case .number: return .real
        case .string, .choice, .choiceList: return .text
        }
    }

    /// The type in words, for `--describe`: `text`, `integer 1900–2100`, `one of stars, forks, updated`.
    public var typeDescription: String {
        switch parameter.type {
        case .string: return "text"
        case .integer(let range): return range.map { "integer \($0.lowerBound)–\($0.upperBound)" } ?? "integer"
        case .number(let range): return range.map { "number \(JSONNumberFormat.text(for: $0.lowerBound))–\(JSONNumberFormat.text(for: $0.upperBound))" } ?? "number"
        case .choice(let words): return "one of \(words.joined(separator: ", "))"
        case .choiceList(let words): return "comma-separated \(words.joined(separator: ", "))"
        case .boolean: return "boolean (1 or 0)"
        }
    }
}

/// One provider operation as a table, `<provider>_<operation>` (`tmdb_search`).
public struct SQLTable: Sendable {
    /// The table's name.
    public var name: String
    /// The provider that answers it.
    public var provider: any RunnableProvider
    /// The operation it runs.
    public var operation: ProviderOperation
    /// The visible columns: the item's fields, then one per metric the provider declares.
    public var columns: [SQLColumn]
    /// The hidden key columns, in table-valued-function argument order: required ones first.
    public var keyColumns: [SQLKeyColumn]

    /// The provider's name.
    public var providerName: String { provider.descriptor.name }

    /// Makes the table of one operation of `provider`.
    public init(provider: any RunnableProvider, operation: ProviderOperation) {
        let descriptor = provider.descriptor
        self.provider = provider
        self.operation = operation
        name = SQLNames.snakeCase(descriptor.name) + "_" + SQLNames.snakeCase(operation.name)
        var columns = SQLColumn.itemColumns
        for metric in descriptor.metrics {
            let base = SQLNames.snakeCase(metric)
            // `fetched_at` is the column a `--to` file adds to every table.
            let name = columns.contains { $0.name == base } || base == "fetched_at" ? "metric_\(base)" : base
            columns.append(SQLColumn(name: name, type: .numeric, source: .metric(metric)))
        }
        self.columns = columns
        let parameters = descriptor.options + operation.parameters
        let ordered = parameters.filter(\.isRequired) + parameters.filter { !$0.isRequired }
        let hasQuery = parameters.contains { $0.name == "query" }
        var keys: [SQLKeyColumn] = []
        for parameter in ordered {
            var name = parameter.isFreeText && !hasQuery ? "query" : SQLNames.snakeCase(parameter.name)
            if columns.contains(where: { $0.name == name }) || keys.contains(where: { $0.name == name }) {
                name = SQLNames.snakeCase(operation.itemKind) + "_" + name
            }
            keys.append(SQLKeyColumn(name: name, parameter: parameter))
        }
        keyColumns = keys
    }

    /// The `CREATE TABLE` statement `sqlite3_declare_vtab` receives: the visible columns, then the hidden keys.
    var declaration: String {
        let visible = columns.map { "\(SQLNames.quoted($0.name)) \($0.type.declaration)" }
        let hidden = keyColumns.map { "\(SQLNames.quoted($0.name)) \($0.type.declaration) HIDDEN" }
        return "CREATE TABLE x(" + (visible + hidden).joined(separator: ", ") + ")"
    }

    /// An example statement for `--describe`: the required keys given as table-valued-function arguments, with the
    /// values of the provider's own example for this operation (which runs offline), else a placeholder.
    public var example: String {
        let required = keyColumns.filter(\.isRequired)
        let given = exampleValues()
        let arguments = required.map { key in
            SQLNames.literal(given[key.parameter.name] ?? key.parameter.defaultValue ?? Self.exampleValue(for: key))
        }
        let source = required.isEmpty ? name : "\(name)(\(arguments.joined(separator: ", ")))"
        return "SELECT title, url FROM \(source) LIMIT 5"
    }

    /// The parameter values of the first descriptor example that runs this operation: its options by name, its
    /// positional words in order.
    private func exampleValues() -> [String: String] {
        let descriptor = provider.descriptor
        let parameters = descriptor.options + operation.parameters
        for example in descriptor.examples where example.arguments.first == descriptor.name {
            var words = Array(example.arguments.dropFirst())
            if words.first == operation.name {
                words.removeFirst()
            } else if descriptor.operation(named: words.first ?? "") != nil || operation.name != descriptor.defaultOperation.name {
                continue
            }
            var values: [String: String] = [:]
            var positionals = parameters.filter { $0.style == .positional }[...]
            var index = 0
            while index < words.count {
                let word = words[index]
                if word.hasPrefix("--") {
                    let name = String(word.dropFirst(2))
                    if let parameter = parameters.first(where: { $0.name == name }), parameter.style == .option, index + 1 < words.count {
                        values[name] = words[index + 1]
                        index += 1
                    }
                } else if let parameter = positionals.popFirst() {
                    values[parameter.name] = word
                }
                index += 1
            }
            return values
        }
        return [:]
    }

    private static func exampleValue(for key: SQLKeyColumn) -> String {
        switch key.parameter.type {
        case .choice(let words), .choiceList(let words): return words.first ?? "value"
        case .integer(let range): return String(range?.lowerBound ?? 1)
        case .number: return "0"
        case .boolean: return "1"
        case .string: return key.name == "query" ? "swift" : key.parameter.valueName.lowercased()
        }
    }
}

/// Every table the providers of a registry make: one per operation that reads (writes stay commands).
public struct SQLCatalog: Sendable {
    /// The tables, by provider then operation.
    public var tables: [SQLTable]

    /// The tables of every provider in `registry`.
    public init(registry: ProviderRegistry) {
        tables = registry.providers.flatMap { provider in
            provider.descriptor.operations.filter { !$0.writes }.map { SQLTable(provider: provider, operation: $0) }
        }
    }

    /// The table called `name` (any case).
    public func table(named name: String) -> SQLTable? { tables.first { $0.name == name.lowercased() } }

    /// The tables of the provider called `provider`.
    public func tables(of provider: String) -> [SQLTable] { tables.filter { $0.providerName == provider } }
}

/// How names and literals are spelled in SQL.
enum SQLNames {
    /// `voteAverage` → `vote_average`, `by-date` → `by_date`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character == "-" || character == " " || character == "." {
                result.append("_")
            } else if character.isUppercase {
                if let previous, previous.isLowercase || previous.isNumber { result.append("_") }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
            previous = character
        }
        return result
    }

    /// `name` as a quoted SQL identifier.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `text` as a SQL string literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}
