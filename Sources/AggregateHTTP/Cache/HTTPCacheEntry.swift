public import AggregateCore
import AggregateJSON
public import Foundation

/// One stored response of the disk cache, as written to its file.
///
/// The file is a magic line, one line of JSON metadata, then the body's bytes. The metadata names the body's length
/// and checksum, so a truncated or damaged file is recognised and discarded rather than served.
/// It never holds a credential: the URL is stored redacted (and only for `aggregate cache` and traces), credential
/// headers are dropped, and responses that repeat a secret are not stored at all.
public struct HTTPCacheEntry: Sendable, Equatable {
    /// The first line of every entry file; the number changes with the format.
    static let magic = "aggregate-http-cache 1"

    /// The request's URL, redacted (for people; the file name is the key).
    public var url: String
    /// The response's status (only 200 is stored).
    public var status: Int
    /// The response's header fields, credential headers removed.
    public var headers: HTTPHeaders
    /// The response's body.
    public var body: Data
    /// When the response was stored or last confirmed by the server.
    public var storedAt: Date
    /// Until when it answers without asking the server.
    public var freshUntil: Date
    /// Why it is fresh that long, for `--verbose`.
    public var freshnessReason: String

    /// Creates an entry.
    public init(url: String, status: Int, headers: HTTPHeaders, body: Data, storedAt: Date, freshUntil: Date, freshnessReason: String) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        self.freshnessReason = freshnessReason
    }

    /// The response's `ETag`, if any.
    public var etag: String? { headers["ETag"] }
    /// The response's `Last-Modified`, if any.
    public var lastModified: String? { headers["Last-Modified"] }
    /// Whether the server can be asked whether it changed.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// The stored response as the fetch layer returns it.
    public func response(for url: URL) -> HTTPResponse { HTTPResponse(status: status, headers: headers, body: body, url: url) }

    /// The bytes of the entry's file.
    package func encoded() -> Data {
        let metadata: JSONValue = [
            "url": .string(url),
            "status": .int(status),
            "headers": .array(headers.map { .array([.string($0.name), .string($0.value)]) }),
            "storedAt": .number(String(format: "%.3f", storedAt.timeIntervalSince1970)),
            "freshUntil": .number(String(format: "%.3f", freshUntil.timeIntervalSince1970)),
            "freshness": .string(freshnessReason),
            "bodyBytes": .int(body.count),
            "bodyChecksum": .string(FNV1a.hex(body)),
        ]
        var data = Data((Self.magic + "\n").utf8)
        data.append(JSONWriter().data(metadata))
        data.append(UInt8(ascii: "\n"))
        data.append(body)
        return data
    }

    /// Reads an entry file's bytes.
    /// - Throws: ``HTTPCacheEntry/Damage`` naming what is wrong (another format, cut short, checksum mismatch).
    package static func decode(_ data: Data) throws(Damage) -> HTTPCacheEntry {
        let newline = UInt8(ascii: "\n")
        guard let first = data.firstIndex(of: newline), String(decoding: data[..<first], as: UTF8.self) == magic else {
            throw Damage(reason: data.isEmpty ? "it is empty" : "it is not in the cache's format")
        }
        guard let second = data[(first + 1)...].firstIndex(of: newline) else { throw Damage(reason: "it is cut short") }
        guard case .object(let metadata)? = try? JSONParser().parse(Data(data[(first + 1)..<second])),
            case .string(let url)? = metadata["url"], let status = metadata["status"]?.int,
            case .array(let fields)? = metadata["headers"],
            let storedAt = metadata["storedAt"]?.double, let freshUntil = metadata["freshUntil"]?.double,
            let length = metadata["bodyBytes"]?.int, case .string(let checksum)? = metadata["bodyChecksum"]
        else { throw Damage(reason: "its metadata cannot be read") }
        var headers = HTTPHeaders()
        for field in fields {
            guard case .array(let pair) = field, pair.count == 2, case .string(let name) = pair[0], case .string(let value) = pair[1] else {
                throw Damage(reason: "its metadata cannot be read")
            }
            headers.add(name, value)
        }
        let body = Data(data[(second + 1)...])
        guard body.count == length else { throw Damage(reason: "its body has \(body.count) of \(length) bytes") }
        guard checksum == FNV1a.hex(body) else { throw Damage(reason: "its body does not match its checksum") }
        var reason = ""
        if case .string(let text)? = metadata["freshness"] { reason = text }
        return HTTPCacheEntry(
            url: url, status: status, headers: headers, body: body, storedAt: Date(timeIntervalSince1970: storedAt),
            freshUntil: Date(timeIntervalSince1970: freshUntil), freshnessReason: reason)
    }

    /// Why an entry file cannot be used.
    package struct Damage: Error, Sendable {
        package var reason: String
    }
}
