import AggregateCore
public import AggregateJSON
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the limiter knows about one bucket: when its recent tokens were spent, and what the API last said.
public struct RateBucketState: Sendable, Equatable {
    /// When each token still out was spent (seconds since 1970), oldest first.
    public var spent: [TimeInterval] = []
    /// No request before this time (seconds since 1970): the API's `Retry-After`.
    public var blockedUntil: TimeInterval?
    /// The requests the API said were left, and when its window resets (seconds since 1970).
    public var serverRemaining: Int?
    public var serverReset: TimeInterval?

    /// Creates an empty state.
    public init() {}

    /// The state as it is stored (version 1).
    var jsonValue: JSONValue {
        var object: JSONObject = ["version": 1, "spent": .array(spent.map { .double($0) })]
        if let blockedUntil { object["blockedUntil"] = .double(blockedUntil) }
        if let serverRemaining { object["serverRemaining"] = .int(serverRemaining) }
        if let serverReset { object["serverReset"] = .double(serverReset) }
        return .object(object)
    }

    /// Reads a stored state; `nil` for anything that is not a version-1 state (it is then started afresh).
    init?(_ json: JSONValue) {
        guard json["version"]?.int == 1, let spent = json["spent"]?.array else { return nil }
        self.spent = spent.compactMap(\.double)
        blockedUntil = json["blockedUntil"]?.double
        serverRemaining = json["serverRemaining"]?.int
        serverReset = json["serverReset"]?.double
    }
}

/// The limiter's state, shared by every run on this machine: one small JSON file per bucket in
/// `<cache root>/ratelimit/`, read and written under an exclusive `flock` (and a lock within the process), so a
/// shell loop of runs spends one budget. Files are 0600 in a 0700 folder and hold no secret (names are provider,
/// budget and host). When the folder cannot be used, the state lives in memory for this process only.
public final class RateLimitStore: @unchecked Sendable {
    /// The folder, or `nil` for a store that keeps state in memory only.
    public let directory: URL?
    private let lock = NSLock()
    private var memory: [String: RateBucketState] = [:]

    /// Creates a store in `directory` (created on first use), or an in-memory one.
    public init(directory: URL?) {
        self.directory = directory
    }

    /// The store under the cache root for `environment`.
    public static func standard(environment: [String: String]) -> RateLimitStore {
        RateLimitStore(directory: CacheLocation.root(environment: environment).appendingPathComponent("ratelimit"))
    }

    /// Reads, changes and writes back the bucket `key` while holding its lock (in this process and across
    /// processes). Blocking: call it off the cooperative pool for long waits (the critical section is short).
    public func update<T>(_ key: String, _ body: (inout RateBucketState) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let directory, let descriptor = Self.openLocked(directory: directory, name: Self.fileName(key) + ".lock") else {
            var state = memory[key] ?? RateBucketState()
            let result = body(&state)
            memory[key] = state
            return result
        }
        defer {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
        let file = directory.appendingPathComponent(Self.fileName(key) + ".json")
        // A damaged or foreign file is started afresh: the state is only a cache of what was sent.
        var state = (try? Data(contentsOf: file)).flatMap { try? JSONParser().parse($0) }.flatMap(RateBucketState.init) ?? RateBucketState()
        let result = body(&state)
        Self.writeAtomically(JSONWriter().data(state.jsonValue), to: file)
        return result
    }

    /// A file name for `key`: letters, digits, `.`, `-` and `_` only.
    static func fileName(_ key: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        return String(key.map { allowed.contains($0) ? $0 : "_" })
    }

    private static func openLocked(directory: URL, name: String) -> Int32? {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try? FileLock.acquire(directory.appendingPathComponent(name).path)
    }

    /// A temporary file (0600 from its creation), then a rename: a reader sees the old state or the new one, never
    /// half of one; a killed run's abandoned temporaries are removed first. A state that cannot be written is
    /// only a cache lost.
    private static func writeAtomically(_ data: Data, to file: URL) {
        try? FileReplacement.replace(file, with: data)
    }
}
