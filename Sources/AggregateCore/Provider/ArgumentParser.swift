import AggregateText
import Foundation

/// One option a command accepts.
public struct OptionSpec: Sendable, Equatable {
    /// How many values it takes.
    public enum Arity: Sendable, Equatable {
        /// `--name` alone.
        case flag
        /// `--name VALUE` or `--name=VALUE`, once.
        case value
        /// `--name VALUE`, any number of times.
        case repeated
    }

    /// The long name, without dashes.
    public var name: String
    /// A one-letter name, e.g. `h`.
    public var short: Character?
    /// How many values it takes.
    public var arity: Arity
    /// The value's placeholder in usage text.
    public var valueName: String
    /// One line of help.
    public var help: String

    /// Creates an option.

    public init(_ name: String, short: Character? = nil, arity: Arity = .value, valueName: String? = nil, help: String) {
        self.name = name
        self.short = short
        self.arity = arity
        self.valueName = valueName ?? name.upperSnakeCased
        self.help = help
    }

    /// `--name <VALUE>` or `--name` as usage text shows it.
    public var synopsis: String {
        let long = "--\(name)"
        let names = short.map { "-\($0), \(long)" } ?? long
        return arity == .flag ? names : "\(names) <\(valueName)>"
    }
}

/// What the command line said, before types are checked.
public struct ParsedArguments: Sendable, Equatable {
    /// The values of options that take them, by name, in order.
    public var values: [String: [String]] = [:]
    /// The flags given.
    public var flags: Set<String> = []
    /// The arguments that are not options, in order.
    public var positionals: [String] = []

    /// Creates empty arguments.
    public init() {}

    /// The last value of the option `name`.
    public func value(_ name: String) -> String? { values[name]?.last }
    /// Whether the option or flag `name` was given.
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
}

/// Splits arguments into options and positionals against a list of accepted options.
///
/// Accepts `--name value`, `--name=value`, `-x value`, flags, and `--` to end options. A value that starts
/// with `-` is allowed when it is a number (`--lon -0.1337`).
public struct ArgumentParser: Sendable {
    /// The options accepted.
    public var options: [OptionSpec]

    /// Creates a parser for `options`.
    public init(options: [OptionSpec]) { self.options = options }

    /// Splits `arguments`.
    /// - Throws: a `usage` error for an unknown option, a missing value or a repeated one.
    public func parse(_ arguments: [String]) throws(AggregateError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") || Self.isNumber(argument) {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1, let spec = options.first(where: { $0.short == letters[0] }) else {
                    // `-verbose` is a long option with one dash too few more often than a cluster of short ones.
                    let suggestion = letters.count > 1 ? DidYouMean.suffix(for: String(letters), among: options.map(\.name), prefix: "--") : ""
                    throw AggregateError(.usage, "unknown option '\(argument)'\(suggestion)")
                }
                name = spec.name
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let suggestion = DidYouMean.suffix(for: name, among: options.map(\.name), prefix: "--")
                throw AggregateError(.usage, "unknown option '--\(name)'\(suggestion)")
            }
            switch spec.arity {
            case .flag:
                guard inlineValue == nil else { throw AggregateError(.usage, "option '--\(name)' takes no value") }
                parsed.flags.insert(name)
            case .value, .repeated:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw AggregateError(.usage, "missing value for '--\(name) <\(spec.valueName)>'")
                    }
                    value = arguments[index]
                    index += 1
                }
                if spec.arity == .value, parsed.values[name] != nil {
                    throw AggregateError(.usage, "option '--\(name)' given more than once")
                }
                parsed.values[name, default: []].append(value)
            }
        }
        return parsed
    }

    /// Whether `text` is a number (so `-0.13` is a value, not an option).
    public static func isNumber(_ text: String) -> Bool {
        text.count > 1 && Double(text) != nil
    }
}
