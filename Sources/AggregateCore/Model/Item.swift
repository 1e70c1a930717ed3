public import AggregateJSON
import AggregateText
public import Foundation

/// One normalized result from any provider: a group, a loan, a movie, a tweet or a message.
///
/// Optional fields are `nil` when the API did not say; they are then omitted from JSON, never written as `""` or `0`.
public struct Item: Sendable, Equatable {
    /// The provider's command-line name, e.g. `meetup`.
    public var provider: String
    /// What the item is: `group`, `loan`, `movie`, `tweet` or `message`.
    public var kind: String
    /// The API's id for the item, always as a string (tweet ids exceed 2^53).
    public var id: String
    /// The item's main line: a group's name, a movie's title, a tweet's text.
    public var title: String
    /// A secondary line.
    public var subtitle: String?
    /// Plain text (no HTML) describing the item.
    public var summary: String?
    /// A link to the item on the web.
    public var url: String?
    /// A link to the item's picture.
    public var imageUrl: String?
    /// Who made or runs the item.
    public var author: String?
    /// When the item was created or published.
    public var createdAt: Date?
    /// Where the item is.
    public var location: Location?
    /// Numeric figures, e.g. `members`, `rating`, `loanAmount`; exact decimals.
    public var metrics: [String: Decimal]
    /// Short labels such as topic names or hashtags.
    public var tags: [String]
    /// Provider-specific extra fields.
    public var extra: JSONObject

    /// Creates an item.
    public init(
        provider: String, kind: String, id: String, title: String, subtitle: String? = nil, summary: String? = nil,
        url: String? = nil, imageUrl: String? = nil, author: String? = nil, createdAt: Date? = nil,
        location: Location? = nil, metrics: [String: Decimal] = [:], tags: [String] = [], extra: JSONObject = JSONObject()
    ) {
        self.provider = provider
        self.kind = kind
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.summary = summary
        self.url = url
        self.imageUrl = imageUrl
        self.author = author
        self.createdAt = createdAt
        self.location = location
        self.metrics = metrics
        self.tags = tags
        self.extra = extra
    }
}

/// Where an item is. Every part is optional.
public struct Location: Sendable, Equatable {
    /// The city or town.
    public var city: String?
    /// The country, as the API gives it (a name or an ISO code).
    public var country: String?
    /// Latitude in degrees.
    public var latitude: Double?
    /// Longitude in degrees.
    public var longitude: Double?

    /// Creates a location; returns `nil` from ``nonEmpty`` when nothing is known.
    public init(city: String? = nil, country: String? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.city = city
        self.country = country
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `self`, or `nil` when no part is known (so the JSON omits `location`).
    public var nonEmpty: Location? {
        city == nil && country == nil && latitude == nil && longitude == nil ? nil : self
    }
}

// MARK: - JSON

extension Item {
    /// The item in the JSON contract's field order (see `Schemas/aggregate-result.schema.json`).
    public var jsonValue: JSONValue {
        // Appended in order (the keys are distinct): setting each through the subscript looked every earlier key up.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(14)
        members.append("provider", .string(provider))
        members.append("kind", .string(kind))
        members.append("id", .string(id))
        members.append("title", .string(title))
        members.append("subtitle", subtitle.map(JSONValue.string))
        members.append("summary", summary.map(JSONValue.string))
        members.append("url", url.map(JSONValue.string))
        members.append("imageUrl", imageUrl.map(JSONValue.string))
        members.append("author", author.map(JSONValue.string))
        members.append("createdAt", createdAt.map { .string(ISO8601.string(from: $0)) })
        if let location = location?.nonEmpty {
            var place: [JSONObject.Member] = []
            place.append("city", location.city.map(JSONValue.string))
            place.append("country", location.country.map(JSONValue.string))
            place.append("latitude", location.latitude.map(JSONValue.double))
            place.append("longitude", location.longitude.map(JSONValue.double))
            members.append("location", .object(JSONObject(place)))
        }
        members.append("metrics", .object(JSONObject(metrics.sorted { $0.key < $1.key }.map { .init($0.key, .decimal($0.value)) })))
        members.append("tags", .array(tags.map(JSONValue.string)))
        members.append("extra", .object(extra))
        return .object(JSONObject(members))
    }

    /// Reads an item back from its JSON form.
    /// - Throws: ``AggregateError`` of kind `decoding` when a required field is missing.
    public init(json: JSONValue) throws {
        func required(_ key: String) throws -> String {
            guard let value = json[key]?.string else {
                throw AggregateError(.decoding, "item is missing the string field '\(key)'")
            }
            return value
        }
        self.init(
            provider: try required("provider"), kind: try required("kind"), id: try required("id"),
            title: try required("title"))
        subtitle = json["subtitle"]?.string
        summary = json["summary"]?.string
        url = json["url"]?.string
        imageUrl = json["imageUrl"]?.string
        author = json["author"]?.string
        createdAt = json["createdAt"]?.string.flatMap(ISO8601.date(from:))
        if let place = json["location"] {
            location = Location(
                city: place["city"]?.string, country: place["country"]?.string,
                latitude: place["latitude"]?.double, longitude: place["longitude"]?.double)
        }
        for member in json["metrics"]?.object?.members ?? [] {
            metrics[member.key] = member.value.decimal
        }
        tags = json["tags"]?.array?.compactMap(\.string) ?? []
        extra = json["extra"]?.object ?? JSONObject()
    }
}

/// ISO 8601 dates as the JSON contract writes them: UTC, whole seconds, `Z`.
public enum ISO8601 {
    // Formatters are costly to create and these run for every item written or read, so they are made once.
    private static let plainDate = LockedFormatter(utcFormatter(format: "yyyy-MM-dd"))
    private static let internetDateTime = LockedFormatter(ISO8601DateFormatter(options: [.withInternetDateTime]))
    private static let internetDateTimeWithFraction = LockedFormatter(
        ISO8601DateFormatter(options: [.withInternetDateTime, .withFractionalSeconds]))

    /// `date` as e.g. `2002-10-08T17:22:14Z`.
    public static func string(from date: Date) -> String {
        UTCTimestamp.iso8601(date)
    }

    /// `text` (an ISO 8601 date-time) in UTC at the precision it was given: `…01.302Z` keeps its milliseconds,
    /// `…01Z` and `…01+02:00` have none. `nil` when `text` is not a date-time.
    public static func utcString(keepingPrecisionOf text: String) -> String? {
        guard let date = date(from: text) else { return nil }
        let hasFraction = text.contains(".")
        guard hasFraction else { return string(from: date) }
        // Rounded to the millisecond, so 01.302 read as 01.30199999 still prints .302.
        return UTCTimestamp.iso8601(date, milliseconds: true)
    }

    /// Parses ISO 8601 date-times with `Z` or an offset, with or without fractional seconds,
    /// and plain dates (`2012-07-03`, read as midnight UTC).
    public static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let date = UTCTimestamp.date(fromISO8601: trimmed) { return date }
        if let date = internetDateTimeWithFraction.withLock({ $0.date(from: trimmed) }) { return date }
        if let date = internetDateTime.withLock({ $0.date(from: trimmed) }) { return date }
        if trimmed.count == 10 { return plainDate.withLock { $0.date(from: trimmed) } }
        return nil
    }

    /// A formatter in UTC with the POSIX locale, for fixed formats. Creating one is costly: keep it, wrapped in a
    /// ``LockedFormatter`` when it is shared between tasks.
    public static func utcFormatter(format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter
    }
}

/// A formatter shared by concurrent code: Foundation's formatters are not thread-safe, so every use holds a lock.
public final class LockedFormatter<Wrapped: Formatter>: @unchecked Sendable {
    private let lock = NSLock()
    private let formatter: Wrapped

    /// Wraps `formatter`, which must not be used elsewhere afterwards.
    public init(_ formatter: Wrapped) { self.formatter = formatter }

    /// Runs `body` with the formatter while holding the lock.
    public func withLock<T>(_ body: (Wrapped) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(formatter)
    }
}

extension ISO8601DateFormatter {
    convenience init(options: ISO8601DateFormatter.Options) {
        self.init()
        formatOptions = options
    }
}
