import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
private let streamSocketType = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let streamSocketType = SOCK_STREAM
private let sendFlags: Int32 = 0
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - A provider that exists only for these tests

/// Echoes requests back as JSON and guards `/private` with a bearer token, like a real API's auth.
struct EchoTestProvider: Provider, SandboxProviding {
    static let providerName = "testapi"
    static let token = "sandbox-token"
    static let key = "sandbox-key-1234"

    static let descriptor = ProviderDescriptor(
        name: "testapi", displayName: "Test API", summary: "Echoes requests for the sandbox server tests.",
        docsURL: "https://example.invalid/docs", defaultBaseURL: "https://api.example.invalid",
        auth: [AuthVariable("TESTAPI_TOKEN", usage: "Authorization: Bearer"), AuthVariable("TESTAPI_KEY", usage: "key= query parameter")],
        authStyle: "bearer token", paginationStyle: "none",
        operations: [ProviderOperation(name: "echo", summary: "Echo a request.", itemKind: "echo")],
        examples: [])

    static var sandboxEnvironment: [String: String] { ["TESTAPI_TOKEN": token, "TESTAPI_KEY": key] }
    static var sandboxPaths: [PathPattern] { ["/echo", "/private"] }

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        switch request.path {
        case "/echo":
            var query = JSONObject()
            for item in request.query { query.set(item.name, .string(item.value)) }
            return .json([
                "method": .string(request.method),
                "path": .string(request.path),
                "query": .object(query),
                "body": .string(String(decoding: request.body, as: UTF8.self)),
                "contentType": .optional(request.headers["Content-Type"]),
                "baseURL": .string(context.baseURL.absoluteString),
            ])
        case "/private":
            guard request.bearerToken == token else {
                return .json(["error": "unauthorized", "message": "a bearer token is required"], status: 401)
            }
            return .json(["secret": "you are in"])
        default:
            return nil
        }
    }

    static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard status == 429 else { return nil }
        return .json(["message": "testapi rate limit exceeded", "code": .int(429)], status: 429)
    }

    func operation(named name: String, plan: Void) -> any APIOperation<Void> { Echo() }

    struct Echo: APIOperation {
        func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec { HTTPRequestSpec(url: call.url("/echo")) }
        func normalize(_ page: HTTPResponse, _ call: Call<Void>) throws -> Page { Page(items: []) }
    }
}

// MARK: - Servers

/// Collects log lines from a server; lines arrive from server threads after the response is written.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var sink: @Sendable (String) -> Void { { [self] line in append(line) } }

    private func append(_ line: String) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }

    /// The first line containing `text`, waiting up to `timeout` for it to be written.
    func line(containing text: String, timeout: TimeInterval = 3) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = lines.first(where: { $0.contains(text) }) { return line }
            Thread.sleep(forTimeInterval: 0.01)
        } while Date() < deadline
        return nil
    }

    /// Waits until at least `count` lines were written.
    @discardableResult
    func waitForLines(_ count: Int, timeout: TimeInterval = 3) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while lines.count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return lines
    }
}

let testCatalog = try! SandboxCatalog([EchoTestProvider.self], sandboxes: [EchoTestProvider.self])

/// A configuration for tests: ephemeral port, a log recorder, and the given tweaks.
func testConfiguration(
    _ recorder: LogRecorder = LogRecorder(), configure: (inout SandboxServerConfiguration) -> Void = { _ in }
) -> SandboxServerConfiguration {
    var configuration = SandboxServerConfiguration(port: 0, log: recorder.sink)
    configure(&configuration)
    return configuration
}

/// Starts a server on an ephemeral port; the caller stops it.
func startServer(_ configuration: SandboxServerConfiguration = testConfiguration()) throws -> SandboxServer {
    let server = SandboxServer(catalog: testCatalog, configuration: configuration)
    try server.start()
    return server
}

// MARK: - URLSession

struct FetchedResponse {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// One request through URLSession, the client the real CLI uses.
func fetch(
    _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 10
) async throws -> FetchedResponse {
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    request.timeoutInterval = timeout
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    return FetchedResponse(status: http.statusCode, headers: fields, body: data)
}

// MARK: - A raw socket client, for what URLSession hides (keep-alive, garbage, cut-off bodies)

struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// False when the connection ended before `Content-Length` bytes arrived.
    var complete: Bool

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct RawClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking TCP client with a receive timeout, so a server bug fails a test instead of hanging it.
final class RawClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, receiveTimeout: TimeInterval = 10) throws {
        descriptor = socket(AF_INET, streamSocketType, 0)
        guard descriptor >= 0 else { throw RawClientError(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(descriptor)
            throw RawClientError(description: "connect to port \(port) failed: errno \(errno)")
        }
        var limit = timeval()
        limit.tv_sec = .init(receiveTimeout)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit { close(descriptor) }

    /// Sends bytes; returns false when the server has closed the connection.
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = sendBytes(raw.baseAddress! + offset, raw.count - offset)
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    private func sendBytes(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.send(descriptor, pointer, count, sendFlags)
        #else
        return Darwin.send(descriptor, pointer, count, sendFlags)
        #endif
    }

    /// A GET with the given extra header lines.
    func get(_ target: String, headers: [String] = []) {
        send((["GET \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers).joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// Reads more bytes; false at end of stream (or on timeout).
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// The next response, or `nil` when the connection ended before any byte of it.
    func readResponse(headOnly: Bool = false) throws -> RawResponse? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if let range = firstRange(of: separator) {
                headEnd = range
            } else if !fill() {
                if buffer.isEmpty { return nil }
                throw RawClientError(description: "connection ended inside a response head: \(String(decoding: buffer, as: UTF8.self))")
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if status == 100 { return try readResponse() }
        let length = headOnly ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        var complete = true
        while buffer.count < length {
            if !fill() {
                complete = false
                break
            }
        }
        let count = min(length, buffer.count)
        let body = Data(buffer[0..<count])
        buffer.removeFirst(count)
        return RawResponse(status: status, headers: headers, body: body, complete: complete)
    }

    /// Everything until the server closes the connection.
    func readToEnd() -> Data {
        while fill() {}
        defer { buffer.removeAll() }
        return Data(buffer)
    }

    /// Whether the server closed the connection (end of stream with nothing more to read).
    func isClosedByServer() -> Bool {
        buffer.isEmpty && !fill()
    }

    private func firstRange(of pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start] == pattern[0] {
            if Array(buffer[start..<(start + pattern.count)]) == pattern { return start }
        }
        return nil
    }
}
