package import AggregateCore
package import AggregateSockets
package import AggregateJSON
import AggregateText
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body written in pieces while it is sent, so a large one is never held in memory whole.
package protocol StreamedResponseBody: Sendable {
    /// The whole length, declared in `Content-Length`.
    var size: Int { get }
    /// Sends the first `limit` bytes through `send` in chunks; false when a send fails.
    func write(limit: Int, _ send: (UnsafeRawBufferPointer) -> Bool) -> Bool
}

/// A body the server sends: bytes in memory, or bytes generated while they are written.
package enum ResponseBody: Sendable {
    case data(Data)
    case streamed(any StreamedResponseBody)

    package var count: Int {
        switch self {
        case .data(let data): return data.count
        case .streamed(let body): return body.size
        }
    }
}

/// A response on its way to the socket, with what a fault does to it.
package struct OutgoingResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: ResponseBody
    /// Declare the whole length, send half, then close.
    package var truncate = false

    package init(status: Int, headers: HTTPHeaders, body: ResponseBody, truncate: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncate = truncate
    }

    /// A JSON document, with `Content-Type: application/json; charset=utf-8` unless `headers` names one.
    package static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> OutgoingResponse {
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "application/json; charset=utf-8" }
        return OutgoingResponse(status: status, headers: all, body: .data(JSONWriter().data(value)))
    }

    /// A JSON error for requests the server itself rejects: `{"error": "not found", "message": ..., "status": 404}`.
    package static func error(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> OutgoingResponse {
        let body: JSONValue = ["error": .string(HTTPReasonPhrase.of(status).lowercased()), "message": .string(message), "status": .int(status)]
        return json(body, status: status, headers: headers)
    }
}

/// Writes responses in HTTP/1.1 framing.
package enum ResponseWriter {
    /// Header fields the server always sets itself, whatever a route put in its response.
    private static let managedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "date", "server", "keep-alive"]

    /// Writes `response` and returns how many body bytes went out, or `nil` when the client went away, stopped
    /// taking bytes (no piece of 64 KiB taken within `stallTimeout`) or the server is stopping (`wake`).
    package static func write(
        _ response: OutgoingResponse, to descriptor: Int32, keepAlive: Bool, date: Date, headOnly: Bool,
        stallTimeout: TimeInterval, wake: WakeSignal, serverName: String
    ) -> Int? {
        let send = { (bytes: UnsafeRawBufferPointer) in POSIXSocket.sendAll(descriptor, bytes, stallTimeout: stallTimeout, wake: wake) }
        var head = "HTTP/1.1 \(response.status) \(HTTPReasonPhrase.of(response.status))\r\n"
        for field in response.headers where !managedHeaders.contains(field.name.lowercased()) {
            head += "\(clean(field.name)): \(clean(field.value))\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\n"
        head += "Date: \(HTTPDate.format(date))\r\n"
        head += "Server: \(clean(serverName))\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"

        let limit = headOnly ? 0 : response.truncate ? response.body.count / 2 : response.body.count
        switch response.body {
        case .data(let data):
            // One send for head and body keeps small responses in one packet.
            var packet = Data(head.utf8)
            packet.append(data.prefix(limit))
            return packet.withUnsafeBytes(send) ? limit : nil
        case .streamed(let body):
            guard Data(head.utf8).withUnsafeBytes(send) else { return nil }
            return body.write(limit: limit, send) ? limit : nil
        }
    }

    /// The informational response a client waits for after `Expect: 100-continue`.
    package static func writeContinue(to descriptor: Int32) -> Bool {
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
