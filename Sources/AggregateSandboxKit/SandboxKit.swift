public import AggregateCore
import AggregateText
public import AggregateJSON
import Foundation

// The pieces every emulator is made of: a route table, early exits, paging, credential checks, GraphQL requests
// and typed parameter checks that answer in the API's own error shape.

/// Thrown by a route to answer at once (a missing token, a bad parameter): the response to send.
public struct SandboxExit: Error {
    /// The response.
    public var response: SandboxResponse

    /// Creates an exit with `response`.
    public init(_ response: SandboxResponse) { self.response = response }
}

/// One route of an emulator: a method and a path pattern (``PathPattern``), and its handler.
public struct SandboxRoute: Sendable {
    /// What a handler gets: the request, the context and the path's segments (for `*` captures).
    public typealias Handler = @Sendable (_ request: SandboxRequest, _ context: SandboxContext, _ segments: [String]) throws -> SandboxResponse

    /// `GET`, `POST`, ...
    public var method: String
    /// The paths it answers.
    public var pattern: PathPattern
    /// The handler; it may throw ``SandboxExit``.
    public var handler: Handler

    /// Creates a route.
    public init(_ method: String, _ pattern: PathPattern, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
    }
}

/// An emulator's route table: requests go to the route whose method and pattern match; a known path with
/// another method gets `methodNotAllowed`; other paths are not the emulator's (`nil`).
public struct SandboxRoutes: Sendable {
    /// The routes, first match wins.
    public var routes: [SandboxRoute]
    /// The answer for a known path asked with a method it does not take.
    public var methodNotAllowed: @Sendable (SandboxRequest) -> SandboxResponse

    /// Creates a table.
    public init(
        _ routes: [SandboxRoute],
        methodNotAllowed: @escaping @Sendable (SandboxRequest) -> SandboxResponse = { request in
            .json(["error": .string(HTTPStatus.reason(405)), "message": .string("\(request.method) is not supported here")], status: 405)
        }
    ) {
        self.routes = routes
        self.methodNotAllowed = methodNotAllowed
    }

    /// The distinct patterns: the paths the emulator owns at the sandbox's root.
    public var paths: [PathPattern] {
        routes.reduce(into: []) { paths, route in if !paths.contains(route.pattern) { paths.append(route.pattern) } }
    }

    /// The answer to `request`, or `nil` when no route knows its path.
    public func respond(to request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        let known = routes.filter { $0.pattern.matches(request.path) }
        guard !known.isEmpty else { return nil }
        guard let route = known.first(where: { $0.method == request.method }) else { return methodNotAllowed(request) }
        do {
            return try route.handler(request, context, request.path.split(separator: "/").map(String.init))
        } catch let exit as SandboxExit {
            return exit.response
        } catch {
            return .json(["error": .string(HTTPStatus.reason(500)), "message": .string("\(error)")], status: 500)
        }
    }
}

/// An emulator described by its route table: `sandboxResponse` and `sandboxPaths` come from it.
public protocol RoutedSandbox: SandboxProviding {
    /// The routes.
    static var routes: SandboxRoutes { get }
}

extension RoutedSandbox {
    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        routes.respond(to: request, context: context)
    }

    public static var sandboxPaths: [PathPattern] { routes.paths }
}

/// Page and offset arithmetic that never traps, whatever numbers a request sends.
public enum SandboxPaging {
    /// The items of 1-based page `page` of `size` items each; empty past the end or for page numbers below 1.
    public static func page<T>(_ items: [T], number page: Int, size: Int) -> ArraySlice<T> {
        guard page >= 1, size >= 1 else { return [] }
        let (skipped, overflow) = (page - 1).multipliedReportingOverflow(by: size)
        return overflow ? [] : slice(items, offset: skipped, limit: size)
    }

    /// At most `limit` items from `offset` on; empty when the offset is past the end or negative.
    public static func slice<T>(_ items: [T], offset: Int, limit: Int) -> ArraySlice<T> {
        guard offset >= 0, offset < items.count, limit > 0 else { return [] }
        return items[offset..<(offset + min(limit, items.count - offset))]
    }

    /// The number of pages of `size` items that `count` items fill.
    public static func pageCount(_ count: Int, size: Int) -> Int { size < 1 ? 0 : (count + size - 1) / size }
}

extension SandboxRequest {
    /// Continues only when the request carries `Authorization: Bearer <token>`; otherwise exits with
    /// `rejected(sent)`, where `sent` is the token that came (or `nil`).
    public func requireBearer(_ token: String, otherwise rejected: (String?) -> SandboxResponse) throws(SandboxExit) {
        guard bearerToken == token else { throw SandboxExit(rejected(bearerToken)) }
    }

    /// Continues only when the query parameter `name` is `key`; otherwise exits with `rejected(sent)`.
    public func requireKey(_ name: String, _ key: String, otherwise rejected: (String?) -> SandboxResponse) throws(SandboxExit) {
        guard queryValue(name) == key else { throw SandboxExit(rejected(queryValue(name))) }
    }

    /// The whole-number query parameter `name` (`fallback` when absent), which must lie in `range`; otherwise
    /// exits with `invalid(text)`, the API's own 400.
    public func integer(
        _ name: String, default fallback: Int, in range: ClosedRange<Int>, otherwise invalid: (String) -> SandboxResponse
    ) throws(SandboxExit) -> Int {
        guard let text = queryValue(name) else { return fallback }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else { throw SandboxExit(invalid(text)) }
        return value
    }

    /// A GraphQL request: `POST` with a JSON body `{"query", "variables", "operationName"}`, or `GET` with the
    /// same as query parameters. `nil` when it is neither.
    public var graphQL: (query: String, variables: JSONValue, operationName: String?)? {
        if method == "GET", let query = queryValue("query") {
            let variables = queryValue("variables").flatMap { try? JSONParser().parse(Data($0.utf8)) } ?? [:]
            return (query, variables, queryValue("operationName"))
        }
        guard let body = jsonBody, let query = body["query"]?.string else { return nil }
        return (query, body["variables"] ?? [:], body["operationName"]?.string)
    }
}

/// Reason phrases for status lines and generic error bodies (the table is AggregateText's `HTTPReasonPhrase`).
public enum HTTPStatus {
    /// The standard reason phrase of `status`, e.g. `Too Many Requests`.
    public static func reason(_ status: Int) -> String { HTTPReasonPhrase.of(status) }
}

