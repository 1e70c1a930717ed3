public import AggregateCore
public import AggregateJSON
import AggregateText
public import Foundation

/// A request as the sandbox's routes see it: method, path, decoded query, headers and body.
public struct SandboxRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path below the provider's mount point, e.g. `/2/groups` (always starts with `/`).
    public var path: String
    /// The query parameters in order, percent-decoded (`+` is a space, as servers read forms).
    public var query: [(name: String, value: String)]
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates a request.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Creates a request from a URL's path and query.
    public init(method: String, url: URL, headers: HTTPHeaders = [:], body: Data = Data()) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? url.path
        self.init(
            method: method, path: path.isEmpty ? "/" : path,
            query: SandboxRequest.decodeQuery(components?.percentEncodedQuery ?? ""), headers: headers, body: body)
    }

    /// The first value of the query parameter `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The token of an `Authorization: Bearer` header.
    public var bearerToken: String? {
        guard let value = headers["Authorization"], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The body parsed as JSON, or `nil` when it is not JSON.
    public var jsonBody: JSONValue? { try? JSONParser().parse(body) }

    /// Decodes `a=1&b=two+words` into ordered pairs.
    public static func decodeQuery(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// A response from a sandbox route.
public struct SandboxResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> SandboxResponse {
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "application/json; charset=utf-8" }
        return SandboxResponse(status: status, headers: all, body: JSONWriter().data(value))
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int, headers: HTTPHeaders = [:]) -> SandboxResponse {
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "text/plain; charset=utf-8" }
        return SandboxResponse(status: status, headers: all, body: Data(text.utf8))
    }

    /// An HTML page, as web frameworks send for errors.
    public static func html(title: String, status: Int, headers: HTTPHeaders = [:]) -> SandboxResponse {
        var all = headers
        all["Content-Type"] = "text/html; charset=utf-8"
        let page = "<!DOCTYPE html>\n<html>\n<head><title>\(title)</title></head>\n<body><h1>\(title)</h1></body>\n</html>\n"
        return SandboxResponse(status: status, headers: all, body: Data(page.utf8))
    }
}

/// What a sandbox route may know about its surroundings.
public struct SandboxContext: Sendable {
    /// The URL clients use to reach this provider in the sandbox (for `next` links and `Location` headers).
    public var baseURL: URL
    /// The current time (fixed in tests).
    public var now: Date
    /// Persistent state for providers that write (e.g. the message board), or `nil` for a read-only sandbox.
    public var store: SandboxStore?
    /// Provider-specific settings, e.g. `messageboard.csrf=true`.
    public var settings: [String: String]
    /// Counts requests per provider and window, for routes that enforce a rate limit; `nil` when the sandbox does
    /// not count (in-process `--offline`). See ``countRequest(provider:budget:limit:window:)``.
    public var requestCounter: SandboxRequestCounter?

    /// Creates a context.
    public init(
        baseURL: URL, now: Date = Date(), store: SandboxStore? = nil, settings: [String: String] = [:], requestCounter: SandboxRequestCounter? = nil
    ) {
        self.baseURL = baseURL
        self.now = now
        self.store = store
        self.settings = settings
        self.requestCounter = requestCounter
    }
}

/// A provider's emulator: its routes, as pure functions from request to response. It lives in its own
/// `<Name>Sandbox` target beside the client, never imports the client, and is registered with
/// ``SandboxCatalog/init(_:sandboxes:)`` only by programs that serve the sandbox.
public protocol SandboxProviding: Sendable {
    /// The name of the provider it emulates (its mount point `/<name>/...`).
    static var providerName: String { get }

    /// The response to `request`, or `nil` when the path is not one of this provider's.
    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse?

    /// The credentials the sandbox accepts, used by `--offline` in place of the user's environment.
    static var sandboxEnvironment: [String: String] { get }

    /// The body an injected fault with `status` should carry, in this API's error shape (default: none).
    static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse?

    /// The paths this provider answers at the sandbox's root, where the real API's paths are served side by side
    /// (default: none, so the provider is reachable only under `/<name>/...`). Requests and injected faults at
    /// the root go to the one provider whose pattern matches; overlapping claims are refused when the
    /// registry is built.
    static var sandboxPaths: [PathPattern] { get }

    /// The cache validators the real API sends, so conditional requests are answered as it does (default:
    /// ``APICaching/etag``, the choice where an API's documentation is silent).
    static var sandboxCaching: APICaching { get }
}

extension SandboxProviding {
    public static var sandboxPaths: [PathPattern] { [] }

    public static var sandboxCaching: APICaching { .etag }

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        nil
    }
}

/// An emulator as a value: what the router, the sandbox server and `--offline` use. Every ``SandboxProviding``
/// type is one (``SandboxOfType``); a definition's emulator, built at run time, is another.
public protocol SandboxServing: Sendable {
    /// The name of the provider it emulates (its mount point `/<name>/...`).
    var providerName: String { get }
    /// The credentials the sandbox accepts, used by `--offline` in place of the user's environment.
    var sandboxEnvironment: [String: String] { get }
    /// The paths it answers at the sandbox's root (see ``SandboxProviding/sandboxPaths``).
    var sandboxPaths: [PathPattern] { get }
    /// The response to `request`, or `nil` when the path is not one of this provider's.
    func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse?
    /// The body an injected fault with `status` should carry, in this API's error shape.
    func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse?
    /// Which validators its successful GET answers carry, for conditional requests (see ``SandboxProviding/sandboxCaching``).
    var sandboxCaching: APICaching { get }
    /// The validators of the answer to `request` (default: ``sandboxCaching``), for emulators whose endpoints differ,
    /// as GitHub's search (`no-cache`, no validator) and its user repositories (an ETag) do. `request.path` is the
    /// path below the mount point.
    func sandboxCaching(for request: SandboxRequest) -> APICaching
}

extension SandboxServing {
    public var sandboxCaching: APICaching { .etag }

    public func sandboxCaching(for request: SandboxRequest) -> APICaching { sandboxCaching }
}

/// A ``SandboxProviding`` type as a ``SandboxServing`` value.
public struct SandboxOfType: SandboxServing {
    /// The emulator type.
    public let type: any SandboxProviding.Type

    /// Wraps `type`.
    public init(_ type: any SandboxProviding.Type) { self.type = type }

    public var providerName: String { type.providerName }
    public var sandboxEnvironment: [String: String] { type.sandboxEnvironment }
    public var sandboxPaths: [PathPattern] { type.sandboxPaths }
    public var sandboxCaching: APICaching { type.sandboxCaching }

    public func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        type.sandboxResponse(for: request, context: context)
    }

    public func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        type.sandboxFaultResponse(status: status, request: request, context: context)
    }
}

/// Persistent sandbox state: named JSON documents in a directory, updated under a lock and written atomically
/// (a temporary file, then a rename), so a crash mid-write never leaves a half-written document.
///
/// Updates are serialized within the process (a lock) and between processes (`flock` on a lock file beside the
/// document), so `aggregate sandbox` and `--offline` runs can share one directory without losing updates. Every
/// write is flushed with `fsync` before the rename, and the directory after it, so a saved document survives a
/// crash or a power loss. A document that cannot be parsed is reported and never overwritten.
public final class SandboxStore: Sendable {
    /// The directory that holds the documents.
    public let directory: URL
    private let lock = NSLock()

    /// Creates a store in `directory` (created on the first write).
    public init(directory: URL) {
        self.directory = directory
    }

    /// Reads the document `name`, or `nil` when it does not exist.
    /// - Throws: ``AggregateError`` of kind `decoding` when the file exists but is not valid JSON.
    public func read(_ name: String) throws -> JSONValue? {
        lock.lock()
        defer { lock.unlock() }
        // No file lock needed: writers replace the document by rename, so a reader sees the old or the new one.
        return try load(name)
    }

    /// Reads, changes and writes back the document `name` while holding the lock (in this process and across
    /// processes). The document is written only when `body` returns normally; a corrupt file is never overwritten.
    public func update<T>(_ name: String, _ body: (inout JSONValue?) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let fileLock = try lockFile(for: name)
        defer { FileLock.release(fileLock) }
        removeAbandonedTemporaryFiles(of: name)
        var document = try load(name)
        let result = try body(&document)
        if let document { try save(document, as: name) }
        return result
    }

    private func fileURL(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Opens and exclusively locks `.<name>.lock`, waiting for another process that holds it.
    private func lockFile(for name: String) throws -> Int32 {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw AggregateError(.config, "cannot create the sandbox store directory \(directory.path): \(FileSystemReason.describe(error))")
        }
        do {
            return try FileLock.acquire(directory.appendingPathComponent(".\(name).lock").path)
        } catch {
            throw AggregateError(.config, "cannot lock the sandbox store \(error.path): \(error.reason)")
        }
    }

    /// Deletes temporary files left by a writer that died before its rename (only called under the file lock,
    /// when no other writer can be using them, so whatever their age or pid; ``FileReplacement`` removes the
    /// other documents' abandoned ones on each save).
    private func removeAbandonedTemporaryFiles(of name: String) {
        let prefix = ".\(name)."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in names where file.hasPrefix(prefix) && file.hasSuffix(".tmp") {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
        }
    }

    private func load(_ name: String) throws -> JSONValue? {
        let url = fileURL(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AggregateError(.config, "cannot read the sandbox store \(url.path): \(FileSystemReason.describe(error))")
        }
        do {
            return try JSONParser().parse(data)
        } catch {
            throw AggregateError(
                .decoding,
                "the sandbox store \(url.path) is corrupt (\(error)); it was left untouched: repair or remove it")
        }
    }

    /// Replaces the document (0600 from its creation, flushed, abandoned temporaries of a killed writer removed).
    private func save(_ document: JSONValue, as name: String) throws {
        let target = fileURL(name)
        do {
            try FileReplacement.replace(target, with: JSONWriter(pretty: true).data(document), flush: true)
        } catch {
            throw AggregateError(.config, "cannot replace \(target.path): \(error.reason)")
        }
    }
}
