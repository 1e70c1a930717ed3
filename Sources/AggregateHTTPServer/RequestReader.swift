package import AggregateCore
package import AggregateSockets
import AggregateText
package import Foundation

/// One request as read off the wire, before routing.
package struct ReceivedRequest: Sendable {
    package var method: String
    /// The request target as sent: `/path?query` (absolute-form targets are reduced to this).
    package var target: String
    package var headers: HTTPHeaders
    package var body: Data
    /// Whether the connection may carry another request after this one.
    package var keepAlive: Bool

    /// The target's path, without the query.
    package var path: String { String(target.prefix { $0 != "?" && $0 != "#" }) }
}

/// A request the server refuses before routing, with the status to answer.
package struct RequestRejection: Error {
    package init(status: Int, message: String, target: String? = nil, method: String? = nil) {
        self.status = status
        self.message = message
        self.target = target
        self.method = method
    }

    package var status: Int
    package var message: String
    /// The target, when the request line was readable, for the log.
    package var target: String?
    package var method: String?
}

/// Reads requests from one connection, keeping bytes that arrive early (pipelining) for the next request.
///
/// Every wait is bounded by the idle timeout and ends when the server stops, so a half-open client can never
/// hold a thread forever.
package final class RequestReader {
    /// What reading one request ended with.
    package enum Outcome {
        case request(ReceivedRequest)
        /// The client closed, went idle between requests, or the server is stopping: close quietly.
        case finished
        case rejected(RequestRejection)
    }

    /// A request head larger than this is refused with 431 rather than buffered without end.
    package static let maximumHeadBytes = 64 << 10
    package static let maximumHeaderCount = 200

    private let descriptor: Int32
    private let wake: WakeSignal
    private let idleTimeout: TimeInterval
    private let headTimeout: TimeInterval
    private let keepAliveTimeout: TimeInterval
    private let maximumBodyBytes: Int
    /// Called before reading a body whose client sent `Expect: 100-continue`.
    private let sendContinue: () -> Bool
    private var buffer = ByteBuffer()

    package init(
        descriptor: Int32, wake: WakeSignal, idleTimeout: TimeInterval, headTimeout: TimeInterval, keepAliveTimeout: TimeInterval,
        maximumBodyBytes: Int, sendContinue: @escaping () -> Bool
    ) {
        self.descriptor = descriptor
        self.wake = wake
        self.idleTimeout = idleTimeout
        self.headTimeout = min(headTimeout, idleTimeout)
        self.keepAliveTimeout = min(keepAliveTimeout, idleTimeout)
        self.maximumBodyBytes = maximumBodyBytes
        self.sendContinue = sendContinue
    }

    /// Reads the next request.
    package func next() -> Outcome {
        do {
            guard let head = try readHead() else { return .finished }
            guard let body = try readBody(for: head) else { return .finished }
            var request = head
            request.body = body
            return .request(request)
        } catch let rejection as RequestRejection {
            return .rejected(rejection)
        } catch {
            return .rejected(RequestRejection(status: 400, message: "\(error)"))
        }
    }

    // MARK: - Head

    /// Reads a head within two deadlines: the keep-alive timeout until its first byte, then the head timeout for
    /// the whole of it, however the bytes trickle in (one a second keeps no connection alive for long).
    private func readHead() throws -> ReceivedRequest? {
        var scanFrom = 0
        let waitStarted = ProcessInfo.processInfo.systemUptime
        var headStarted: TimeInterval? = buffer.count > 0 ? waitStarted : nil
        while true {
            // Robust servers ignore blank lines before a request line (RFC 9112 §2.2).
            while let first = buffer.first, first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") { buffer.consume(1) }
            let end = buffer.headEnd(scanningFrom: scanFrom)
            guard (end?.length ?? buffer.count) <= Self.maximumHeadBytes else {
                throw RequestRejection(status: 431, message: "the request head is larger than \(ByteCount.describe(Self.maximumHeadBytes))")
            }
            if let end {
                let head = buffer.take(end.length)
                return try parseHead(head.prefix(end.contentLength))
            }
            scanFrom = max(0, buffer.count - 3)
            let now = ProcessInfo.processInfo.systemUptime
            let remaining = headStarted.map { $0 + headTimeout - now } ?? (waitStarted + keepAliveTimeout - now)
            switch remaining > 0 ? fill(timeout: remaining) : .timedOut {
            case .data:
                if headStarted == nil { headStarted = now }
                continue
            case .closed, .stopped: return nil
            case .timedOut:
                if headStarted == nil { return nil }
                throw RequestRejection(status: 408, message: "the request head did not arrive within \(HTTPServerDuration.describe(headTimeout))")
            }
        }
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>) throws -> ReceivedRequest {
        guard !bytes.contains(0) else { throw RequestRejection(status: 400, message: "the request contains a NUL byte") }
        // Split bytes, not characters: to Swift, "\r\n" is one Character, so splitting text on "\n" misses it.
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw RequestRejection(status: 400, message: "the request line is missing") }

        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw RequestRejection(status: 400, message: "the request line is not 'METHOD /path HTTP/1.1'")
        }
        let method = String(parts[0])
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenByte) else {
            throw RequestRejection(status: 400, message: "the method is not a valid token")
        }
        let version = parts[2]
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.hasPrefix("HTTP/") {
                throw RequestRejection(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are served", method: method)
            }
            throw RequestRejection(status: 400, message: "the request line has no HTTP version", method: method)
        }
        guard let target = Self.originForm(String(parts[1])) else {
            throw RequestRejection(status: 400, message: "the request target must be a path such as /2/groups", method: method)
        }

        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard headers.fields.count < Self.maximumHeaderCount else {
                throw RequestRejection(status: 431, message: "more than \(Self.maximumHeaderCount) header fields", target: target, method: method)
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw RequestRejection(status: 400, message: "a header line has no ':'", target: target, method: method)
            }
            let name = line[..<colon]
            // No space before the colon and no folded lines: both are ways to smuggle headers (RFC 9112 §5).
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw RequestRejection(status: 400, message: "a header name is not a valid token", target: target, method: method)
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.add(String(name), value)
        }

        let connection = Set(headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return ReceivedRequest(method: method, target: target, headers: headers, body: Data(), keepAlive: keepAlive)
    }

    /// `/path?q` as is; `http://host/path?q` reduced to `/path?q`; anything else is not servable.
    private static func originForm(_ target: String) -> String? {
        guard !target.isEmpty, target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return nil }
        if target.hasPrefix("/") { return target }
        let lowered = target.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let scheme = target.range(of: "://") else { return nil }
        let afterScheme = target[scheme.upperBound...]
        guard let slash = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let rest = String(afterScheme[slash...])
        return rest.hasPrefix("/") ? rest : "/" + rest
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: - Body

    private func readBody(for head: ReceivedRequest) throws -> Data? {
        let reject = { (status: Int, message: String) in
            RequestRejection(status: status, message: message, target: head.target, method: head.method)
        }
        let lengths = head.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        let encodings = head.headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }

        if !encodings.isEmpty {
            // Both framings at once is the classic request-smuggling shape; refuse rather than pick one.
            guard lengths.isEmpty else { throw reject(400, "Content-Length and Transfer-Encoding cannot both be sent") }
            guard encodings == ["chunked"] else {
                throw reject(501, "only 'Transfer-Encoding: chunked' request bodies are supported")
            }
            guard try continueIfExpected(head) else { return nil }
            return try readChunkedBody(reject)
        }

        guard let lengthText = lengths.first else { return Data() }
        guard lengths.allSatisfy({ $0 == lengthText }), !lengthText.isEmpty, lengthText.utf8.allSatisfy({ (48...57).contains($0) }),
            let length = Int(lengthText)
        else {
            throw reject(400, "Content-Length must be one whole number")
        }
        guard length <= maximumBodyBytes else {
            throw reject(413, "the body is larger than \(ByteCount.describe(maximumBodyBytes))")
        }
        guard length > 0 else { return Data() }
        guard try continueIfExpected(head) else { return nil }
        return try readExactly(length, reject)
    }

    private func continueIfExpected(_ head: ReceivedRequest) throws -> Bool {
        guard head.headers["Expect"]?.lowercased() == "100-continue" else { return true }
        return sendContinue()
    }

    private func readChunkedBody(_ reject: (Int, String) -> RequestRejection) throws -> Data? {
        var body = Data()
        while true {
            guard let line = try readLine(reject) else { return nil }
            let sizeText = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard !sizeText.isEmpty, sizeText.count <= 16, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw reject(400, "a chunk size is not a hexadecimal number")
            }
            if size == 0 {
                // Trailer fields are read and ignored, up to the empty line that ends the message.
                while true {
                    guard let trailer = try readLine(reject) else { return nil }
                    if trailer.isEmpty { return body }
                }
            }
            // Compared by subtraction: `body.count + size` overflows for a size near Int.max.
            guard size <= maximumBodyBytes - body.count else {
                throw reject(413, "the body is larger than \(ByteCount.describe(maximumBodyBytes))")
            }
            guard let chunk = try readExactly(size, reject) else { return nil }
            body.append(chunk)
            guard let end = try readLine(reject) else { return nil }
            guard end.isEmpty else { throw reject(400, "a chunk is longer than its declared size") }
        }
    }

    /// One line without its line break, or `nil` when the client went away.
    private func readLine(_ reject: (Int, String) -> RequestRejection) throws -> String? {
        var scanFrom = 0
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n"), from: scanFrom) {
                var line = buffer.take(newline + 1).dropLast()
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard buffer.count <= 4096 else { throw reject(400, "a chunk header line is too long") }
            scanFrom = buffer.count
            switch fill() {
            case .data: continue
            case .closed, .stopped: return nil
            case .timedOut: throw reject(408, "the body did not arrive within \(HTTPServerDuration.describe(idleTimeout))")
            }
        }
    }

    private func readExactly(_ count: Int, _ reject: (Int, String) -> RequestRejection) throws -> Data? {
        while buffer.count < count {
            switch fill() {
            case .data: continue
            case .closed, .stopped: return nil
            case .timedOut: throw reject(408, "the body did not arrive within \(HTTPServerDuration.describe(idleTimeout))")
            }
        }
        return Data(buffer.take(count))
    }

    // MARK: - Socket

    private enum FillResult { case data, closed, timedOut, stopped }

    private func fill(timeout: TimeInterval? = nil) -> FillResult {
        switch POSIXSocket.waitReadable(descriptor, wake: wake, timeout: timeout ?? idleTimeout) {
        case .stopped: return .stopped
        case .timedOut: return .timedOut
        case .readable: break
        }
        let received = buffer.append(upTo: 64 << 10) { POSIXSocket.receive(descriptor, into: $0) }
        return received > 0 ? .data : .closed
    }
}

/// Bytes received but not yet consumed; consuming moves an index instead of shifting the array each time.
package struct ByteBuffer {
    package init() {}
    private var storage: [UInt8] = []
    private var start = 0
    private var scratch: [UInt8] = []

    package var count: Int { storage.count - start }
    package var first: UInt8? { count > 0 ? storage[start] : nil }

    /// Appends what `read` puts into a scratch area of `capacity` bytes; returns what `read` returned.
    package mutating func append(upTo capacity: Int, _ read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        compactIfWorthwhile()
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: capacity) }
        let received = scratch.withUnsafeMutableBytes { read(UnsafeMutableRawBufferPointer(rebasing: $0[0..<capacity])) }
        // Appending a slice copies in bulk; element-wise growth is very slow in debug builds.
        if received > 0 { storage.append(contentsOf: scratch[0..<received]) }
        return received
    }

    package mutating func consume(_ count: Int) { start += count }

    /// Removes and returns the first `count` bytes.
    package mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let slice = storage[start..<(start + count)]
        start += count
        return ArraySlice(slice)
    }

    /// The offset of the first `byte` at or after `from` (offsets count from the unconsumed start).
    package func firstIndex(of byte: UInt8, from: Int) -> Int? {
        guard from < count else { return nil }
        return storage[(start + from)...].firstIndex(of: byte).map { $0 - start }
    }

    /// Where the head ends: the blank line after the headers (CRLF CRLF, or bare LF LF from lax clients).
    package func headEnd(scanningFrom from: Int) -> (contentLength: Int, length: Int)? {
        var index = start + from
        while index < storage.count {
            if storage[index] == UInt8(ascii: "\n") {
                if index + 1 < storage.count, storage[index + 1] == UInt8(ascii: "\n") {
                    return (index + 1 - start, index + 2 - start)
                }
                if index + 2 < storage.count, storage[index + 1] == UInt8(ascii: "\r"), storage[index + 2] == UInt8(ascii: "\n") {
                    return (index + 1 - start, index + 3 - start)
                }
            }
            index += 1
        }
        return nil
    }

    private mutating func compactIfWorthwhile() {
        guard start > 0, start >= storage.count / 2 || start > 1 << 20 else { return }
        storage.removeFirst(start)
        start = 0
    }
}

/// Durations as the server's messages show them: whole seconds, or milliseconds below one second.
package enum HTTPServerDuration {
    package static func describe(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "\(seconds) s" }
        if seconds >= 1 { return "\(Int(min(seconds, 1e15).rounded())) s" }
        return "\(Int((seconds * 1000).rounded())) ms"
    }
}
