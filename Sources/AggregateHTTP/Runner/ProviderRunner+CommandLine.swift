public import AggregateCore
import AggregateText
public import Foundation

extension ProviderRunner.Settings {
    /// The options of these settings as the command line spells them (`aggregate` lists them among its common ones).
    public static let optionSpecs: [OptionSpec] = [
        OptionSpec("limit", valueName: "N", help: "The most items to return (default: 20)."),
        OptionSpec("offline", arity: .flag, help: "Answer from the bundled sandbox data: no network, no credentials."),
        OptionSpec("base-url", valueName: "URL", help: "Send requests to this server instead of the API (https, or http for this machine)."),
        OptionSpec("timeout", valueName: "SECONDS", help: "The most time one request may take (default: 15)."),
        OptionSpec("allow-http", arity: .flag, help: "Allow plain http:// to hosts other than this machine (with a warning)."),
    ]

    /// The option `name` of ``optionSpecs``; a name that is not one of them comes back as a plain value option
    /// with no help, rather than trapping.
    public static func optionSpec(_ name: String) -> OptionSpec {
        optionSpecs.first { $0.name == name } ?? OptionSpec(name, valueName: "VALUE", help: "")
    }

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
    public func run(
        _ arguments: [String], standardInput: ProviderArguments.StandardInputReader = ProviderArguments.noStandardInput
    ) async throws(AggregateError) -> ProviderResult {
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
