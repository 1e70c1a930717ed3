package import AggregateCore
import AggregateText
import Foundation

/// What the web page's query form asks for: a provider, one of its operations, the parameter values as typed, and
/// a limit. It is read back from the form's query string (``parse(_:descriptors:)``) and turned into the command
/// line the server runs (``arguments``), so the page runs exactly what `aggregate` would.
package struct QuerySelection: Sendable, Equatable {
    /// The provider's name, e.g. `tmdb`.
    package var provider: String
    /// The operation's name, e.g. `search`.
    package var operation: String
    /// The values given, as typed, by parameter name (empty fields left out); a checkbox list's values joined with
    /// commas, a flag as `true`.
    package var values: [String: String]
    /// The limit given, or `nil` for the default.
    package var limit: Int?

    /// Creates a selection.
    package init(provider: String, operation: String, values: [String: String] = [:], limit: Int? = nil) {
        self.provider = provider
        self.operation = operation
        self.values = values
        self.limit = limit
    }

    /// The names the form uses besides the parameters' own.
    package static let reservedNames: Set<String> = ["provider", "operation", "limit", "choose"]

    /// The most items a page may ask for, as `--limit` allows.
    package static let limitRange = 1...10_000

    // MARK: - Reading the query string

    /// Reads the form's query string, e.g. `provider=tmdb&operation=search&query=batman&limit=10`, and checks it
    /// against the provider's descriptor: every value must suit its parameter, and every required one be there
    /// (its default counts). A missing operation means the provider's default one; empty fields are not given.
    /// - Returns: the selection, or `nil` for an empty query string (the page's first view).
    /// - Throws: one `usage` error for an unknown provider, operation or parameter, a value of the wrong type, a
    ///   missing required parameter or a bad limit; its message is what the page shows.
    package static func parse(_ query: String, descriptors: [ProviderDescriptor]) throws(AggregateError) -> QuerySelection? {
        try parse(WebQuery(query), descriptors: descriptors, lenient: false)
    }

    /// Reads the query string as ``parse(_:descriptors:)`` does, but for the "Choose" button of the form without
    /// JavaScript: an operation of another provider becomes this provider's default, values of parameters the
    /// operation lacks are dropped, and nothing is checked beyond the provider's name.
    package static func choose(_ query: String, descriptors: [ProviderDescriptor]) throws(AggregateError) -> QuerySelection? {
        try parse(WebQuery(query), descriptors: descriptors, lenient: true)
    }

    static func parse(_ query: WebQuery, descriptors: [ProviderDescriptor], lenient: Bool) throws(AggregateError) -> QuerySelection? {
        guard !query.pairs.isEmpty else { return nil }
        let descriptor = try Self.descriptor(query.values("provider").last, among: descriptors)
        let name = descriptor.name
        var operation = descriptor.defaultOperation
        if let asked = query.values("operation").last, !asked.isEmpty {
            if let named = descriptor.operation(named: asked) {
                operation = named
            } else if !lenient {
                let names = descriptor.operations.map(\.name)
                throw AggregateError(
                    .usage, "unknown operation '\(asked)' for \(name)\(DidYouMean.suffix(for: asked, among: names)) (operations: \(names.joined(separator: ", ")))",
                    provider: name)
            }
        }
        let parameters = descriptor.options + operation.parameters
        var selection = QuerySelection(provider: name, operation: operation.name)
        for key in query.names where !reservedNames.contains(key) {
            guard let parameter = parameters.first(where: { $0.name == key }) else {
                if lenient { continue }
                let names = parameters.map(\.name)
                let known = names.isEmpty ? "it takes none" : "parameters: \(names.joined(separator: ", "))"
                throw AggregateError(
                    .usage, "unknown parameter '\(key)' for '\(name) \(operation.name)'\(DidYouMean.suffix(for: key, among: names)) (\(known))", provider: name)
            }
            let texts = query.values(key).filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            guard !texts.isEmpty else { continue }
            if parameter.style == .flag {
                // A checkbox sends its value only when ticked; `false` is accepted for links written by hand.
                if texts.contains(where: { !["true", "on", "1", "yes"].contains($0.lowercased()) }) { continue }
                selection.values[key] = "true"
                continue
            }
            if case .choiceList = parameter.type {
                selection.values[key] = texts.joined(separator: ",")
            } else if texts.count > 1, !lenient {
                throw AggregateError(.usage, "\(label(parameter)) is given \(texts.count) times; give it once", provider: name)
            } else {
                selection.values[key] = texts.last
            }
        }
        if let text = query.values("limit").last, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            if let limit = Int(text.trimmingCharacters(in: .whitespaces)), limitRange.contains(limit) {
                selection.limit = limit
            } else if !lenient {
                throw AggregateError(.usage, "--limit must be a whole number from 1 to 10000, not '\(text)'")
            }
        }
        if !lenient { try selection.check(parameters, descriptor: descriptor) }
        return selection
    }

    /// The descriptor named `name`.
    /// - Throws: a `usage` error for a missing or unknown name, listing the providers.
    static func descriptor(_ name: String?, among descriptors: [ProviderDescriptor]) throws(AggregateError) -> ProviderDescriptor {
        let names = descriptors.map(\.name)
        guard let name, !name.isEmpty else {
            throw AggregateError(.usage, "missing provider (providers: \(names.joined(separator: ", ")))")
        }
        guard let descriptor = descriptors.first(where: { $0.name == name }) else {
            throw AggregateError(.usage, "unknown provider '\(name)'\(DidYouMean.suffix(for: name, among: names)) (providers: \(names.joined(separator: ", ")))")
        }
        return descriptor
    }

    /// Checks each value against its parameter's type and that every required parameter has a value or a default,
    /// with the messages the command line gives.
    private func check(_ parameters: [Parameter], descriptor: ProviderDescriptor) throws(AggregateError) {
        for parameter in parameters {
            if let text = values[parameter.name] {
                do {
                    _ = try parameter.value(from: text)
                } catch {
                    var error = error.attributed(to: descriptor.name)
                    // The command line names a positional by its value (`<title>`); the form's field is its name.
                    let cliLabel = "<\(parameter.valueName.lowercased())>"
                    if parameter.style == .positional, error.message.hasPrefix(cliLabel) {
                        error.message = Self.label(parameter) + error.message.dropFirst(cliLabel.count)
                    }
                    throw error
                }
            } else if parameter.isRequired, parameter.defaultValue == nil {
                throw AggregateError(.usage, "missing \(Self.label(parameter)) for '\(descriptor.name) \(operation)'", provider: descriptor.name)
            }
        }
    }

    /// A parameter as the page's messages name it: `--year` as on the command line, and a positional one by its
    /// field's name, `<query>`.
    static func label(_ parameter: Parameter) -> String {
        parameter.style == .positional ? "<\(parameter.name)>" : "--\(parameter.name)"
    }

    // MARK: - Writing it back

    /// The command line the server runs for this selection, without `aggregate`: the provider, the operation, the
    /// named values as `--name=value` (so a value starting with `-` stays a value), `--limit=N`, then `--` and the
    /// positional values in order. E.g. `["tmdb", "search", "--year=1989", "--limit=10", "--", "batman"]`.
    /// - Parameters:
    ///   - descriptor: the provider's descriptor (for which parameters are positional, and their order).
    ///   - options: the server's own options for the run, e.g. `--offline` or `--timeout=10`, put before `--` so
    ///     they stay options.
    package func arguments(_ descriptor: ProviderDescriptor, adding options: [String] = []) -> [String] {
        let parameters = descriptor.options + (descriptor.operation(named: operation)?.parameters ?? [])
        var named: [String] = [], positional: [String] = []
        for parameter in parameters {
            guard let value = values[parameter.name] else { continue }
            switch parameter.style {
            case .positional: positional.append(value)
            case .option: named.append("--\(parameter.name)=\(value)")
            case .flag: named.append("--\(parameter.name)")
            }
        }
        if let limit { named.append("--limit=\(limit)") }
        return [provider, operation] + named + options + (positional.isEmpty ? [] : ["--"] + positional)
    }

    /// The invocation as it would be typed after `aggregate` (for compare's `i=` and for people), e.g.
    /// `tmdb search batman --year 1989 --limit 10`.
    package func commandLine(_ descriptor: ProviderDescriptor) -> String {
        let parameters = descriptor.options + (descriptor.operation(named: operation)?.parameters ?? [])
        var named: [String] = [], positional: [String] = []
        for parameter in parameters {
            guard let value = values[parameter.name] else { continue }
            switch parameter.style {
            case .positional: positional.append(value)
            case .option: named += ["--\(parameter.name)", shellQuoted(value)]
            case .flag: named.append("--\(parameter.name)")
            }
        }
        if let limit { named += ["--limit", String(limit)] }
        let quoted = positional.map(shellQuoted)
        // A positional value that looks like an option would be read as one, so then they all go after `--`.
        let words = positional.contains { $0.hasPrefix("-") } ? named + ["--"] + quoted : quoted + named
        return ([provider, operation] + words).joined(separator: " ")
    }

    /// The page's own link to this selection: `/?provider=tmdb&operation=search&query=batman&limit=10`.
    package func href(_ descriptor: ProviderDescriptor) -> String {
        let parameters = descriptor.options + (descriptor.operation(named: operation)?.parameters ?? [])
        var pairs: [(name: String, value: String)] = [("provider", provider), ("operation", operation)]
        pairs += parameters.compactMap { parameter in values[parameter.name].map { (parameter.name, $0) } }
        if let limit { pairs.append(("limit", String(limit))) }
        return "/?" + WebQuery(pairs: pairs).encoded
    }
}
