import AggregateCore
import Foundation

/// What a definition's mapping noticed during a run that the output would otherwise hide: a year read as epoch
/// seconds, a field that no record filled. A library never writes to stderr, so the command line (or an app)
/// collects the warnings around a run with ``collecting(_:)`` and shows them; outside it they are dropped.
public enum DefinitionWarnings {
    /// One warning: the provider, and the sentence (`Providers/X/provider.json: /operations/0/item/createdAt: ...`).
    public struct Warning: Sendable, Equatable, CustomStringConvertible {
        public var provider: String
        public var message: String
        /// What makes two warnings the same (the field's pointer): the first one of a kind is kept.
        var key: String
        public var description: String { "\(provider): \(message)" }
    }

    /// Runs `body` and returns what the definitions it ran warned about, one warning a field, in first-seen order.
    public static func collecting<T>(_ body: () async throws -> T) async rethrows -> (value: T, warnings: [Warning]) {
        let sink = Sink()
        let value = try await $sink.withValue(sink, operation: body)
        return (value, sink.warnings)
    }

    /// Hands `warning` to the ``collecting(_:)`` running around this call, if any.
    static func report(_ warning: Warning) { sink?.add(warning) }

    @TaskLocal private static var sink: Sink?

    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [Warning] = []

        var warnings: [Warning] {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }

        func add(_ warning: Warning) {
            lock.lock()
            defer { lock.unlock() }
            if !seen.contains(where: { $0.provider == warning.provider && $0.key == warning.key }) { seen.append(warning) }
        }
    }
}
