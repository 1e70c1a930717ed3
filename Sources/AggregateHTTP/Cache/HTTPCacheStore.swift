import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// The disk cache's ``HTTPCacheStoring``, in files: `<root>/http/<provider>/<key>.entry`, plus a salt and the hit counts.
///
/// - Files are created 0600 and folders 0700; every file is written to a temporary name and renamed into place, so
///   a reader (in this or another process) sees a whole old entry or a whole new one, never a partial one
///   (``FileReplacement``; the temporaries a killed run left are removed by later writes).
/// - Two runs writing the same key both write whole entries; the last rename wins.
/// - The counts and the eviction run under an exclusive `flock` on `<root>/http/.lock`, so concurrent runs neither
///   lose counts nor evict at the same time.
/// - When the entries pass ``maxBytes``, the least recently used go first (an entry's modification time is its
///   last use: a hit touches it).
/// - Names are salted SHA-256 hashes: a file name reveals neither the URL nor the credential.
public final class HTTPCacheStore: HTTPCacheStoring, @unchecked Sendable {
    /// The default size cap: 256 MiB.
    public static let defaultMaxBytes = 256 << 20

    /// `<root>/http`.
    public let directory: URL
    /// The size cap of all entries together.
    public let maxBytes: Int

    private let root: URL
    private let lock = NSLock()
    private var cachedSalt: [UInt8]?

    /// A store under the cache root (``CacheLocation/root(environment:)``).
    /// `<root>/http`, for people.
    public var location: String { directory.path }

    public init(root: URL, maxBytes: Int = defaultMaxBytes) {
        self.root = root
        self.directory = root.appendingPathComponent("http")
        self.maxBytes = maxBytes
    }

    // MARK: Keys

    /// This cache's random salt, made once and kept in `<root>/http/salt` (0600).
    public func salt() throws -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        if let cachedSalt { return cachedSalt }
        try ensureFolder(directory)
        let file = directory.appendingPathComponent("salt")
        if let text = try? String(contentsOf: file, encoding: .utf8), let salt = Self.saltBytes(text) {
            cachedSalt = salt
            return salt
        }
        var generator = SystemRandomNumberGenerator()
        let fresh = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let temporary = try writeTemporary(Data((fresh + "\n").utf8), beside: file)
        // link(2) fails when another run made the salt first: then theirs is the one.
        let made = link(temporary.path, file.path) == 0
        _ = unlink(temporary.path)
        guard made || errno == EEXIST, let text = try? String(contentsOf: file, encoding: .utf8), let salt = Self.saltBytes(text) else {
            throw AggregateError(.config, "cannot create the cache's salt in \(directory.path)")
        }
        cachedSalt = salt
        return salt
    }

    private static func saltBytes(_ text: String) -> [UInt8]? {
        let hex = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard hex.count == 64 else { return nil }
        return stride(from: 0, to: 64, by: 2).compactMap { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) }
    }

    // MARK: Entries

    /// What a lookup found.
    public typealias Lookup = HTTPCacheLookup

    /// The entry for `key`, or why there is none usable (a damaged entry is removed).
    public func read(provider: String, key: String) -> Lookup {
        let file = entryURL(provider: provider, key: key)
        guard let data = FileManager.default.contents(atPath: file.path) else { return .missing }
        do {
            return .found(try HTTPCacheEntry.decode(data))
        } catch {
            _ = unlink(file.path)
            return .damaged(error.reason)
        }
    }

    /// Stores `entry` for `key` atomically, then evicts the least recently used entries over the size cap.
    public func write(_ entry: HTTPCacheEntry, provider: String, key: String) throws {
        let folder = directory.appendingPathComponent(Self.folderName(provider))
        try ensureFolder(directory)
        try ensureFolder(folder)
        let file = entryURL(provider: provider, key: key)
        do {
            // The eviction below sweeps abandoned temporaries, under the lock.
            try FileReplacement.replace(file, with: entry.encoded(), removingAbandoned: false)
        } catch {
            throw AggregateError(.config, "cannot write the cache entry \(file.path): \(error.reason)")
        }
        try withFileLock { evict() }
    }

    /// Marks the entry as just used, for the LRU order.
    public func touch(provider: String, key: String) {
        _ = utimes(entryURL(provider: provider, key: key).path, nil)
    }

    private func entryURL(provider: String, key: String) -> URL {
        directory.appendingPathComponent(Self.folderName(provider)).appendingPathComponent(key + ".entry")
    }

    /// A provider's folder name: its name, with anything but `a-z 0-9 . _ -` replaced, never `.` or `..`.
    package static func folderName(_ provider: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        let name = String(provider.lowercased().map { allowed.contains($0) ? $0 : "_" })
        return name.isEmpty || name.allSatisfy { $0 == "." } ? "_" + name : name
    }

    // MARK: Counts

    /// What a lookup amounted to.
    public typealias Outcome = HTTPCacheOutcome

    /// Adds one `outcome` for `provider` to the counts.
    public func record(_ outcome: Outcome, provider: String) throws {
        try withFileLock {
            var counts = readCounts()
            var mine = counts[provider] ?? [:]
            mine[outcome.rawValue, default: 0] += 1
            counts[provider] = mine
            try writeCounts(counts)
        }
    }

    private var countsFile: URL { directory.appendingPathComponent("stats.json") }

    private func readCounts() -> [String: [String: Int]] {
        guard let data = FileManager.default.contents(atPath: countsFile.path), case .object(let object)? = try? JSONParser().parse(data) else {
            return [:]
        }
        var counts: [String: [String: Int]] = [:]
        for member in object.members {
            guard case .object(let figures) = member.value else { continue }
            counts[member.key] = Dictionary(figures.members.compactMap { figure in figure.value.int.map { (figure.key, $0) } }) { first, _ in first }
        }
        return counts
    }

    private func writeCounts(_ counts: [String: [String: Int]]) throws {
        let object = JSONObject(counts.sorted { $0.key < $1.key }.map { provider, figures in
            JSONObject.Member(provider, .object(JSONObject(figures.sorted { $0.key < $1.key }.map { JSONObject.Member($0.key, .int($0.value)) })))
        })
        do {
            // Also sweeps the top folder's abandoned temporaries (of the counts and the salt).
            try FileReplacement.replace(countsFile, with: JSONWriter(pretty: true).data(.object(object)))
        } catch {
            throw AggregateError(.config, "cannot write \(countsFile.path): \(error.reason)")
        }
    }

    // MARK: Statistics and clearing

    /// One provider's share of the cache.
    public struct ProviderStatistics: Sendable, Equatable {
        /// The provider's name.
        public var provider: String
        /// Stored entries.
        public var entries: Int
        /// Their size on disk.
        public var bytes: Int
        /// Answers from fresh entries (no request sent).
        public var hits: Int
        /// Answers confirmed by the server with 304.
        public var revalidated: Int
        /// Answers that came from the server.
        public var misses: Int

        /// Creates figures (zero unless given).
        public init(provider: String, entries: Int = 0, bytes: Int = 0, hits: Int = 0, revalidated: Int = 0, misses: Int = 0) {
            self.provider = provider
            self.entries = entries
            self.bytes = bytes
            self.hits = hits
            self.revalidated = revalidated
            self.misses = misses
        }
    }

    /// Entries, bytes, hits, revalidations and misses per provider, by name.
    public func statistics() -> [ProviderStatistics] {
        var byProvider: [String: ProviderStatistics] = [:]
        func blank(_ name: String) -> ProviderStatistics { ProviderStatistics(provider: name) }
        for file in entryFiles() {
            byProvider[file.provider, default: blank(file.provider)].entries += 1
            byProvider[file.provider, default: blank(file.provider)].bytes += file.bytes
        }
        // Looking must not create the folder.
        let exists = FileManager.default.fileExists(atPath: directory.path)
        let counts = exists ? ((try? withFileLock { readCounts() }) ?? [:]) : [:]
        for (provider, figures) in counts {
            var statistics = byProvider[provider] ?? blank(provider)
            statistics.hits = figures[Outcome.hit.rawValue] ?? 0
            statistics.revalidated = figures[Outcome.revalidated.rawValue] ?? 0
            statistics.misses = figures[Outcome.miss.rawValue] ?? 0
            byProvider[provider] = statistics
        }
        return byProvider.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Removes every entry and count of `provider` (of all providers when `nil`); returns the entries and bytes removed.
    /// - Parameter keepingCounts: keep the hit and miss counts (when entries are dropped because a write made them
    ///   out of date, not cleared by the user).
    @discardableResult
    public func clear(provider: String? = nil, keepingCounts: Bool = false) throws -> (entries: Int, bytes: Int) {
        guard FileManager.default.fileExists(atPath: directory.path) else { return (0, 0) }
        return try withFileLock {
            var removed = (entries: 0, bytes: 0)
            let folder = provider.map(Self.folderName)
            for file in entryFiles() where folder == nil || file.provider == folder {
                if unlink(file.url.path) == 0 {
                    removed.entries += 1
                    removed.bytes += file.bytes
                }
            }
            guard !keepingCounts else { return removed }
            var counts = readCounts()
            if let provider { counts[provider] = nil } else { counts = [:] }
            try writeCounts(counts)
            return removed
        }
    }

    // MARK: Eviction

    private struct EntryFile {
        var url: URL
        var provider: String
        var bytes: Int
        var lastUsed: Date
    }

    /// Every entry file, with its size and last use.
    private func entryFiles() -> [EntryFile] {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: directory.path) else { return [] }
        var files: [EntryFile] = []
        for folder in folders where !folder.hasPrefix(".") {
            let folderURL = directory.appendingPathComponent(folder)
            guard let names = try? manager.contentsOfDirectory(atPath: folderURL.path) else { continue }
            for name in names {
                let url = folderURL.appendingPathComponent(name)
                guard let attributes = try? manager.attributesOfItem(atPath: url.path) else { continue }
                let modified = attributes[.modificationDate] as? Date ?? .distantPast
                if name.hasSuffix(".tmp") {
                    // Left by a run that died between writing and renaming, or a live writer's.
                    if FileReplacement.isAbandoned(name: name, modified: modified) { _ = unlink(url.path) }
                    continue
                }
                guard name.hasSuffix(".entry") else { continue }
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                files.append(EntryFile(url: url, provider: folder, bytes: size, lastUsed: modified))
            }
        }
        return files
    }

    /// Removes the least recently used entries until the rest fit in ``maxBytes`` (called under the file lock).
    private func evict() {
        let files = entryFiles()
        var total = files.reduce(0) { $0 + $1.bytes }
        guard total > maxBytes else { return }
        for file in files.sorted(by: { $0.lastUsed < $1.lastUsed }) where total > maxBytes {
            if unlink(file.url.path) == 0 { total -= file.bytes }
        }
    }

    // MARK: Files

    /// Creates `folder` 0700 if needed (its parents with the usual permissions), and narrows it to 0700 if wider.
    private func ensureFolder(_ folder: URL) throws {
        if folder == directory { try ensureFolder(root) }
        if mkdir(folder.path, 0o700) != 0 {
            if errno == ENOENT {
                try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
                if mkdir(folder.path, 0o700) != 0, errno != EEXIST { throw folderError(folder) }
            } else if errno != EEXIST {
                throw folderError(folder)
            }
        }
        _ = chmod(folder.path, 0o700)
    }

    private func folderError(_ folder: URL) -> AggregateError {
        AggregateError(.config, "cannot create the cache folder \(folder.path): \(FileSystemReason.describe(errno: errno))")
    }

    /// Writes `data` to a new 0600 file beside `target` and returns its URL.
    private func writeTemporary(_ data: Data, beside target: URL) throws -> URL {
        do {
            return try FileReplacement.writeTemporary(data, beside: target)
        } catch {
            throw AggregateError(.config, "cannot write in the cache folder \(target.deletingLastPathComponent().path): \(error.reason)")
        }
    }

    /// Runs `body` holding the exclusive lock on `<root>/http/.lock` (in this process and across processes).
    private func withFileLock<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try ensureFolder(directory)
        let path = directory.appendingPathComponent(".lock").path
        let descriptor: Int32
        do {
            descriptor = try FileLock.acquire(path)
        } catch {
            throw AggregateError(.config, "cannot lock the cache \(path): \(error.reason)")
        }
        defer { FileLock.release(descriptor) }
        return try body()
    }
}
