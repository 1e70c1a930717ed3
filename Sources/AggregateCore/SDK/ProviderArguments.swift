public import Foundation

/// A provider's command line, e.g. `tmdb search batman --year 1989`: the provider, the operation (the default when
/// the next word names none) and the operation's typed parameters. The command line and ``ProviderRunner`` both
/// read invocations through it.
public struct ProviderArguments: Sendable {
    /// The provider named first.
    public var provider: any RunnableProvider
    /// The operation named next, or the provider's default.
    public var operation: ProviderOperation
    /// The arguments after the provider and the operation.
    public var rest: [String]

    /// Picks the provider and the operation.
    /// - Throws: a `usage` error for a missing or unknown provider (listing the valid ones).
    public init(_ arguments: [String], registry: ProviderRegistry) throws(AggregateError) {
        guard let first = arguments.first else { throw AggregateError(.usage, "missing provider name") }
        provider = try registry.require(first)
        let descriptor = provider.descriptor
        rest = Array(arguments.dropFirst())
        operation = descriptor.defaultOperation
        if let candidate = rest.first, !candidate.hasPrefix("-"), let named = descriptor.operation(named: candidate) {
            operation = named
            rest.removeFirst()
        }
    }

    /// The parameters the command line may give: the provider's options, then the operation's.
    public var parameters: [Parameter] { provider.descriptor.options + operation.parameters }

    /// The options of the named parameters, for a parser beside the common options.
    public var optionSpecs: [OptionSpec] {
        parameters.filter { $0.style != .positional }.map { parameter in
            OptionSpec(parameter.name, arity: parameter.style == .flag ? .flag : .value, valueName: parameter.valueName, help: parameter.help)
        }
    }

    /// The typed, checked parameter values: positionals in order, named options, `-` read from standard input where
    /// a parameter allows it, defaults, and an error for a missing required one or a word left over.
    /// - Parameter fallback: a value from elsewhere (e.g. a config file) for an option the command line leaves unset.
    public func values(
        from parsed: ParsedArguments, standardInput: () -> Data? = { nil }, fallback: (Parameter) -> String? = { _ in nil }
    ) throws(AggregateError) -> JSONObject {
        let descriptor = provider.descriptor
        var values = JSONObject()
        var positionals = parsed.positionals[...]
        for parameter in parameters {
            var text: String?
            switch parameter.style {
            case .positional: text = positionals.popFirst()
            case .option: text = parsed.value(parameter.name) ?? fallback(parameter)
            case .flag: text = parsed.has(parameter.name) ? "true" : nil
            }
            if parameter.readsStandardInputOnDash, text == "-" {
                guard let bytes = standardInput() else {
                    throw AggregateError(.usage, "--\(parameter.name) - reads standard input, but nothing could be read", provider: descriptor.name)
                }
                guard let input = String(data: bytes, encoding: .utf8) else {
                    throw AggregateError(
                        .invalidInput, "--\(parameter.name) - read standard input, but it is not UTF-8 text; convert it first (e.g. with iconv)",
                        provider: descriptor.name)
                }
                text = input
            }
            if let text {
                do {
                    values[parameter.name] = try parameter.value(from: text)
                } catch {
                    throw error.attributed(to: descriptor.name)
                }
            } else if let fallback = parameter.defaultValue {
                values[parameter.name] = try parameter.value(from: fallback)
            } else if parameter.isRequired {
                let label = parameter.style == .positional ? "<\(parameter.valueName.lowercased())>" : "--\(parameter.name) <\(parameter.valueName)>"
                throw AggregateError(.usage, "missing \(label) for '\(descriptor.name) \(operation.name)'", provider: descriptor.name)
            }
        }
        if let extra = positionals.first {
            let hint = descriptor.operations.count > 1 && parsed.positionals.first == extra
                ? " (operations: \(descriptor.operations.map(\.name).joined(separator: ", ")))" : ""
            throw AggregateError(.usage, "unexpected argument '\(extra)'\(hint)", provider: descriptor.name)
        }
        return values
    }
}

extension ProviderRunner.Settings {
    /// The options of these settings as the command line spells them (`aggregate` lists them among its common ones).
    public static let optionSpecs: [OptionSpec] = [
        OptionSpec("limit", valueName: "N", help: "The most items to return (default: 20)."),
        OptionSpec("offline", arity: .flag, help: "Answer from the bundled sandbox data: no network, no credentials."),
        OptionSpec("base-url", valueName: "URL", help: "Send requests to this server instead of the API (https, or http for this machine)."),
        OptionSpec("timeout", valueName: "SECONDS", help: "The most time one request may take (default: 15)."),
        OptionSpec("allow-http", arity: .flag, help: "Allow plain http:// to hosts other than this machine (with a warning)."),
    ]

    /// The option `name` of ``optionSpecs``.
    public static func optionSpec(_ name: String) -> OptionSpec { optionSpecs.first { $0.name == name }! }

    /// Reads the settings from parsed arguments.
    /// - Throws: a `usage` error for a bad value, or `--offline` with `--base-url`.
    public init(_ parsed: ParsedArguments) throws(AggregateError) {
        self.init(offline: parsed.has("offline"), baseURL: parsed.value("base-url"), allowHTTP: parsed.has("allow-http"))
        if let text = parsed.value("limit") {
            limit = try Self.limit(from: text)
            limitIsExplicit = true
        }
        if let text = parsed.value("timeout") { timeout = try Self.timeout(from: text) }
        try checkCombination()
    }

    /// `--offline` and `--base-url` exclude each other.
    public func checkCombination() throws(AggregateError) {
        if offline, baseURL != nil { throw AggregateError(.usage, "--offline and --base-url cannot be used together") }
    }

    /// A `--limit` value: a whole number from 1 to 10000.
    public static func limit(from text: String) throws(AggregateError) -> Int {
        guard let value = Int(text), (1...10_000).contains(value) else {
            throw AggregateError(.usage, "--limit must be a whole number from 1 to 10000, not '\(text)'")
        }
        return value
    }

    /// A `--timeout` value: plain decimal seconds from 0.01 to an hour (no hexadecimal, no exponent).
    public static func timeout(from text: String) throws(AggregateError) -> TimeInterval {
        guard let value = DecimalText.number(text, in: 0.01...3600) else {
            throw AggregateError(.usage, "--timeout must be a decimal number of seconds from 0.01 to 3600, not '\(text)'")
        }
        return value
    }
}

extension ProviderRunner {
    /// Runs a command line such as `["tmdb", "search", "batman", "--limit", "5"]` as `aggregate` does: the provider's
    /// parameters and `--limit`, `--offline`, `--base-url`, `--timeout`, `--allow-http`.
    /// - Throws: `usage` errors for a command line that is not valid (nothing is sent then); the run's own failures
    ///   are in the result.
    public func run(_ arguments: [String], standardInput: () -> Data? = { nil }) async throws(AggregateError) -> ProviderResult {
        let invocation = try ProviderArguments(arguments, registry: registry)
        let name = invocation.provider.descriptor.name
        let parsed: ParsedArguments
        let settings: Settings
        do {
            parsed = try ArgumentParser(options: Settings.optionSpecs + invocation.optionSpecs).parse(invocation.rest)
            settings = try Settings(parsed)
        } catch {
            throw error.attributed(to: name)
        }
        let values = try invocation.values(from: parsed, standardInput: standardInput)
        return await run(invocation.provider, operation: invocation.operation.name, parameters: values, settings: settings)
    }
}
