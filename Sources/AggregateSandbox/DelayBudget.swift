import AggregateHTTPServer
import Foundation

/// The caps on injected delays (docs/sandbox-faults.md, "Caps on delays"): at most
/// ``SandboxServerConfiguration/maximumDelayPerConnection`` on one connection over its life, and at most
/// ``SandboxServerConfiguration/maximumPendingDelay`` pending across all connections at once. Without them, a few
/// hundred `delay=1h` requests held every connection slot for an hour.
final class DelayBudget: Sendable {
    let perConnection: TimeInterval
    let total: TimeInterval
    private let pending = Guarded<TimeInterval>(0)

    init(perConnection: TimeInterval, total: TimeInterval) {
        self.perConnection = perConnection
        self.total = total
    }

    /// Takes `delay` out of the budget for a connection that has already waited `used`; `nil` when granted (the
    /// caller then ``release(_:)``s it when the wait ends), else why not, in words for the 400's message.
    func reserve(_ delay: TimeInterval, used: TimeInterval) -> String? {
        let asked = "delay=\(Self.seconds(delay))"
        if used + delay > perConnection {
            return "\(asked) is over the sandbox's cap of \(Self.seconds(perConnection)) of injected delay per connection"
                + " (this one has waited \(Self.seconds(used))); ask for less or open a new connection. See docs/sandbox-faults.md."
        }
        return pending.withLock { pending -> String? in
            guard pending + delay <= total else {
                return "\(asked) is over the sandbox's cap of \(Self.seconds(total)) of injected delay pending across all"
                    + " connections (\(Self.seconds(pending)) pending); ask for less or retry later. See docs/sandbox-faults.md."
            }
            pending += delay
            return nil
        }
    }

    /// Gives back a granted delay whose wait has ended (elapsed, or the client left).
    func release(_ delay: TimeInterval) {
        pending.withLock { $0 = max(0, $0 - delay) }
    }

    /// What is pending now, for tests.
    var pendingSeconds: TimeInterval { pending.withLock { $0 } }

    /// `15s`, `1.5s`, `0.25s`.
    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value))s" : "\((value * 1000).rounded() / 1000)s"
    }
}
