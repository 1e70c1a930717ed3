public import AggregateCore
import AggregateHTTP
import AggregateText
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession transport: one `URLSession`, no redirects followed (the `Fetcher` follows them itself so
/// it can drop credentials on another host), no cookies or cache, and the body read incrementally so a
/// response over the size cap is cut off instead of filling memory.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let delegate = SessionDelegate()
    private let lock = NSLock()
    /// Created by the first request: a run answered from the cache or a cassette never starts libcurl and its TLS
    /// library, which costs a warm run more than reading its answers does.
    private var created: URLSession?

    /// Creates a transport with its own session.
    public init() {}

    deinit { created?.invalidateAndCancel() }

    /// Whether a request has started the session (for tests).
    var hasStartedSession: Bool {
        lock.lock()
        defer { lock.unlock() }
        return created != nil
    }

    private var session: URLSession {
        lock.lock()
        defer { lock.unlock() }
        if let created { return created }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 8
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        created = session
        return session
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: Self.connectableURL(request.url))
        urlRequest.httpMethod = request.method
        // The fetch layer enforces the timeout over the whole exchange; URLSession's idle timer is only a backstop.
        urlRequest.timeoutInterval = request.timeout + 5
        urlRequest.httpBody = request.body
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if request.headers["User-Agent"] == nil { urlRequest.setValue("aggregate/\(AggregateVersion.current)", forHTTPHeaderField: "User-Agent") }
        if request.headers["Accept"] == nil { urlRequest.setValue("application/json", forHTTPHeaderField: "Accept") }
        if urlRequest.url != request.url, let authority = Self.authority(of: request.url) {
            // The server sees the address the user gave, as curl would send it.
            urlRequest.setValue(authority, forHTTPHeaderField: "Host")
        }

        let task = session.dataTask(with: urlRequest)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                delegate.register(task, requested: request.url, maxBytes: request.maxResponseBytes, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

extension URLSessionTransport {
    /// The URL to hand to URLSession for `url`.
    ///
    /// FoundationNetworking (swift-corelibs-foundation before #5498) refuses any URL whose host is an IPv6 literal
    /// with NSURLErrorBadURL (-1000) before connecting. For the IPv6 loopback and wildcard addresses, `localhost`
    /// reaches the same server: libcurl resolves it to `::1` (tried first) and `127.0.0.1` without a lookup.
    static func connectableURL(_ url: URL) -> URL {
        #if canImport(FoundationNetworking)
        guard let host = url.host?.lowercased(), ["::1", "[::1]", "::", "[::]"].contains(host),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.host = "localhost"
        return components.url ?? url
        #else
        return url
        #endif
    }

    /// `[::1]:8787`: the `Host` header for `url`.
    static func authority(of url: URL) -> String? {
        guard let host = url.host else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return url.port.map { "\(bracketed):\($0)" } ?? bracketed
    }
}

/// Collects each task's body and finishes its continuation exactly once.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct TaskState {
        var continuation: CheckedContinuation<HTTPResponse, any Error>
        var maxBytes: Int
        var response: HTTPURLResponse?
        var body = Data()
        var tooLarge = false
        var requested: URL?
    }

    private let lock = NSLock()
    private var states: [Int: TaskState] = [:]

    func register(_ task: URLSessionTask, requested: URL, maxBytes: Int, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        lock.lock()
        states[task.taskIdentifier] = TaskState(continuation: continuation, maxBytes: maxBytes, requested: requested)
        lock.unlock()
    }

    private func withState<T>(_ task: URLSessionTask, _ body: (inout TaskState) -> T) -> T? {
        lock.lock()
        defer { lock.unlock() }
        // Taken out of the dictionary while it changes, so the body buffer stays uniquely referenced: a copy left
        // behind made every appended chunk copy the whole body (time quadratic in the body's size).
        guard var state = states.removeValue(forKey: task.taskIdentifier) else { return nil }
        let result = body(&state)
        states[task.taskIdentifier] = state
        return result
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let declaredTooLarge = withState(dataTask) { state -> Bool in
            state.response = http
            // Refuse early when the server announces a body over the cap.
            if response.expectedContentLength > Int64(state.maxBytes) {
                state.tooLarge = true
                return true
            }
            return false
        } ?? false
        completionHandler(declaredTooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overCap = withState(dataTask) { state -> Bool in
            guard !state.tooLarge else { return true }
            if state.body.count + data.count > state.maxBytes {
                state.tooLarge = true
                state.body = Data()
                return true
            }
            state.body.append(data)
            return false
        } ?? false
        if overCap { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Redirects are followed by the fetch layer, which decides where credentials may go.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let state = states.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let state else { return }
        if state.tooLarge {
            state.continuation.resume(throwing: AggregateError(
                .tooLarge, "the response is larger than the \(ByteCount.describe(state.maxBytes)) size cap"))
            return
        }
        if let error {
            state.continuation.resume(throwing: Self.translate(error, url: state.requested ?? task.originalRequest?.url))
            return
        }
        guard let response = state.response else {
            state.continuation.resume(throwing: AggregateError(.network, "the server sent no HTTP response", requestMayHaveBeenSent: true))
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(String(describing: name), String(describing: value))
        }
        // The URL asked for, not the connectable stand-in (see `connectableURL`); URLSession follows no redirects.
        state.continuation.resume(returning: HTTPResponse(status: response.statusCode, headers: headers, body: state.body, url: state.requested ?? response.url))
    }

    /// URLSession's errors as one line a user can act on.
    static func translate(_ error: any Error, url: URL?) -> AggregateError {
        let host = url?.host ?? "the server"
        guard let urlError = error as? URLError else {
            return AggregateError(.network, "the request to \(host) failed: \(error.localizedDescription)", requestMayHaveBeenSent: true)
        }
        switch urlError.code {
        case .timedOut:
            return AggregateError(.timeout, "\(host) did not answer within the timeout", requestMayHaveBeenSent: true)
        case .cannotConnectToHost:
            return AggregateError(.network, "cannot connect to \(host)\(url?.port.map { ":\($0)" } ?? ""): connection refused")
        case .cannotFindHost, .dnsLookupFailed:
            return AggregateError(.network, "cannot find the host \(host) (DNS lookup failed)")
        case .badURL, .unsupportedURL:
            // Refused before any connection was made.
            return AggregateError(.network, "the request to \(host) could not be made (\(urlError.localizedDescription))")
        case .notConnectedToInternet:
            return AggregateError(.network, "not connected to the internet; try --offline")
        case .networkConnectionLost:
            return AggregateError(.network, "the connection to \(host) closed before the whole response arrived", requestMayHaveBeenSent: true)
        case .badServerResponse, .cannotParseResponse:
            return AggregateError(.network, "\(host) sent an invalid HTTP response", requestMayHaveBeenSent: true)
        case .cancelled:
            return AggregateError(.network, "the request to \(host) was cancelled", requestMayHaveBeenSent: true)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            return AggregateError(.network, "the TLS connection to \(host) failed (\(urlError.localizedDescription))")
        default:
            return AggregateError(.network, "the request to \(host) failed: \(urlError.localizedDescription)", requestMayHaveBeenSent: true)
        }
    }
}
