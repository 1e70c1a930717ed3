public import AggregateJSON
import AggregateText
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
    ///
    /// A first word that names no operation belongs to the default one, except when it is a likely typo of an
    /// operation's name (``DidYouMean``): `tmdb popularr` is refused rather than searched for. Naming the operation
    /// (`tmdb search popularr`) or `--` before the word (`tmdb -- popularr`) says it is meant as it is.
    /// - Throws: a `usage` error for a missing or unknown provider (listing the valid ones), or a mistyped operation.
    public init(_ arguments: [String], registry: ProviderRegistry) throws(AggregateError) {
        guard let first = arguments.first else { throw AggregateError(.usage, "missing provider name") }
        provider = try registry.require(first)
        let descriptor = provider.descriptor
        rest = Array(arguments.dropFirst())
        operation = descriptor.defaultOperation
        if let candidate = rest.first, !candidate.hasPrefix("-") {
            if let named = descriptor.operation(named: candidate) {
                operation = named
                rest.removeFirst()
            } else if let error = Self.mistypedOperation(candidate, of: provider) {
                throw error
            }
        }
    }

    /// The error for a first word that is a likely typo of one of the provider's operations (or local commands),
    /// saying how to mean the word as it is when the default operation takes a positional value.
    static func mistypedOperation(_ word: String, of provider: any RunnableProvider) -> AggregateError? {
        let descriptor = provider.descriptor
        // Operation names are words of letters, digits and hyphens: `@timeline` or `swift:lang` is meant as text.
        guard word.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        let names = descriptor.operations.map(\.name) + provider.localCommands.map(\.name)
        guard let suggestion = DidYouMean.closest(to: word, among: names) else { return nil }
        var message = "unknown operation '\(word)'; did you mean '\(suggestion)'?"
        let fallback = descriptor.defaultOperation
        if let positional = fallback.parameters.first(where: { $0.style == .positional }) {
            let (name, quoted) = (descriptor.name, shellQuoted(word))
            message += " (for the <\(positional.valueName.lowercased())> '\(word)' itself, say '\(name) \(fallback.name) \(quoted)' or '\(name) -- \(quoted)')"
        }
        return AggregateError(.usage, message, provider: descriptor.name)
    }

    /// The parameters the command line may give: the provider's options, then the operation's.
    public var parameters: [Parameter] { provider.descriptor.options + operation.parameters }

    /// The options of the named parameters, for a parser beside the common options.
    public var optionSpecs: [OptionSpec] {
        parameters.filter { $0.style != .positional }.map { parameter in
            OptionSpec(parameter.name, arity: parameter.style == .flag ? .flag : .value, valueName: parameter.valueName, help: parameter.help)
        }
    }

    /// Reads all of standard input, refusing more than the given number of bytes: the caller owns the stream.
    public typealias StandardInputReader = @Sendable (_ maxBytes: Int) throws(AggregateError) -> Data

    /// The most a parameter given as `-` reads from standard input (1 MiB): such values are texts a person wrote,
    /// such as a message, and an endless stream (`</dev/zero`) must end in an error, not in memory exhaustion.
    public static let standardInputMaxBytes = 1 << 20

    /// A reader for callers without standard input: `-` is then an error.
    public static let noStandardInput: StandardInputReader = { _ throws(AggregateError) in
        throw AggregateError(.noInput, "standard input is not available here")
    }

    /// The typed, checked parameter values: positionals in order, named options, `-` read from standard input where
    /// a parameter allows it, defaults, and an error for a missing required one or a word left over.
    ///
    /// The last positional parameter, when it is free text (``Parameter/isFreeText``), takes all the words left,
    /// joined with single spaces: `tmdb search the amazing spider-man` searches for "the amazing spider-man".
    /// - Parameter fallback: a value from elsewhere (e.g. a config file) for an option the command line leaves unset.
    public func values(
        from parsed: ParsedArguments, standardInput: StandardInputReader = ProviderArguments.noStandardInput,
        fallback: (Parameter) -> String? = { _ in nil }
    ) throws(AggregateError) -> JSONObject {
        let descriptor = provider.descriptor
        var values = JSONObject()
        var positionals = parsed.positionals[...]
        let lastPositional = parameters.last { $0.style == .positional }?.name
        for parameter in parameters {
            var text: String?
            switch parameter.style {
            case .positional where parameter.isFreeText && parameter.name == lastPositional && positionals.count > 1:
                text = positionals.joined(separator: " ")
                positionals = []
            case .positional: text = positionals.popFirst()
            case .option: text = parsed.value(parameter.name) ?? fallback(parameter)
            case .flag: text = parsed.has(parameter.name) ? "true" : nil
            }
            if parameter.readsStandardInputOnDash, text == "-" {
                let bytes: Data
                do {
                    bytes = try standardInput(Self.standardInputMaxBytes)
                } catch {
                    throw AggregateError(error.kind, "--\(parameter.name) -: \(error.message)", provider: descriptor.name)
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
