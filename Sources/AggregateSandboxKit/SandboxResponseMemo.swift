import Foundation

/// Answers of a deterministic sandbox route, kept per request so a repeated request is answered without
/// filtering, sorting and serializing its body again.
///
/// Only for routes whose answer depends on nothing but the key (no clock, no store): the caller builds the key
/// from everything the route reads. The memo is bounded: when full, it starts over.
public final class SandboxResponseMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var responses: [String: SandboxResponse] = [:]
    private let capacity: Int

    /// Creates a memo holding at most `capacity` answers.
    public init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// The answer for `key`, made by `make` the first time.
    public func response(for key: String, make: () -> SandboxResponse) -> SandboxResponse {
        lock.lock()
        let known = responses[key]
        lock.unlock()
        if let known { return known }
        let made = make()
        lock.lock()
        if responses.count >= capacity { responses.removeAll(keepingCapacity: true) }
        responses[key] = made
        lock.unlock()
        return made
    }

    /// A key for a GET route: the method, path and query as received (order kept, since it can matter).
    public static func key(_ request: SandboxRequest, extra: [String] = []) -> String {
        // Length-prefixed, so no value can be crafted to read as two others.
        ([request.method, request.path] + request.query.flatMap { [$0.name, $0.value] } + extra).map { "\($0.utf8.count):\($0)" }.joined()
    }
}
