import AggregateCore
public import AggregateHTTP
import AggregateDefinitions
import AggregateJSON
public import Foundation

/// Checks an imported definition the only way that counts: replays the cassette through it (the engine over a
/// replaying transport, as `--replay` runs) and compares the items with the records the bodies hold.
public enum RecordingVerification {
    /// What the replay showed.
    public struct Outcome: Sendable, Equatable {
        /// Items that matched, over all operations.
        public var items: Int
        /// Exchanges the replays answered from.
        public var exchanges: Int
        /// One line per difference; empty when everything matched.
        public var differences: [String]

        /// `verified: 59 items from 2 exchanges match`, or the first difference and how many there are.
        public var summary: String {
            if differences.isEmpty { return "verified: \(items) item\(items == 1 ? "" : "s") from \(exchanges) exchange\(exchanges == 1 ? "" : "s") match" }
            return "not verified: \(differences.count) difference\(differences.count == 1 ? "" : "s") between the replay and the recorded records"
        }
    }

    /// Replays each operation's recorded run through the imported definition.
    /// - Parameter file: the cassette's file, for the replayer's messages.
    public static func verify(_ imported: RecordingImport, cassette: Cassette, file: URL) async -> Outcome {
        var outcome = Outcome(items: 0, exchanges: 0, differences: [])
        let provider: DeclarativeProvider
        let registry: ProviderRegistry
        do {
            provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(.object(imported.imported.definition))))
            registry = try ProviderRegistry(providers: [provider])
        } catch {
            outcome.differences.append("the imported definition does not load: \(error)")
            return outcome
        }
        for run in imported.runs {
            var runner = ProviderRunner(registry: registry, environment: [:], makeTransport: { NoNetworkTransport() })
            runner.replayer = CassetteReplayer(cassette: cassette, file: file)
            // Plain http is allowed: nothing leaves the process, the cassette answers.
            let settings = ProviderRunner.Settings(limit: max(1, run.expected.count), limitIsExplicit: true, allowHTTP: true)
            let result = await runner.run(provider, operation: run.operation, parameters: run.parameters, settings: settings)
            if let error = result.error {
                outcome.differences.append("\(run.operation): the replay failed: \(error.message)")
                continue
            }
            outcome.exchanges += result.meta.requests
            let replayed = result.items.map { RecordedRun.Entry(id: $0.id, title: $0.title) }
            let differences = compare(replayed, run.expected, operation: run.operation)
            outcome.differences += differences
            if differences.isEmpty { outcome.items += replayed.count }
        }
        return outcome
    }

    /// One line per position where the replayed items and the recorded records differ (the first five), and one
    /// for a difference in count.
    static func compare(_ replayed: [RecordedRun.Entry], _ expected: [RecordedRun.Entry], operation: String) -> [String] {
        var lines: [String] = []
        for (index, pair) in zip(replayed, expected).enumerated() where pair.0 != pair.1 {
            lines.append("\(operation): item \(index + 1) is \(pair.0) in the replay but \(pair.1) in the recorded body")
            if lines.count == 5 { break }
        }
        if replayed.count != expected.count {
            lines.append("\(operation): the replay gave \(replayed.count) items, the recorded bodies hold \(expected.count) records with an id and a title")
        }
        return lines
    }
}
