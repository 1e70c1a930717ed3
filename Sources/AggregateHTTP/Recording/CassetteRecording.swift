public import AggregateCore
import AggregateJSON
public import Foundation

/// Collects every exchange of a run (`--record DIR`), credentials redacted, and writes them as one ``Cassette``.
///
/// One recorder serves a whole run: every page and every `compare` invocation add to it. Its
/// ``middleware`` sits next to the transport, so it sees what really went over the wire: each retry and each
/// redirect hop is an exchange of its own, and a failure without a response (a dropped connection, a timeout)
/// is recorded as the error it was.
public final class CassetteRecorder: @unchecked Sendable {
    /// The cassette folder.
    public let directory: URL
    private let lock = NSLock()
    private let saving = NSLock()
    private var cassette: Cassette

    /// Creates a recorder that writes to `directory`.
    public init(directory: URL, now: Date = Date()) {
        self.directory = directory
        cassette = Cassette(recordedAt: now)
    }

    /// The step that records; put it in ``FetchOptions/wireMiddlewares``.
    public var middleware: CassetteRecordingMiddleware { CassetteRecordingMiddleware(recorder: self) }

    /// Notes credential variables that were set (names only), so a replay can stand in for them.
    public func noteCredentialVariables(_ names: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for name in names where !cassette.credentialVariables.contains(name) { cassette.credentialVariables.append(name) }
    }

    func append(_ exchange: Cassette.Exchange) {
        lock.lock()
        defer { lock.unlock() }
        cassette.exchanges.append(exchange)
    }

    /// What has been recorded so far, in the order the requests were sent.
    public var recorded: Cassette {
        lock.lock()
        defer { lock.unlock() }
        var copy = cassette
        copy.exchanges.sort { $0.startedAt < $1.startedAt }
        return copy
    }

    /// Writes everything recorded so far to `DIR/cassette.json`, atomically.
    /// - Throws: a `config` error when the folder cannot be written.
    public func save() throws(AggregateError) {
        // One save at a time, so a save that took an older snapshot cannot replace a newer one (compare's
        // invocations each save when they end).
        saving.lock()
        defer { saving.unlock() }
        try recorded.save(to: directory)
    }
}

/// Records each exchange that passes it, through the exchange's ``Redactor``: the URL, every header value and both
/// bodies (UTF-8 text; other bodies are stored as they are, in base64).
public struct CassetteRecordingMiddleware: FetchMiddleware {
    let recorder: CassetteRecorder

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let redactor = exchange.redactor
        let recorded = Cassette.Request(
            method: request.method, url: redactor.redact(request.url.absoluteString), headers: Self.redact(request.headers, redactor),
            body: request.body.map(redactor.redact(_:)))
        let started = Date()
        func record(_ outcome: Cassette.Outcome) {
            recorder.append(Cassette.Exchange(
                provider: exchange.provider, startedAt: started, durationMs: Date().timeIntervalSince(started) * 1000, request: recorded,
                outcome: outcome))
        }
        do {
            let response = try await next(request, exchange)
            record(.response(status: response.status, headers: Self.redact(response.headers, redactor), body: redactor.redact(response.body)))
            return response
        } catch let error as AggregateError {
            record(.failure(error.kind, message: redactor.redact(error.message)))
            throw error
        } catch is CancellationError {
            // The deadline cancelled the exchange: it ended, for the run, as a timeout.
            let timeout = DeadlineMiddleware.timeoutError(request.timeout)
            record(.failure(timeout.kind, message: timeout.message))
            throw CancellationError()
        }
    }

    static func redact(_ headers: HTTPHeaders, _ redactor: Redactor) -> HTTPHeaders {
        HTTPHeaders(headers.fields.map { (name: $0.name, value: redactor.redactHeader(name: $0.name, value: $0.value)) })
    }
}

/// Answers requests from a ``Cassette`` (`--replay DIR`, `aggregate sandbox --replay DIR`): strictly by method,
/// URL and body, each recorded exchange once, in recorded order when the same request repeats.
///
/// A recorded `***` (a redacted credential) in a query value matches any value, so a replay works with any
/// credential or a stand-in; everything else must be equal.
public final class CassetteReplayer: @unchecked Sendable {
    /// The cassette.
    public let cassette: Cassette
    /// Where it was read from (for messages).
    public let file: URL
    private let lock = NSLock()
    private var used: Set<Int> = []

    /// Reads the cassette in `directory`.
    /// - Throws: ``Cassette/load(from:)``'s errors.
    public convenience init(directory: URL) throws(AggregateError) {
        self.init(cassette: try Cassette.load(from: directory), file: Cassette.file(in: directory))
    }

    /// Replays `cassette`.
    public init(cassette: Cassette, file: URL) {
        self.cassette = cassette
        self.file = file
    }

    /// The step that replays: put it in ``FetchOptions/wireMiddlewares``; it never calls the transport.
    public var middleware: CassetteReplayMiddleware { CassetteReplayMiddleware(replayer: self) }

    /// Takes the first unused exchange that matches the request, or `nil`.
    /// - Parameters:
    ///   - ignoringHost: match the path and query only (the sandbox, which serves the recording on its own address).
    ///     A path may then also carry the recorded provider's mount, `/<name>/...`.
    public func take(method: String, url: URL, body: Data?, redactor: Redactor, ignoringHost: Bool = false) -> Cassette.Exchange? {
        let received = Self.redacted(body, redactor)
        lock.lock()
        defer { lock.unlock() }
        for (index, exchange) in cassette.exchanges.enumerated() where !used.contains(index) {
            guard exchange.request.method.caseInsensitiveCompare(method) == .orderedSame,
                Self.matches(recorded: exchange.request.url, received: url, redactor: redactor, ignoringHost: ignoringHost, provider: exchange.provider),
                Self.redacted(exchange.request.body, Redactor()) == received
            else { continue }
            used.insert(index)
            return exchange
        }
        return nil
    }

    /// The error for a request the cassette has no (more) answers for.
    public func unmatched(method: String, url: URL, redactor: Redactor) -> AggregateError {
        AggregateError(
            .config,
            "the cassette \(file.path) has no recorded answer for \(method) \(redactor.redact(url.absoluteString)) (or no more of them): replay the same command, or record it again with --record")
    }

    private static func redacted(_ body: Data?, _ redactor: Redactor) -> Data {
        guard let body, !body.isEmpty else { return Data() }
        return redactor.redact(body)
    }

    static func matches(recorded: String, received: URL, redactor: Redactor, ignoringHost: Bool, provider: String) -> Bool {
        guard let want = URLComponents(string: recorded), let got = URLComponents(url: received, resolvingAgainstBaseURL: false) else { return false }
        if !ignoringHost {
            guard want.scheme?.lowercased() == got.scheme?.lowercased(), want.host?.lowercased() == got.host?.lowercased(), want.port == got.port
            else { return false }
        }
        guard got.percentEncodedPath == want.percentEncodedPath || (ignoringHost && got.percentEncodedPath == "/\(provider)" + want.percentEncodedPath)
        else { return false }
        let wanted = want.queryItems ?? []
        let given = got.queryItems ?? []
        guard wanted.count == given.count else { return false }
        return zip(wanted, given).allSatisfy { want, got in
            guard want.name == got.name else { return false }
            if want.value == Redactor.mask { return true }
            return want.value == got.value.map { redactor.redact($0) } || want.value == got.value
        }
    }
}

/// Answers every request from the cassette instead of the network: the recorded response, or the recorded
/// failure thrown again, so a recorded fault replays as the same fault.
public struct CassetteReplayMiddleware: FetchMiddleware {
    let replayer: CassetteReplayer

    public func intercept(
        _ request: HTTPRequest, exchange: FetchExchange, next: @escaping @Sendable (HTTPRequest, FetchExchange) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let recorded = replayer.take(method: request.method, url: request.url, body: request.body, redactor: exchange.redactor) else {
            throw replayer.unmatched(method: request.method, url: request.url, redactor: exchange.redactor)
        }
        switch recorded.outcome {
        case .response(let status, let headers, let body):
            return HTTPResponse(status: status, headers: headers, body: body, url: request.url)
        case .failure(let kind, let message):
            throw AggregateError(kind, message)
        }
    }
}

extension CassetteReplayer {
    /// What a replay puts in place of a credential the recording had (it is redacted in the cassette anyway).
    public static let standInCredential = "replayed-credential"
}
