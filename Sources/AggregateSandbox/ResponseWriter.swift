import AggregateCore
import AggregateSockets
import AggregateJSON
import AggregateSandboxKit
import AggregateText
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body the server sends: bytes in memory, or a JSON document generated while it is written.
enum ResponseBody {
    case data(Data)
    case generated(GeneratedJSONBody)

    var count: Int {
        switch self {
        case .data(let data): return data.count
        case .generated(let body): return body.size
        }
    }
}

/// A response on its way to the socket, with what a fault does to it.
struct OutgoingResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: ResponseBody
    /// Declare the whole length, send half, then close.
    var truncate = false

    init(status: Int, headers: HTTPHeaders, body: ResponseBody, truncate: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncate = truncate
    }

    init(_ response: SandboxResponse) {
        self.init(status: response.status, headers: response.headers, body: .data(response.body))
    }

    /// A JSON error for requests the server itself rejects.
    static func error(_ status: Int, _ message: String) -> OutgoingResponse {
        let body: JSONValue = ["error": .string(HTTPStatus.reason(status).lowercased()), "message": .string(message), "status": .int(status)]
        return OutgoingResponse(SandboxResponse.json(body, status: status))
    }
}

/// A valid JSON document of exactly `size` bytes, written in pieces so `size=1GiB` is never held in memory.
struct GeneratedJSONBody {
    /// `{}` is the smallest JSON object.
    static let minimumSize = 2
    private static let prefix = Array(#"{"padding":""#.utf8)
    private static let suffix = Array(#""}"#.utf8)

    let size: Int

    /// Sends the first `limit` bytes through `send` in chunks; false when a send fails.
    func write(limit: Int, _ send: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let end = min(limit, size)
        guard size >= Self.prefix.count + Self.suffix.count else {
            // Too small for the padding member: `{}` followed by spaces.
            let tiny = Array("{}".utf8) + Array(repeating: UInt8(ascii: " "), count: size - 2)
            return tiny.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        }
        // Only the framing bytes differ from the padding, so one chunk of `x` is patched and restored around them.
        let framing = Array(Self.prefix.enumerated().map { (offset: $0.offset, byte: $0.element) })
            + Self.suffix.enumerated().map { (offset: size - Self.suffix.count + $0.offset, byte: $0.element) }
        let chunkSize = 64 << 10
        let padding = UInt8(ascii: "x")
        var chunk = [UInt8](repeating: padding, count: chunkSize)
        var offset = 0
        while offset < end {
            let count = min(chunkSize, end - offset)
            let patched = framing.filter { $0.offset >= offset && $0.offset < offset + count }
            for item in patched { chunk[item.offset - offset] = item.byte }
            let ok = chunk.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            for item in patched { chunk[item.offset - offset] = padding }
            if !ok { return false }
            offset += count
        }
        return true
    }
}

/// Writes responses in HTTP/1.1 framing.
enum ResponseWriter {
    /// Header fields the server always sets itself, whatever a route put in its response.
    private static let managedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "date", "server", "keep-alive"]

    /// Writes `response` and returns how many body bytes went out, or `nil` when the client went away, stopped
    /// taking bytes (no piece of 64 KiB taken within `stallTimeout`) or the server is stopping (`wake`).
    static func write(
        _ response: OutgoingResponse, to descriptor: Int32, keepAlive: Bool, date: Date, headOnly: Bool,
        stallTimeout: TimeInterval, wake: WakeSignal
    ) -> Int? {
        let send = { (bytes: UnsafeRawBufferPointer) in POSIXSocket.sendAll(descriptor, bytes, stallTimeout: stallTimeout, wake: wake) }
        var head = "HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\r\n"
        for field in response.headers where !managedHeaders.contains(field.name.lowercased()) {
            head += "\(clean(field.name)): \(clean(field.value))\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n"
        head += "Date: \(HTTPDate.format(date))\r\n"
        head += "Server: aggregate-sandbox\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"

        let limit = headOnly ? 0 : response.truncate ? response.body.count / 2 : response.body.count
        switch response.body {
        case .data(let data):
            // One send for head and body keeps small responses in one packet.
            var packet = Data(head.utf8)
            packet.append(data.prefix(limit))
            return packet.withUnsafeBytes(send) ? limit : nil
        case .generated(let body):
            guard Data(head.utf8).withUnsafeBytes(send) else { return nil }
            return body.write(limit: limit, send) ? limit : nil
        }
    }

    /// The informational response a client waits for after `Expect: 100-continue`.
    static func writeContinue(to descriptor: Int32) -> Bool {
        POSIXSocket.sendAll(descriptor, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// Header text without line breaks, so a route's value can never split the response.
    private static func clean(_ text: String) -> String {
        // Scalars, not Characters: "\r\n" is a single Character that equals neither "\r" nor "\n".
        let isBreak = { (scalar: Unicode.Scalar) in scalar == "\r" || scalar == "\n" }
        guard text.unicodeScalars.contains(where: isBreak) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isBreak($0) ? " " : $0 }))
    }
}
