import AggregateCore
package import AggregateJSON
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

    /// The state as it is stored (version 1), with the bucket's `key` so that `aggregate limits` can name it.
    func jsonValue(key: String) -> JSONValue {
        var object: JSONObject = ["version": 1, "key": .string(key), "spent": .array(spent.map { .double($0) })]
        if let blockedUntil { object["blockedUntil"] = .double(blockedUntil) }
        if let serverRemaining { object["serverRemaining"] = .int(serverRemaining) }
        if let serverReset { object["serverReset"] = .double(serverReset) }
        return .object(object)
    }

    /// Reads a stored state; `nil` for anything that is not a version-1 state (it is then started afresh).
    package init?(_ json: JSONValue) {
        guard json["version"]?.int == 1, let spent = json["spent"]?.array else { return nil }
        guard spent.allSatisfy({ $0.double != nil }) else { return nil }
        self.spent = spent.compactMap(\.double)
        // A field that is there must be a number: a string or an object there is damage, not absence.
        for value in [json["blockedUntil"], json["serverReset"], json["serverRemaining"]] {
            if let value, value.double == nil { return nil }
        }
        blockedUntil = json["blockedUntil"]?.double
        serverRemaining = json["serverRemaining"]?.int
        serverReset = json["serverReset"]?.double
    }

    /// Why this state cannot be believed at `now`, or `nil` when it can: a time that is not finite, or one further
    /// ahead than any server-announced wait may be (``RateLimitHeaders/longestWait``, plus a window of spending).
    /// A state written by this version never fails this; one edited by hand, or written by a version that
    /// trusted the headers, may.
    package func implausibility(now: TimeInterval) -> String? {
        let latest = now + RateLimitHeaders.longestWait + 60
        if spent.contains(where: { !$0.isFinite || $0 < 0 || $0 > latest }) { return "a spent time out of range" }
        if let blockedUntil, !blockedUntil.isFinite || blockedUntil < 0 || blockedUntil > latest { return "blockedUntil out of range" }
        if let serverReset, !serverReset.isFinite || serverReset < 0 || serverReset > latest { return "serverReset out of range" }
        if spent.count > 1_000_000 { return "too many spent tokens" }
        return nil
    }
}

/// One bucket's stored state, as `aggregate limits show` lists it.
public struct RateBucketEntry: Sendable, Equatable {
    /// The bucket's key: `<provider> <budget> <host>`, or the file's name for a state written before keys were
    /// stored.
    public var key: String
    /// The state, or `nil` when the file is damaged or implausible (it is reset on the bucket's next use).
    public var state: RateBucketState?

    /// Creates an entry.
    public init(key: String, state: RateBucketState?) {
        self.key = key
        self.state = state
    }
}

/// The limiter's file-backed ``RateLimitStoring``, shared by every run on this machine: one small JSON file per bucket in
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
    ///
    /// A stored state that is damaged, or implausible at `now` (``RateBucketState/implausibility(now:)``), is
    /// started afresh, and `reset` is told why, once: the state is only a cache of what was sent.
    public func update<T>(
        _ key: String, now: Date = Date(), reset: (String) -> Void = { _ in }, _ body: (inout RateBucketState) -> T
    ) -> T {
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
        var state = RateBucketState()
        switch Self.read(file, now: now.timeIntervalSince1970) {
        case .missing: break
        case .valid(_, let stored): state = stored
        case .unusable(let reason): reset("the rate-limit state \(file.path) was \(reason); it was reset")
        }
        let result = body(&state)
        Self.writeAtomically(JSONWriter().data(state.jsonValue(key: key)), to: file)
        return result
    }

    /// Every stored bucket whose key starts with `provider` (all of them when `nil`), sorted by key.
    public func entries(provider: String? = nil, now: Date = Date()) -> [RateBucketEntry] {
        guard let directory else {
            lock.lock()
            defer { lock.unlock() }
            return memory.filter { key, _ in provider.map { key.hasPrefix($0 + " ") } ?? true }.map { RateBucketEntry(key: $0.key, state: $0.value) }
                .sorted { $0.key < $1.key }
        }
        return Self.stateFiles(in: directory, provider: provider).map { file in
            let name = String(file.lastPathComponent.dropLast(".json".count))
            switch Self.read(file, now: now.timeIntervalSince1970) {
            case .valid(let key, let state): return RateBucketEntry(key: key ?? name, state: state)
            case .missing, .unusable: return RateBucketEntry(key: name, state: nil)
            }
        }.sorted { $0.key < $1.key }
    }

    /// Removes every stored bucket of `provider` (all of them when `nil`), each under the lock the limiter takes,
    /// so no run is half-way through one; returns how many were removed.
    /// - Throws: the first file that could not be removed.
    @discardableResult
    public func clear(provider: String? = nil) throws -> Int {
        guard let directory else {
            lock.lock()
            defer { lock.unlock() }
            let keys = memory.keys.filter { key in provider.map { key.hasPrefix($0 + " ") } ?? true }
            for key in keys { memory[key] = nil }
            return keys.count
        }
        lock.lock()
        defer { lock.unlock() }
        var removed = 0
        for file in Self.stateFiles(in: directory, provider: provider) {
            let base = String(file.lastPathComponent.dropLast(".json".count))
            guard let descriptor = Self.openLocked(directory: directory, name: base + ".lock") else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
            }
            defer {
                flock(descriptor, LOCK_UN)
                close(descriptor)
            }
            // The lock file stays: a run waiting on it must find the same file when its turn comes.
            if unlink(file.path) == 0 {
                removed += 1
            } else if errno != ENOENT {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path])
            }
        }
        return removed
    }

    /// The `.json` state files in `directory`, of `provider` only when given (file names start `<provider>_`).
    private static func stateFiles(in directory: URL, provider: String?) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let prefix = provider.map { fileName($0) + "_" }
        return names.filter { name in
            name.hasSuffix(".json") && !name.hasPrefix(".") && (prefix.map { name.hasPrefix($0) } ?? true)
        }.map { directory.appendingPathComponent($0) }
    }

    /// What a state file holds.
    private enum Stored {
        case missing
        case valid(key: String?, RateBucketState)
        case unusable(String)
    }

    /// Reads one state file, judging it at `now`.
    private static func read(_ file: URL, now: TimeInterval) -> Stored {
        guard let data = try? Data(contentsOf: file) else { return .missing }
        // A state is a few hundred bytes; anything far larger is not one of ours.
        guard data.count <= 1 << 22, let json = try? JSONParser().parse(data), let state = RateBucketState(json) else {
            return .unusable("damaged")
        }
        if let reason = state.implausibility(now: now) { return .unusable("implausible (\(reason))") }
        return .valid(key: json["key"]?.string, state)
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
