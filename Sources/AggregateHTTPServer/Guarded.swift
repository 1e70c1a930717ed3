package import Foundation

/// A value shared between threads, read and changed only under its lock.
///
/// It uses `NSCondition` rather than `Mutex` because the package still supports macOS 13, and because
/// `stop()` and `waitUntilStopped()` need to wait for a change, not only exclude each other.
package final class Guarded<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access, then wakes anyone waiting for a change.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&value)
    }

    /// Waits until `predicate` holds or `timeout` passes (`nil`: forever); returns whether it holds.
    @discardableResult
    package func wait(until predicate: (Value) -> Bool, timeout: TimeInterval? = nil) -> Bool {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        condition.lock()
        defer { condition.unlock() }
        while !predicate(value) {
            if let deadline {
                if !condition.wait(until: deadline) { return predicate(value) }
            } else {
                condition.wait()
            }
        }
        return true
    }
}
