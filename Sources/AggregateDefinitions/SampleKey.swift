import AggregateCore
import Foundation

/// The keys of a definition's `samples`: an operation's name (its pages for any request), or
/// `operation?name=value` (its pages when the path placeholder `name` is `value`, e.g. `repos?username=octocat`).
/// An operation with keyed samples answers a value it has none for as the API answers an unknown one: 404.
public enum SampleKey {
    /// The operation a key names and the placeholder value it is for, if any.
    public static func parse(_ key: String) -> (operation: String, name: String, value: String)? {
        guard let mark = key.firstIndex(of: "?") else { return nil }
        let pair = key[key.index(after: mark)...].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else { return nil }
        return (String(key[..<mark]), String(pair[0]), String(pair[1]))
    }

    /// Whether `key` names an operation of `operations` (and, when keyed, one of its path placeholders).
    static func check(_ key: String, _ files: DefinitionReader, operations: [ProviderDefinition.Operation]) throws(DefinitionProblem) -> Bool {
        guard key.contains("?") else { return operations.contains { $0.descriptor.name == key } }
        guard let (name, placeholder, _) = parse(key) else { throw files.problem("'\(key)' must be 'operation?name=value'") }
        guard let operation = operations.first(where: { $0.descriptor.name == name }) else { return false }
        guard operation.path.names.contains(placeholder) else {
            throw files.problem("'\(placeholder)' is not a placeholder of the path of '\(name)' (placeholders: \(operation.path.names.joined(separator: ", ")))")
        }
        return true
    }
}

extension ProviderDefinition {
    /// Whether the emulator has pages for `operation`: its own samples, keyed ones, or (for an operation with a
    /// `parent`) those of the parent, whose answer comes first.
    public func hasSamples(for operation: String) -> Bool {
        if samples[operation] != nil || samples.keys.contains(where: { SampleKey.parse($0)?.operation == operation }) { return true }
        guard let parent = self.operation(named: operation)?.parent else { return false }
        return hasSamples(for: parent.operation)
    }
}
