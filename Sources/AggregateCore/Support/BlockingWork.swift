import Foundation

/// Work that blocks a thread (reading standard input to its end, waiting for a file lock), run where it cannot
/// stall Swift's cooperative thread pool: on a thread of its own, awaited without holding a pool thread.
public enum BlockingWork {
    private static let marker = "aggregate.blocking-work"

    /// Whether the caller runs on one of this type's threads (and so not on the cooperative pool).
    public static var isOnWorkerThread: Bool { Thread.current.threadDictionary[marker] != nil }

    /// Runs `work` on a dedicated thread and returns its result (or throws its error; `Never` for work that
    /// cannot fail).
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread {
                // Marked rather than named: on Linux a thread inherits its creator's name and keeps it.
                Thread.current.threadDictionary[marker] = true
                continuation.resume(returning: Result { () throws(E) -> T in try work() })
            }
            thread.start()
        }
        return try result.get()
    }
}

/// Seconds as the nanoseconds `Task.sleep` takes, for any `Double` a library caller may pass: negative and NaN
/// become 0 and anything too large for `UInt64` saturates, where a plain `UInt64(_:)` conversion would trap.
public enum Nanoseconds {
    public static func from(seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }  // also NaN
        let nanoseconds = seconds * 1_000_000_000
        guard nanoseconds < 18_446_744_073_709_549_568 else { return .max }  // the largest Double below 2^64
        return UInt64(nanoseconds)
    }
}
