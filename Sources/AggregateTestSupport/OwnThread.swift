import Foundation

/// Runs blocking work (waiting for a process, a semaphore, many threads at once) on a thread of its own and awaits
/// it, so the test does not hold one of the few threads of Swift's cooperative pool while it waits. On a 2-core
/// machine that pool has two threads: tests blocking both stall every in-process server's async handler, and timing-
/// sensitive tests elsewhere in the run fail for it.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
