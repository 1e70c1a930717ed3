import AggregateHTTPServer
import Foundation

/// The server-wide fault rules, with how many uses each `times=` rule has left.
final class FaultRules: Sendable {
    private struct Rule {
        var fault: SandboxFault
        var remaining: Int?
    }

    private let rules: Guarded<[Rule]>

    init(_ faults: [SandboxFault]) {
        rules = Guarded(faults.map { Rule(fault: $0, remaining: $0.times) })
    }

    func add(_ fault: SandboxFault) {
        rules.withLock { $0.append(Rule(fault: fault, remaining: fault.times)) }
    }

    func removeAll() {
        rules.withLock { $0.removeAll() }
    }

    /// The first live rule that applies, using up one of its `times` (checked and spent under one lock,
    /// so with `times=1` exactly one of many concurrent requests gets the fault).
    func take(method: String, path: String) -> SandboxFault? {
        rules.withLock { rules in
            guard let index = rules.firstIndex(where: { ($0.remaining ?? 1) > 0 && $0.fault.applies(method: method, path: path) })
            else { return nil }
            if let remaining = rules[index].remaining { rules[index].remaining = remaining - 1 }
            return rules[index].fault
        }
    }
}
