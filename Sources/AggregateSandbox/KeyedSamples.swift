import AggregateCore
import AggregateDefinitions
import Foundation

/// The samples that answer one request: those keyed by the value of a path placeholder
/// (`"repos?username=octocat"`), else the operation's own. An operation with keyed samples answers a value it has
/// none for with `nil`, which the emulator serves as the API serves an unknown name: 404.
enum KeyedSamples {
    /// The sample files for `operation` at `path`, `[]` when it has none at all, `nil` for an unknown keyed value.
    static func files(_ definition: ProviderDefinition, _ operation: ProviderDefinition.Operation, path: String) -> [String]? {
        let name = operation.descriptor.name
        let keyed = definition.samples.compactMap { key, files in SampleKey.parse(key).flatMap { $0.operation == name ? ($0.name, $0.value, files) : nil } }
        guard !keyed.isEmpty else { return definition.samples[name] ?? [] }
        let values = captures(operation.path, path)
        return keyed.first { values[$0.0] == $0.1 }?.2
    }

    /// The values of the path template's placeholders in `path` (one segment each, percent-decoded).
    static func captures(_ template: Template, _ path: String) -> [String: String] {
        var values: [String: String] = [:]
        var rest = Substring(path)
        for part in template.parts {
            switch part {
            case .text(let text):
                guard rest.hasPrefix(text) else { return values }
                rest = rest.dropFirst(text.count)
            case .value(let name):
                let segment = rest.prefix { $0 != "/" }
                values[name] = String(segment).removingPercentEncoding ?? String(segment)
                rest = rest.dropFirst(segment.count)
            case .ifPresent:
                // An optional part makes the split ambiguous; keyed samples are for plain `{name}` segments.
                return values
            }
        }
        return values
    }
}
