import AggregateCore
public import AggregateJSON
import Foundation

/// One field a record has, as a schema declares it or as a recorded record shows it.
public struct RecordField: Sendable, Equatable {
    /// The JSON type of its value.
    public enum ValueType: String, Sendable, Equatable {
        case string, integer, number, boolean, object, array, null
    }

    /// The keys from the record down to the field, e.g. `["user", "login"]`.
    public var path: [String]
    public var type: ValueType
    /// The schema's `format` (`date-time`, `date`, `uri`), or what a recorded value looks like (`date-time`, `uri`,
    /// `epoch-seconds`, `epoch-ms`); `nil` when nothing is known.
    public var format: String?
    /// Where it was declared or seen, for the report.
    public var pointer: String

    public init(path: [String], type: ValueType, format: String? = nil, pointer: String) {
        self.path = path
        self.type = type
        self.format = format
        self.pointer = pointer
    }

    /// The field's name, the last key.
    public var name: String { path.last ?? "" }

    /// The definition's JSON path to it: `user.login`, or `["a.b"]` for a key that is not a plain name.
    public var jsonPath: String {
        path.map { key in
            let plain = !key.isEmpty && key.utf8.allSatisfy { byte in
                (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 95 || byte == 36
            } && !(key.utf8.first.map { (48...57).contains($0) } ?? false)
            return plain ? key : "[\(JSONWriter.quoted(key))]"
        }.enumerated().map { index, part in index == 0 || part.hasPrefix("[") ? part : "." + part }.joined()
    }

    /// The fields a recorded record shows, down to `depth` levels of objects, with a format read from each value
    /// (ISO 8601 dates, http(s) URLs, epoch times in fields named like times).
    public static func fields(of record: JSONValue, pointer: String, depth: Int = 2) -> [RecordField] {
        guard case .object(let object) = record else { return [] }
        var fields: [RecordField] = []
        for member in object.members {
            let path = [member.key]
            let here = JSONPointer.member(member.key, of: pointer)
            fields.append(RecordField(path: path, type: ValueType(member.value), format: observedFormat(member.key, member.value), pointer: here))
            if depth > 1, case .object = member.value {
                fields += Self.fields(of: member.value, pointer: here, depth: depth - 1).map { nested in
                    var field = nested
                    field.path = path + nested.path
                    return field
                }
            }
        }
        return fields
    }

    /// What a value looks like, for a recorded field.
    static func observedFormat(_ name: String, _ value: JSONValue) -> String? {
        switch value {
        case .string(let text):
            if ISO8601.date(from: text) != nil { return text.count == 10 ? "date" : "date-time" }
            if text.hasPrefix("https://") || text.hasPrefix("http://") { return "uri" }
            return nil
        case .number(let text):
            guard FieldWords.isTimeName(name), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            switch text.count {
            case 9...10: return "epoch-seconds"
            case 12...13: return "epoch-ms"
            default: return nil
            }
        default: return nil
        }
    }
}

extension RecordField.ValueType {
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .number(let text): self = text.utf8.contains { $0 == 46 || $0 == 101 || $0 == 69 } ? .number : .integer
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }
}

/// The item mapping an importer writes: the definition's `item` object and a note per field it chose.
public struct ItemMapping: Sendable, Equatable {
    /// The definition's `item`: `id` and `title` always, the other fields where a record field fits.
    public var item: JSONValue
    /// One `guessed` note per field chosen, and one per optional field nothing fitted.
    public var report: ImportReport
}

/// Guesses which record field fills which item field, from names and formats: the one place both importers
/// decide it, so an imported OpenAPI operation and an imported recording of it map alike.
///
/// Each item field has a list of names, best first, compared without case, `_` and `-` (`full_name` is
/// `fullname`). Top-level fields win over nested ones; a nested field counts when its parent is named for the role
/// (`headline.main`, `user.login`) or is the only way to reach one (`character.name`).
public enum ItemMappingGuess {
    /// The mapping, or `nil` when no field can give an id or a title (the caller reports the operation skipped).
    public static func guess(_ fields: [RecordField], pointer: String) -> ItemMapping? {
        var report = ImportReport()
        var item: [JSONObject.Member] = []
        var used: Set<[String]> = []

        func choose(_ role: Role) -> [RecordField] {
            let chosen = role.candidates(fields).filter { !used.contains($0.path) }.prefix(role.fallbacks)
            for field in chosen { used.insert(field.path) }
            return Array(chosen)
        }
        func value(_ chosen: [RecordField], dated: Bool = false) -> JSONValue {
            let values: [JSONValue] = chosen.map { field in
                if dated, let format = field.format, format == "epoch-seconds" || format == "epoch-ms" {
                    return .object(JSONObject([.init("path", .string(field.jsonPath)), .init("dateFormat", .string(format))]))
                }
                return .string(field.jsonPath)
            }
            return values.count == 1 ? values[0] : .array(values)
        }
        func describe(_ role: Role, _ chosen: [RecordField]) -> String {
            "\(role.name) ← \(chosen.map(\.jsonPath).joined(separator: ", then ")) (\(role.why))"
        }

        let title = choose(.title)
        guard !title.isEmpty else { return nil }
        var id = choose(.id)
        if id.isEmpty {
            // `book_id`, `itemId`: a top-level field named like an identifier of something.
            id = Array(fields.filter { field in
                field.path.count == 1 && (field.type == .string || field.type == .integer) && FieldWords.isIdentifierName(field.name) && !used.contains(field.path)
            }.prefix(1))
            for field in id { used.insert(field.path) }
        }
        if id.isEmpty { id = choose(.url) }
        if id.isEmpty { id = [title[0]] }
        item.append(.init("id", value(id)))
        report.add(.guessed, id[0].pointer, describe(.id, id))
        item.append(.init("title", value(title)))
        report.add(.guessed, title[0].pointer, describe(.title, title))

        for role in Role.optional {
            let chosen = choose(role)
            if chosen.isEmpty {
                report.add(.guessed, pointer, "\(role.name): no field looks like one, so items have none")
                continue
            }
            item.append(.init(role.name, value(chosen, dated: role.name == "createdAt")))
            report.add(.guessed, chosen[0].pointer, describe(role, chosen))
        }

        let metrics = fields.filter { field in
            field.path.count == 1 && (field.type == .integer || field.type == .number) && !used.contains(field.path)
                && !FieldWords.isIdentifierName(field.name) && field.format?.hasPrefix("epoch") != true
        }.prefix(8)
        if !metrics.isEmpty {
            item.append(.init("metrics", .object(JSONObject(metrics.map { .init(FieldWords.metricName($0.name), .string($0.jsonPath)) }))))
            report.add(.guessed, pointer, "metrics ← \(metrics.map(\.jsonPath).joined(separator: ", ")) (the record's numbers)")
        }
        return ItemMapping(item: .object(JSONObject(item)), report: report)
    }

    /// One item field and how to recognise the record fields that can fill it.
    struct Role: Sendable {
        var name: String
        var why: String
        /// Names that fit, best first, in ``FieldWords/key(_:)`` form.
        var names: [String]
        var types: Set<RecordField.ValueType> = [.string]
        /// Formats that fit whatever the name (a `date-time` for `createdAt`), after the named fields.
        var formats: Set<String> = []
        /// Parent names under which a child from ``names`` (or any of ``childNames``) counts.
        var childNames: [String] = []
        var fallbacks = 2
        var excluded: @Sendable (String) -> Bool = { _ in false }

        func candidates(_ fields: [RecordField]) -> [RecordField] {
            let fitting = fields.filter { types.contains($0.type) && !excluded(FieldWords.key($0.name)) }
            func rank(_ field: RecordField) -> Int? {
                let key = FieldWords.key(field.name)
                if field.path.count == 1 {
                    if let index = names.firstIndex(of: key) { return index }
                    if let format = field.format, formats.contains(format) { return 100 }
                    return nil
                }
                guard field.path.count == 2 else { return nil }
                let parent = FieldWords.key(field.path[0])
                if names.contains(parent), let index = childNames.firstIndex(of: key) { return 200 + index }
                if let index = names.firstIndex(of: key) { return 300 + index }
                if let format = field.format, formats.contains(format) { return 400 }
                return nil
            }
            return fitting.compactMap { field in rank(field).map { (field, $0) } }
                .enumerated().sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }.map(\.element.0)
        }

        static let id = Role(
            name: "id", why: "named like an identifier",
            names: ["id", "objectid", "uuid", "guid", "malid", "key", "slug", "uri"], types: [.string, .integer],
            childNames: [], fallbacks: 1)
        static let title = Role(
            name: "title", why: "named like a title",
            names: ["title", "fullname", "name", "headline", "displayname", "fancytitle", "subject", "label", "username", "login", "text", "storytitle"],
            childNames: ["main", "default", "title", "name", "english"])
        static let url = Role(
            name: "url", why: "named like a web page's address",
            names: ["htmlurl", "weburl", "permalink", "shareurl", "link", "url", "canonicalurl", "externalurl", "href"],
            formats: ["uri"], childNames: ["spotify", "html", "web", "url"], fallbacks: 1,
            excluded: FieldWords.isImageName)
        static let imageUrl = Role(
            name: "imageUrl", why: "named like an image",
            names: ["imageurl", "image", "thumbnail", "thumbnailurl", "avatarurl", "avatar", "poster", "posterpath", "coverimage", "picture", "logo", "icon"],
            childNames: ["imageurl", "url", "large", "medium", "small"], fallbacks: 1)
        static let author = Role(
            name: "author", why: "named like an author",
            names: ["author", "by", "creator", "owner", "user", "username", "byline", "postedby", "authorname", "uploader"],
            childNames: ["login", "username", "name", "displayname", "original"], fallbacks: 1)
        static let createdAt = Role(
            name: "createdAt", why: "a date named like a creation time",
            names: ["createdat", "created", "publishedat", "published", "pubdate", "date", "releasedate", "postedat", "addedat", "timestamp", "createdati", "time", "updatedat", "aired"],
            types: [.string, .integer], formats: ["date-time", "date", "epoch-seconds", "epoch-ms"],
            childNames: ["from", "date", "iso"], fallbacks: 1)
        static let summary = Role(
            name: "summary", why: "named like a description",
            names: ["description", "summary", "overview", "abstract", "synopsis", "excerpt", "snippet", "leadparagraph", "bio", "about", "body", "content"],
            fallbacks: 1)

        static let optional: [Role] = [.url, .author, .createdAt, .summary, .imageUrl]
    }
}

/// How field names are compared and turned into metric names.
enum FieldWords {
    /// `full_name`, `fullName` and `Full-Name` are all `fullname`.
    static func key(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }

    static func isImageName(_ key: String) -> Bool {
        ["image", "avatar", "thumb", "icon", "logo", "picture", "poster", "cover"].contains { key.contains($0) }
    }

    static func isTimeName(_ name: String) -> Bool {
        let key = key(name)
        return ["time", "date", "created", "updated", "published", "timestamp", "at"].contains { key.hasSuffix($0) || key.hasPrefix($0) }
            || key.hasSuffix("ati") || key.hasSuffix("ms")
    }

    /// `id`, `user_id`, `objectId`: numbers that identify rather than measure.
    static func isIdentifierName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "id" || lower.hasSuffix("_id") || lower.hasSuffix("-id") || (name.count > 2 && name.hasSuffix("Id"))
    }

    /// The metric's name in the item: the field's name in lower camel case (`num_comments` → `numComments`).
    static func metricName(_ name: String) -> String {
        let parts = name.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = parts.first else { return name }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
