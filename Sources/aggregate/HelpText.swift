import AggregateCore
import AggregateText
import Foundation

/// Help text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
enum HelpText {
    /// A built-in command's name, one-line summary, usage and options.
    struct Command: Sendable {
        var name: String
        var summary: String
        var usage: String
        var arguments: [(String, String)] = []
        var options: [OptionSpec] = []
        var discussion: String? = nil
    }

    /// `--provider-file FILE`, read before any command (main.swift), so the help and the completions tell it alike.
    static let providerFileHelp = "Add the provider defined in FILE, a JSON definition (repeatable; see docs/provider-definitions.md)."

    static func main(registry: ProviderRegistry, commands: [Command], width: Int) -> String {
        var text = """
            OVERVIEW: Query public JSON web APIs through one interface and get clean, normalized results.

            USAGE: aggregate <provider> [<operation>] [<arguments>] [<options>]
                   aggregate <command> [<arguments>]

            PROVIDERS:

            """
        let nameWidth = max(14, (registry.names + commands.map(\.name)).map(\.count).max() ?? 0) + 2
        for provider in registry.providers {
            text += row("  " + provider.descriptor.name, provider.descriptor.summary, nameWidth + 2, width)
        }
        text += "\nSUBCOMMANDS:\n"
        for command in commands {
            text += row("  " + command.name, command.summary, nameWidth + 2, width)
        }
        text += "\nOPTIONS:\n"
        text += row("  --version", "Show the version.", nameWidth + 2, width)
        text += row("  -h, --help", "Show help information.", nameWidth + 2, width)
        text += row("  --provider-file FILE", providerFileHelp, nameWidth + 2, width)
        text += """

            OPTIONS FOR PROVIDER COMMANDS:

            """
        text += options(CommonOptions.specs, width: width)
        text += """

            EXIT CODES:
              0 success · 1 failure · 3 partial results · 64 usage error · 65 invalid input data · 78 configuration error

              See 'aggregate help <provider>' or 'aggregate describe <provider>' for a provider's operations.

            """
        return text
    }

    static func command(_ command: Command, width: Int) -> String {
        var text = "OVERVIEW: \(command.summary)\n"
        if let discussion = command.discussion {
            text += "\n" + TextLayout.wrap(discussion, width: width).joined(separator: "\n") + "\n"
        }
        text += "\nUSAGE: \(command.usage)\n"
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            let column = (command.arguments.map(\.0.count).max() ?? 0) + 4
            for (name, help) in command.arguments { text += row("  " + name, help, column, width) }
        }
        if !command.options.isEmpty {
            text += "\nOPTIONS:\n" + options(command.options, width: width)
        }
        return text
    }

    /// `aggregate meetup [groups] --lat <DEGREES> --lon <DEGREES> [--radius <MILES>] ...` for the default operation.
    static func usageLine(_ descriptor: ProviderDescriptor, operation: ProviderOperation? = nil) -> String {
        let operation = operation ?? descriptor.defaultOperation
        let isDefault = operation.name == descriptor.defaultOperation.name
        var parts = ["aggregate", descriptor.name, isDefault ? "[\(operation.name)]" : operation.name]
        let freeText = freeTextParameter(of: operation)?.name
        for parameter in operation.parameters + descriptor.options {
            // `<title>...`: a free-text last positional takes several words (ProviderArguments joins them).
            let text = parameterSynopsis(parameter) + (parameter.name == freeText ? "..." : "")
            parts.append(parameter.isRequired ? text : "[\(text)]")
        }
        parts.append("[<options>]")
        return parts.joined(separator: " ")
    }

    static func provider(_ descriptor: ProviderDescriptor, width: Int) -> String {
        var text = "OVERVIEW: \(descriptor.summary)\n\nUSAGE:\n"
        for operation in descriptor.operations {
            text += "  " + usageLine(descriptor, operation: operation) + "\n"
        }
        for operation in descriptor.operations {
            let positionals = operation.parameters.filter { $0.style == .positional }
            let named = operation.parameters.filter { $0.style != .positional }
            let isDefault = operation.name == descriptor.defaultOperation.name
            text += "\n\(operation.name.uppercased())\(isDefault ? " (default)" : ""): \(operation.summary)\n"
            if !positionals.isEmpty {
                text += "ARGUMENTS:\n"
                let freeText = freeTextParameter(of: operation)?.name
                for parameter in positionals {
                    text += row("  <\(parameter.valueName.lowercased())>", parameterHelp(parameter, freeText: parameter.name == freeText), 28, width)
                }
            }
            if !named.isEmpty {
                text += "OPTIONS:\n"
                for parameter in named { text += row("  " + parameterSynopsis(parameter), parameterHelp(parameter), 28, width) }
            }
        }
        if !descriptor.options.isEmpty {
            text += "\nPROVIDER OPTIONS:\n"
            for parameter in descriptor.options { text += row("  " + parameterSynopsis(parameter), parameterHelp(parameter), 28, width) }
        }
        text += "\nCOMMON OPTIONS:\n" + options(CommonOptions.specs, width: width)
        if !descriptor.auth.isEmpty {
            text += "\nENVIRONMENT:\n"
            for variable in descriptor.auth { text += row("  " + variable.name, variable.usage, 28, width) }
            text += row("  " + descriptor.baseURLVariable, "Overrides the base URL (like --base-url).", 28, width)
        }
        if let note = typoNote(descriptor) {
            text += "\n" + TextLayout.wrap(note, width: max(48, width), indent: "  ").joined(separator: "\n") + "\n"
        }
        text += "\n  See 'aggregate describe \(descriptor.name)' for examples.\n"
        return text
    }

    /// The operation's last positional parameter when it is free text, the one that takes every word left.
    static func freeTextParameter(of operation: ProviderOperation) -> Parameter? {
        operation.parameters.last { $0.style == .positional }.flatMap { $0.isFreeText ? $0 : nil }
    }

    /// How a first word that looks like a mistyped operation is read, for providers whose default operation takes
    /// a word there (elsewhere a mistyped operation is an error anyway). ``ProviderArguments`` keeps the rule.
    static func typoNote(_ descriptor: ProviderDescriptor) -> String? {
        let fallback = descriptor.defaultOperation
        guard let positional = fallback.parameters.first(where: { $0.style == .positional }) else { return nil }
        let name = descriptor.name
        return "A first word that names no operation is the <\(positional.valueName.lowercased())> of \(fallback.name), "
            + "except one that is one or two letters off an operation's name, which is refused as a likely typo. To mean "
            + "such a word as it is, name the operation ('\(name) \(fallback.name) WORD') or put -- before it ('\(name) -- WORD')."
    }

    static func parameterSynopsis(_ parameter: Parameter) -> String {
        switch parameter.style {
        case .positional: return "<\(parameter.valueName.lowercased())>"
        case .option: return "--\(parameter.name) <\(parameter.valueName)>"
        case .flag: return "--\(parameter.name)"
        }
    }

    /// A parameter's help and what it accepts; `freeText` says that several words make its one value.
    static func parameterHelp(_ parameter: Parameter, freeText: Bool = false) -> String {
        var help = parameter.help
        if freeText { help += " Several words are joined with single spaces." }
        switch parameter.type {
        case .choice(let values): help += " (\(values.joined(separator: "|")))"
        case .choiceList(let values): help += " (comma-separated: \(values.joined(separator: ",")))"
        default: break
        }
        if parameter.isRequired { help += " (required)" }
        if let fallback = parameter.defaultValue { help += " (default: \(fallback))" }
        return help
    }

    static func options(_ specs: [OptionSpec], width: Int) -> String {
        specs.map { row("  " + $0.synopsis, $0.help, 28, width) }.joined()
    }

    /// A two-column row: the name, then the help wrapped under its column.
    static func row(_ name: String, _ help: String, _ column: Int, _ width: Int) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = TextLayout.wrap(help, width: max(column + 20, width), indent: indent)
        if name.count + 2 <= column, let first = lines.first {
            let head = name.padding(toLength: column, withPad: " ", startingAt: 0) + first.dropFirst(column)
            return ([head] + lines.dropFirst()).joined(separator: "\n") + "\n"
        }
        return ([name] + lines).joined(separator: "\n") + "\n"
    }
}
