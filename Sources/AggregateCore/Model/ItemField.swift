public import AggregateJSON
import AggregateText
import Foundation

extension Item {
    /// The unified item's fields, in the JSON contract's order: the one list that JSON, CSV, Markdown, `--fields`
    /// and `--sort` are built from.
    public enum Field: String, Sendable, CaseIterable {
        case provider, kind, id, title, subtitle, summary, url, imageUrl, author, createdAt, location, metrics, tags, extra

        /// The parts a field has (`location.city`), or `nil` when its parts are open-ended (`metrics.<name>`)
        /// or it has none.
        public var parts: [String]? {
            switch self {
            case .location: return ["city", "country", "latitude", "longitude"]
            default: return nil
            }
        }

        /// Whether `<field>.<name>` is valid for any name (metric names differ by provider; `extra` keys too).
        public var hasOpenParts: Bool { self == .metrics || self == .extra }
    }
}

/// A field named with `--fields` or `--sort`: a whole unified field (`title`, `location`) or one part of it
/// (`metrics.stars`, `location.city`, `extra.who`).
public struct ItemFieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The unified field.
    public var field: Item.Field
    /// The part within it, e.g. a metric's name.
    public var part: String?

    /// Creates a path.
    public init(_ field: Item.Field, part: String? = nil) {
        self.field = field
        self.part = part
    }

    /// Parses `title`, `metrics.stars`, `location.city`.
    /// - Throws: a usage error listing the valid names when the name is unknown.
    public init(parsing text: String) throws(AggregateError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let pieces = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let field = Item.Field(rawValue: pieces[0]) else { throw Self.unknown(trimmed) }
        if pieces.count == 2 {
            let part = pieces[1]
            let valid = field.hasOpenParts ? !part.isEmpty : (field.parts ?? []).contains(part)
            guard valid else { throw Self.unknown(trimmed) }
            self.init(field, part: part)
        } else {
            self.init(field)
        }
    }

    /// `metrics.stars`.
    public var description: String { part.map { "\(field.rawValue).\($0)" } ?? field.rawValue }

    /// Every name `--fields` accepts, as the usage error lists them.
    public static var validNames: String {
        Item.Field.allCases.map { field -> String in
            if field.hasOpenParts { return "\(field.rawValue), \(field.rawValue).<name>" }
            if let parts = field.parts { return ([field.rawValue] + parts.map { "\(field.rawValue).\($0)" }).joined(separator: ", ") }
            return field.rawValue
        }.joined(separator: ", ")
    }

    static func unknown(_ name: String) -> AggregateError {
        let names = Item.Field.allCases.flatMap { field in [field.rawValue] + (field.parts ?? []).map { "\(field.rawValue).\($0)" } }
        return AggregateError(.usage, "unknown field '\(name)'\(DidYouMean.suffix(for: name, among: names, otherwise: ".")) Valid fields: \(validNames)")
    }

    /// Parses a comma-separated list, e.g. `title,url,metrics.stars`, dropping repeats.
    public static func list(_ text: String) throws(AggregateError) -> [ItemFieldPath] {
        var paths: [ItemFieldPath] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let path = try ItemFieldPath(parsing: String(name))
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }

    /// The value at this path in an item's JSON form, or `nil` when the item does not have it.
    public func value(in itemJSON: JSONValue) -> JSONValue? {
        guard let whole = itemJSON[field.rawValue] else { return nil }
        guard let part else { return whole }
        return whole[part]
    }
}

// MARK: - Selecting fields

extension Item {
    /// The item's JSON form keeping only `fields`, in the order given; parts stay nested
    /// (`metrics.stars` gives `{"metrics": {"stars": 12}}`). Fields the item does not have are omitted.
    public func jsonValue(selecting fields: [ItemFieldPath]) -> JSONValue {
        let full = jsonValue
        var object = JSONObject()
        for path in fields {
            guard let value = path.value(in: full) else { continue }
            if let part = path.part {
                var inner = object[path.field.rawValue]?.object ?? JSONObject()
                inner[part] = value
                object[path.field.rawValue] = .object(inner)
            } else {
                object[path.field.rawValue] = value
            }
        }
        return .object(object)
    }
}

// MARK: - Sorting

/// `--sort`: a field to order items by, ascending, or descending with a leading `-`.
public struct ItemSort: Sendable, Equatable, CustomStringConvertible {
    /// The field compared.
    public var path: ItemFieldPath
    /// Whether the largest (or latest, or last in the alphabet) comes first.
    public var descending: Bool

    /// Parses `createdAt`, `-createdAt`, `title`, `metrics.stars`.
    /// - Throws: a usage error for unknown fields and for fields that hold several values (`location`, `tags`).
    public init(parsing text: String) throws(AggregateError) {
        descending = text.hasPrefix("-")
        path = try ItemFieldPath(parsing: descending ? String(text.dropFirst()) : text)
        let sortable = path.part != nil || ![.location, .metrics, .tags, .extra].contains(path.field)
        guard sortable else {
            throw AggregateError(.usage, "--sort needs a single value to compare, not '\(path)': use e.g. createdAt, -createdAt, title or metrics.<name>")
        }
    }

    /// `-createdAt`.
    public var description: String { (descending ? "-" : "") + path.description }

    /// A value to compare: numbers as numbers, everything else as text.
    enum Key: Equatable {
        case number(Decimal)
        case text(String)

        static func < (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.number(let a), .number(let b)): return a < b
            case (.text(let a), .text(let b)):
                return a.compare(b, options: [.caseInsensitive, .numeric], locale: Locale(identifier: "en_US_POSIX")) == .orderedAscending
            case (.number, .text): return true
            case (.text, .number): return false
            }
        }
    }

    func key(of item: Item) -> Key? {
        switch (path.field, path.part) {
        case (.createdAt, _): return item.createdAt.map { .number(Decimal($0.timeIntervalSince1970)) }
        case (.metrics, let name?): return item.metrics[name].map(Key.number)
        default:
            switch path.value(in: item.jsonValue) {
            case .string(let text)?: return .text(text)
            case .number(let text)?: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Key.number) ?? .text(text)
            case .bool(let flag)?: return .number(flag ? 1 : 0)
            default: return nil
            }
        }
    }

    /// `items` in this order. The sort is stable (equal keys keep the API's order), and items without the field
    /// come last whichever the direction.
    public func sorted(_ items: [Item]) -> [Item] {
        let keyed = items.enumerated().map { (index: $0.offset, key: key(of: $0.element), item: $0.element) }
        return keyed.sorted { a, b in
            switch (a.key, b.key) {
            case (let x?, let y?):
                if x < y { return !descending }
                if y < x { return descending }
                return a.index < b.index
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return a.index < b.index
            }
        }.map(\.item)
    }
}

extension ProviderResult {
    /// The result with its items in `sort`'s order, and `meta` saying the order was changed locally.
    public func sorted(by sort: ItemSort) -> ProviderResult {
        var copy = self
        copy.items = sort.sorted(items)
        copy.meta.sortedLocally = sort.description
        return copy
    }

    /// The result rendered with only `fields` (in JSON, NDJSON, CSV, Markdown and text), and `meta` saying so.
    public func selecting(_ fields: [ItemFieldPath]) -> ProviderResult {
        var copy = self
        copy.meta.selectedFields = fields
        return copy
    }
}
