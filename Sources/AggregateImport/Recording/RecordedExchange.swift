import AggregateCore
import AggregateHTTP
import AggregateJSON
import Foundation

/// One successful JSON exchange of a cassette, taken apart for the importer: its URL's parts, its request headers
/// and its parsed body.
struct RecordedExchange {
    /// Its place in the cassette, counted from 0 (the report's `/exchanges/N`).
    var index: Int
    var origin: String
    /// The path's segments, percent-decoded, without empty ones.
    var segments: [String]
    var query: [(name: String, value: String)]
    var requestHeaders: HTTPHeaders
    var responseHeaders: HTTPHeaders
    var body: Data
    var json: JSONValue

    var pointer: String { "/exchanges/\(index)" }

    func value(of parameter: String) -> String? { query.first { $0.name == parameter }?.value }

    /// The exchange when it is a GET answered 2xx with a JSON body, or why it is not one the importer can learn from.
    static func read(_ exchange: Cassette.Exchange, index: Int) -> Result<RecordedExchange, Skip> {
        guard exchange.request.method.uppercased() == "GET" else { return .failure(Skip("a \(exchange.request.method) request: only GETs are imported")) }
        guard case .response(let status, let headers, let body) = exchange.outcome else { return .failure(Skip("no response (a recorded failure)")) }
        guard (200...299).contains(status) else { return .failure(Skip("HTTP \(status): only successful answers show the records")) }
        guard let components = URLComponents(string: exchange.request.url), let scheme = components.scheme, let host = components.host else {
            return .failure(Skip("the URL \(exchange.request.url) has no host"))
        }
        let json: JSONValue
        do {
            json = try JSONParser().parse(body)
        } catch {
            return .failure(Skip("the body is not JSON (\(headers["Content-Type"] ?? "no Content-Type"))"))
        }
        let origin = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        let segments = components.path.split(separator: "/").map(String.init)
        let query = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        return .success(RecordedExchange(
            index: index, origin: origin, segments: segments, query: query, requestHeaders: exchange.request.headers, responseHeaders: headers,
            body: body, json: json))
    }

    /// Why an exchange is left out.
    struct Skip: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The path with ids made placeholders: `/items/{id}` for `/items/8863`. A segment is an id when it is a number,
    /// a UUID or a long hexadecimal string, never a word.
    func shape(placeholderNames: (Int) -> String) -> [PathPart] {
        segments.enumerated().map { index, segment in
            Self.isIdentifier(segment) ? .placeholder(placeholderNames(index), value: segment) : .literal(segment)
        }
    }

    static func isIdentifier(_ segment: String) -> Bool {
        let scalars = segment.unicodeScalars
        if !scalars.isEmpty, scalars.allSatisfy({ CharacterSet.decimalDigits.contains($0) }) { return true }
        if UUID(uuidString: segment) != nil { return true }
        let hex = CharacterSet(charactersIn: "0123456789abcdefABCDEF")
        return segment.count >= 16 && scalars.allSatisfy { hex.contains($0) } && scalars.contains { CharacterSet.decimalDigits.contains($0) }
    }
}

/// A part of a path shape.
enum PathPart: Equatable {
    case literal(String)
    case placeholder(String, value: String)

    /// How the shape groups exchanges: a placeholder matches any id.
    var key: String {
        switch self {
        case .literal(let text): return text
        case .placeholder: return "{}"
        }
    }
}
