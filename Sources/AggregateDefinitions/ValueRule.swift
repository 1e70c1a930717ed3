import AggregateCore
public import AggregateJSON
import AggregateText
import Foundation

/// How a definition finds one value in a record: fallbacks tried in order, the first non-empty one wins.
public struct ValueRule: Sendable, Equatable {
    /// One way to find the value.
    public struct Source: Sendable, Equatable {
        /// Where the value comes from.
        public enum Origin: Sendable, Equatable {
            /// A JSON path into the record.
            case path(JSONPath)
            /// A template whose names are JSON paths into the record.
            case template(Template)
            /// A fixed value.
            case constant(JSONValue)
        }

        public var origin: Origin
        /// Named transforms, applied in order.
        public var transforms: [Transform]
        /// How `date` reads text or numbers.
        public var dateFormat: DateFormat?
        /// What `join` puts between elements.
        public var separator: String
        /// Keep the first value (or array element) that is one of these words.
        public var oneOf: [String]?
    }

    /// A named transform.
    public enum Transform: String, Sendable, CaseIterable {
        case date, number, join, lowercase, uppercase, trim
        case htmlText = "html-text"
    }

    /// The date formats `date` reads.
    public enum DateFormat: String, Sendable, CaseIterable {
        case iso8601
        case epochSeconds = "epoch-seconds"
        case epochMilliseconds = "epoch-milliseconds"
        /// A calendar year (`1954` or `"1954"`): January 1 of it, 00:00 UTC.
        case year
        case rfc2822
        case twitter

        /// The short spellings a definition may use instead: `epoch-s`, `epoch-ms`.
        static let aliases: [String: DateFormat] = ["epoch-s": .epochSeconds, "epoch-ms": .epochMilliseconds]
    }

    /// The fallbacks, in order.
    public var sources: [Source]

    /// The first non-empty value the fallbacks find in `record`, transformed; `nil` when all are empty.
    public func value(in record: JSONValue) -> JSONValue? {
        for source in sources {
            if let found = source.value(in: record), !Self.isEmpty(found) { return found }
        }
        return nil
    }

    /// The value as text: strings as they are, numbers in their JSON text, booleans as `true`/`false`.
    public func text(in record: JSONValue) -> String? { value(in: record).flatMap(Self.text) }

    /// The non-empty values of the fallbacks in `record`, in order, each with the format it is read as a date in
    /// (ISO 8601 under a `date` transform, else its `dateFormat`).
    func dateCandidates(in record: JSONValue) -> [(value: JSONValue, format: DateFormat?)] {
        sources.compactMap { source in
            guard let value = source.value(in: record), !Self.isEmpty(value) else { return nil }
            return (value, source.transforms.contains(.date) ? .iso8601 : source.dateFormat)
        }
    }

    /// The first fallback value in `record` that reads as a date, with the value and the format it was read in:
    /// how `createdAt` is mapped, and what `aggregate check` counts.
    func date(in record: JSONValue) -> (date: Date, value: JSONValue, format: DateFormat?)? {
        for candidate in dateCandidates(in: record) {
            if let date = DefinitionDates.date(candidate.value, format: candidate.format) { return (date, candidate.value, candidate.format) }
        }
        return nil
    }

    /// Why no fallback found a value in `record`, for messages: `no key "name" in the top level; keys there: ...`.
    public func whyEmpty(in record: JSONValue) -> String {
        // Fallbacks that miss keys of the same object name it once: `no key "a" ...; no key "b" ...; keys there: ...`.
        var merged: [(head: String, keys: String?)] = []
        for reason in reasons(in: record) {
            let parts = reason.components(separatedBy: "; keys there: ")
            let keys = parts.count == 2 ? parts[1] : nil
            if let keys, let last = merged.last, last.keys == keys {
                merged[merged.count - 1].head += "; " + parts[0]
            } else {
                merged.append((parts[0], keys))
            }
        }
        return merged.map { $0.head + ($0.keys.map { "; keys there: \($0)" } ?? "") }.joined(separator: "; ")
    }

    private func reasons(in record: JSONValue) -> [String] {
        sources.map { source -> String in
            switch source.origin {
            case .path(let path):
                do throws(JSONPathLookupError) {
                    let found = try path.resolve(in: record)
                    if Self.isEmpty(found) { return "'\(path)' is \(found.typeName == "null" ? "null" : "empty")" }
                    return "'\(path)' holds \(found.typeName == "array" || found.typeName == "object" ? "an \(found.typeName)" : "a \(found.typeName)") that its oneOf or transforms do not take"
                } catch {
                    return error.reason
                }
            case .template(let template):
                return "the template's placeholders (\(template.names.map { "{\($0)}" }.joined(separator: ", "))) have no value"
            case .constant:
                return "the constant is empty"
            }
        }
    }

    /// A value as text, or `nil` for null, arrays and objects.
    package static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .number(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        default: return nil
        }
    }

    /// Missing, `null`, blank text, an empty array or object.
    static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        // Blank when every scalar is white space, which is what trimming it would leave empty; asked scalar by scalar
        // it stops at the first letter, where trimming bridged each long text to NSString (a sixth of a large run).
        case .string(let text): return text.unicodeScalars.allSatisfy(CharacterSet.whitespacesAndNewlines.contains)
        case .array(let elements): return elements.isEmpty
        case .object(let object): return object.isEmpty
        default: return false
        }
    }

    // MARK: Reading from a definition

    static let objectFields = ["path", "template", "constant", "oneOf", "transform", "dateFormat", "separator"]

    /// A path, an object with one source, or a list of them.
    init(reading reader: DefinitionReader) throws(DefinitionProblem) {
        if case .array = reader.value {
            sources = try reader.array(minimum: 1).map { (element) throws(DefinitionProblem) -> Source in
                if case .array = element.value { throw element.problem("a fallback must be a path or an object, not an array") }
                return try Source(reading: element)
            }
        } else {
            sources = [try Source(reading: reader)]
        }
    }
}

extension ValueRule.Source {
    init(reading reader: DefinitionReader) throws(DefinitionProblem) {
        if case .string(let text) = reader.value {
            // A string with a placeholder is a template (`{message}: {errors[0].field}`), any other a JSON path.
            let origin: Origin = text.contains("{") ? .template(try reader.template(namesArePaths: true)) : .path(try reader.jsonPath())
            self.init(origin: origin, transforms: [], dateFormat: nil, separator: ", ", oneOf: nil)
            return
        }
        let fields = try reader.object(allowed: ValueRule.objectFields)
        let origins = ["path", "template", "constant"].filter { fields[$0] != nil }
        guard origins.count == 1 else {
            throw reader.problem(origins.isEmpty ? "needs one of path, template or constant" : "has both \(origins.joined(separator: " and ")); give one")
        }
        let origin: Origin
        switch origins[0] {
        case "path": origin = .path(try fields.required("path").jsonPath())
        case "template": origin = .template(try fields.required("template").template(namesArePaths: true))
        default: origin = .constant(fields.required("constant").value)
        }
        var transforms: [ValueRule.Transform] = []
        if let transform = fields["transform"] {
            let names = transform.value.string != nil ? [transform] : try transform.array(minimum: 1)
            for name in names {
                transforms.append(try name.word(ValueRule.Transform.self))
            }
        }
        let dateFormat = try fields["dateFormat"].map { (format) throws(DefinitionProblem) -> ValueRule.DateFormat in
            if let text = format.value.string, let alias = ValueRule.DateFormat.aliases[text] { return alias }
            let words = ValueRule.DateFormat.allCases.map(\.rawValue) + ValueRule.DateFormat.aliases.keys.sorted()
            return try ValueRule.DateFormat(rawValue: format.word(words)) ?? .iso8601
        }
        let oneOf = try fields["oneOf"].map { (list) throws(DefinitionProblem) in
            try list.array(minimum: 1).map { (word) throws(DefinitionProblem) in try word.string(nonEmpty: false) }
        }
        self.init(
            origin: origin, transforms: transforms, dateFormat: dateFormat,
            separator: try fields["separator"]?.string(nonEmpty: false) ?? ", ", oneOf: oneOf)
    }

    /// The value this source finds in `record`, before deciding whether it is empty.
    func value(in record: JSONValue) -> JSONValue? {
        var value: JSONValue
        switch origin {
        case .path(let path):
            guard let found = try? path.resolve(in: record) else { return nil }
            value = found
        case .template(let template):
            let rendered = template.render { name in
                (try? JSONPath(parsing: name).resolve(in: record)).flatMap { ValueRule.isEmpty($0) ? nil : ValueRule.text($0) }
            }
            guard let rendered else { return nil }
            value = .string(rendered)
        case .constant(let constant):
            value = constant
        }
        if let oneOf {
            let candidates = value.array ?? [value]
            guard let match = candidates.first(where: { ValueRule.text($0).map(oneOf.contains) == true }) else { return nil }
            value = match
        }
        for transform in transforms {
            guard let next = apply(transform, to: value) else { return nil }
            value = next
        }
        return value
    }

    private func apply(_ transform: ValueRule.Transform, to value: JSONValue) -> JSONValue? {
        switch transform {
        case .date:
            // ISO 8601 text keeps its precision (Rails' milliseconds), in UTC; other formats become whole seconds.
            if case .string(let text) = value, dateFormat == nil || dateFormat == .iso8601 {
                return ISO8601.utcString(keepingPrecisionOf: text).map(JSONValue.string)
            }
            return DefinitionDates.date(value, format: dateFormat).map { .string(ISO8601.string(from: $0)) }
        case .number:
            if case .number = value { return value }
            guard let text = ValueRule.text(value)?.trimmingCharacters(in: .whitespaces), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                  Double(text) != nil
            else { return nil }
            return .decimal(decimal)
        case .join:
            guard let elements = value.array else { return value }
            return .string(elements.compactMap(ValueRule.text).joined(separator: separator))
        case .lowercase:
            return ValueRule.text(value).map { .string($0.lowercased()) }
        case .uppercase:
            return ValueRule.text(value).map { .string($0.uppercased()) }
        case .trim:
            return ValueRule.text(value).map { .string($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        case .htmlText:
            return ValueRule.text(value).flatMap { DefinitionHTML.plainText($0) }.map(JSONValue.string)
        }
    }
}

/// The date formats a definition names.
enum DefinitionDates {
    /// `value` read in `format`; without one, ISO 8601 text or epoch seconds.
    static func date(_ value: JSONValue, format: ValueRule.DateFormat?) -> Date? {
        let text = ValueRule.text(value)?.trimmingCharacters(in: .whitespaces) ?? ""
        switch format {
        case nil:
            if case .number = value, let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
            return ISO8601.date(from: text)
        case .iso8601?: return ISO8601.date(from: text)
        case .epochSeconds?: return Double(text).map { Date(timeIntervalSince1970: $0) }
        case .epochMilliseconds?: return Double(text).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .year?: return year(text)
        case .twitter?: return UTCTimestamp.date(fromTwitter: text)
        case .rfc2822?: return rfc2822(text)
        }
    }

    /// January 1 of a year from 1 to 9999 (`1954`, `"1954"`), 00:00 UTC.
    static func year(_ text: String) -> Date? {
        guard let number = Int(text), (1...9999).contains(number) else { return nil }
        var components = DateComponents()
        components.year = number
        components.month = 1
        components.day = 1
        return utcCalendar.date(from: components)
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// Why a number read as epoch seconds (`format` `epoch-seconds`, or none) is most likely something else, or
    /// `nil`: a year such as `1954` would be a moment in the first hour of 1970, and milliseconds a date after 5000.
    static func suspiciousEpochSeconds(_ value: JSONValue, format: ValueRule.DateFormat?) -> String? {
        guard format == nil || format == .epochSeconds, case .number(let text) = value, let number = Double(text) else { return nil }
        if (1000...2200).contains(number), number.rounded() == number {
            return "holds \(text), which looks like a year, not epoch seconds (it would be \(ISO8601.string(from: Date(timeIntervalSince1970: number)))); use \"dateFormat\": \"year\""
        }
        if number >= 100_000_000_000 {
            return "holds \(text), which looks like epoch milliseconds, not seconds; use \"dateFormat\": \"epoch-ms\""
        }
        return nil
    }

    /// `Tue, 10 Jun 2003 04:00:00 GMT` or `10 Jun 2003 04:00:00 +0200`.
    static func rfc2822(_ text: String) -> Date? {
        rfc2822Formatters.lazy.compactMap { formatter in formatter.withLock { $0.date(from: text) } }.first
    }

    private static let rfc2822Formatters = [
        "EEE, d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm:ss zzz", "d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm Z",
    ].map { LockedFormatter(ISO8601.utcFormatter(format: $0)) }
}

/// HTML fragments (Hacker News' `comment_text`) as plain text on one line.
enum DefinitionHTML {
    static func plainText(_ html: String) -> String? {
        // Some old texts carry a literal backslash-n where a line break was meant.
        PlainText.fromHTML(html.replacingOccurrences(of: "\\n", with: " "))
    }
}
