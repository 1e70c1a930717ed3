import AggregateText
package import Foundation

/// Creates the file at `path`, which must not exist yet, with `mode`; writes all of `data` (retrying interrupted and
/// short writes) and, with `flush`, forces it to disk. Returns 0, or the `errno` of what failed, for the caller to
/// report in its own words. Shared by the files that are written under a temporary name and then renamed.
package func writeNewFile(_ data: Data, at path: String, mode: mode_t, flush: Bool) -> Int32 {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { return errno }
    defer { close(descriptor) }
    var failure: Int32 = 0
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            offset += written
        }
    }
    if failure == 0, flush, fsync(descriptor) != 0 { failure = errno }
    return failure
}

/// What a file operation failed at: the path and the `errno`, for the caller to report in its own words.
package struct FileFailure: Error, Sendable, Equatable {
    /// The file or folder the operation was about.
    package var path: String
    /// The `errno` it failed with.
    package var code: Int32

    package init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }

    /// Our words for ``code`` (``FileSystemReason``).
    package var reason: String { FileSystemReason.describe(errno: code) }
}

/// An exclusive `flock(2)` on a lock file, the one way our read-modify-write files (the disk cache's counts, the
/// rate-limit state, the sandbox store, the config file) keep two processes from losing each other's update.
/// The lock file stays in place (0600, empty): removing it would let a waiter lock a file nobody else sees.
package enum FileLock {
    /// Opens `path` (creating it 0600) and waits for the exclusive lock. Pass the descriptor to ``release(_:)``.
    package static func acquire(_ path: String) throws(FileFailure) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileFailure(path: path, code: errno) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = FileFailure(path: path, code: errno)
                close(descriptor)
                throw failure
            }
        }
        return descriptor
    }

    /// Unlocks and closes what ``acquire(_:)`` returned.
    package static func release(_ descriptor: Int32) {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Runs `body` holding the exclusive lock on `path`; a lock that cannot be taken throws `failure`'s error.
    package static func withLock<T, E: Error>(
        _ path: String, failure: (FileFailure) -> E, _ body: () throws(E) -> T
    ) throws(E) -> T {
        let descriptor: Int32
        do {
            descriptor = try acquire(path)
        } catch {
            throw failure(error)
        }
        defer { release(descriptor) }
        return try body()
    }
}

/// Files replaced whole: the new content goes to a temporary file beside the target, created 0600 with `O_EXCL`
/// (never wider, not even for a moment, whatever the umask, and never through a file someone put there), and is
/// then renamed over the target, so a reader sees the old file or the new one and never half of one.
///
/// A writer killed between the two steps leaves its temporary behind. Ours are named
/// `.<target>.<pid>.<16 hex digits>.tmp`, so the next write to the same folder can tell an abandoned one from a
/// live writer's: it is abandoned when the process named in it is gone, or when it is older than
/// ``abandonedAfter`` (whatever the pid says, since pids are reused and a folder may be shared with another
/// machine). The names of earlier versions count too: `.<target>.<pid>.tmp` (the config file) and
/// `.<target>.<UUID>.tmp` (the cache, the rate-limit state, the sandbox store; by age only).
package enum FileReplacement {
    /// How old a temporary of ours must be to be removed although its writer may be alive: no write takes this long.
    package static let abandonedAfter: TimeInterval = 600

    /// Replaces `target` with `data`: removes abandoned temporaries in its folder (unless `removingAbandoned` is
    /// false, for a caller that sweeps on its own), writes a new temporary (with `flush`, forced to disk, and the
    /// folder too after the rename) and renames it into place. On failure the temporary is removed.
    package static func replace(
        _ target: URL, with data: Data, flush: Bool = false, removingAbandoned: Bool = true
    ) throws(FileFailure) {
        let folder = target.deletingLastPathComponent()
        if removingAbandoned { removeAbandoned(in: folder) }
        let temporary = try writeTemporary(data, beside: target, flush: flush)
        guard rename(temporary.path, target.path) == 0 else {
            let failure = FileFailure(path: target.path, code: errno)
            _ = unlink(temporary.path)
            throw failure
        }
        if flush {
            // The rename is durable only once the folder's entry is on disk.
            let descriptor = open(folder.path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                _ = fsync(descriptor)
                close(descriptor)
            }
        }
    }

    /// Writes `data` to a new temporary file (0600) beside `target` and returns it, for the caller to rename or link.
    package static func writeTemporary(_ data: Data, beside target: URL, flush: Bool = false) throws(FileFailure) -> URL {
        let temporary = target.deletingLastPathComponent().appendingPathComponent(temporaryName(for: target.lastPathComponent))
        let failure = writeNewFile(data, at: temporary.path, mode: 0o600, flush: flush)
        guard failure == 0 else {
            _ = unlink(temporary.path)
            throw FileFailure(path: temporary.path, code: failure)
        }
        return temporary
    }

    /// `.<name>.<pid>.<16 random hex digits>.tmp`.
    package static func temporaryName(for name: String) -> String {
        let token = String(UInt64.random(in: .min ... .max), radix: 16)
        return ".\(name).\(getpid()).\(String(repeating: "0", count: 16 - token.count) + token).tmp"
    }

    /// Removes the temporaries of ours in `folder` that no writer can still be using.
    package static func removeAbandoned(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasSuffix(".tmp") {
            let path = folder.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
            if isAbandoned(name: name, modified: modified) { _ = unlink(path) }
        }
    }

    /// Whether `name` is a temporary of ours (see the type's notes) whose writer is gone or which is too old.
    package static func isAbandoned(name: String, modified: Date, now: Date = Date()) -> Bool {
        guard let writer = TemporaryName(name) else { return false }
        if now.timeIntervalSince(modified) > abandonedAfter { return true }
        guard let pid = writer.pid else { return false }
        return !processIsRunning(pid)
    }

    private static func processIsRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// The parts of a temporary name of ours: `.<target>.<pid>[.<16 hex>].tmp` or `.<target>.<UUID>.tmp`.
    private struct TemporaryName {
        /// The writer's process, `nil` for the UUID form.
        var pid: pid_t?

        init?(_ name: String) {
            guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
            var parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 2, let last = parts.popLast() else { return nil }
            if last.count == 36, UUID(uuidString: String(last)) != nil {
                pid = nil
            } else {
                var pidText = last
                if last.count == 16, last.allSatisfy(\.isHexDigit), parts.count >= 2 { pidText = parts.removeLast() }
                guard (1...9).contains(pidText.count), pidText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = pid_t(pidText), number > 0 else {
                    return nil
                }
                pid = number
            }
            // A target name remains, and is not empty.
            guard !parts.joined(separator: ".").isEmpty else { return nil }
        }
    }
}
