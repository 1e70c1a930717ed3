import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSQL
import AggregateText
import Foundation

/// `aggregate providers` and `aggregate describe <provider>`: what the descriptors say.
enum InfoCommands {
    static let providersCommand = HelpText.Command(
        name: "providers", summary: "List the providers and what each one queries.",
        usage: "aggregate providers [--format text|json]",
        options: [formatOption, helpOption])

    static let describeCommand = HelpText.Command(
        name: "describe", summary: "Show a provider's operations, parameters, environment variables and examples.",
        usage: "aggregate describe <provider> [--format text|json] [--no-pager]",
        arguments: [("<provider>", "The provider's name, as listed by 'aggregate providers'.")],
        options: [formatOption, Pager.spec, helpOption])

    static let formatOption = OptionSpec("format", valueName: "FORMAT", help: "text (default) or json.")
    static let helpOption = OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")

    static func providers(_ arguments: [String], context: Context) -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try providersCommand.parse(arguments, context: context) else { return .success }
            if let extra = parsed.positionals.first { throw AggregateError(.usage, "unexpected argument '\(extra)'") }
            if try wantsJSON(parsed) {
                context.console.out(JSONWriter(pretty: true).string(providersJSON(registry: context.registry)) + "\n")
                return .success
            }
            let column = (context.registry.names.map(\.count).max() ?? 8) + 4
            for provider in context.registry.providers {
                let descriptor = provider.descriptor
                let origin = context.registry.origin(of: descriptor.name)
                context.console.out(HelpText.row(descriptor.name, "[\(origin)] \(descriptor.summary)", column, context.terminal.width))
            }
            for broken in context.registry.broken {
                context.console.out(HelpText.row(broken.name, "[\(broken.origin)] BROKEN: \(broken.error.message)", column, context.terminal.width))
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: providersCommand.usage)
        }
    }

    /// What `aggregate providers --format json` prints (and `serve` answers at `/v1/providers`).
    static func providersJSON(registry: ProviderRegistry) -> JSONValue {
        JSONValue.array(registry.providers.map { provider in
            var entry = descriptorJSON(provider.descriptor, sqlTables: sqlTableNames(of: provider.descriptor.name, registry: registry))
            if case .object(var object) = entry {
                object.set("origin", .string(registry.origin(of: provider.descriptor.name).description))
                entry = .object(object)
            }
            return entry
        } + registry.broken.map { broken in
            ["name": .string(broken.name), "origin": .string(broken.origin.description), "broken": .string(broken.error.message)]
        })
    }

    static func describe(_ arguments: [String], context: Context) async -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try describeCommand.parse(arguments, context: context) else { return .success }
            guard let name = parsed.positionals.first else {
                throw AggregateError(.usage, "missing <provider>. Valid providers: \(context.registry.names.joined(separator: ", ")).")
            }
            if parsed.positionals.count > 1 { throw AggregateError(.usage, "unexpected argument '\(parsed.positionals[1])'") }
            let descriptor = try context.registry.require(name).descriptor
            let tables = sqlTableNames(of: descriptor.name, registry: context.registry)
            if try wantsJSON(parsed) {
                context.console.out(JSONWriter(pretty: true).string(descriptorJSON(descriptor, sqlTables: tables)) + "\n")
            } else {
                await Pager.paging(!parsed.has(Pager.spec.name), context: context) { context in
                    context.console.out(describeText(descriptor, sqlTables: tables, width: context.terminal.width))
                }
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: describeCommand.usage)
        }
    }

    private static func wantsJSON(_ parsed: ParsedArguments) throws(AggregateError) -> Bool {
        switch parsed.value("format")?.lowercased() {
        case nil, "text": return false
        case "json": return true
        case let other?: throw AggregateError(.usage, "--format must be text or json, not '\(other)'")
        }
    }

    /// The `aggregate sql` tables of the provider called `name`: one per operation that reads.
    static func sqlTableNames(of name: String, registry: ProviderRegistry) -> [String] {
        SQLCatalog(registry: registry).tables(of: name).map(\.name)
    }

    /// Every `aggregate sql` table of `registry`'s providers (for completing `sql --describe TABLE`).
    static func sqlTableNames(registry: ProviderRegistry) -> [String] {
        SQLCatalog(registry: registry).tables.map(\.name)
    }

    /// - Parameter sqlTables: the provider's `aggregate sql` tables (``sqlTableNames(of:registry:)``).
    static func describeText(_ descriptor: ProviderDescriptor, sqlTables: [String], width: Int) -> String {
        var text = "\(descriptor.name) — \(descriptor.summary)\n\n"
        let column = 24
        text += HelpText.row("Docs", descriptor.docsURL, column, width)
        let base = descriptor.defaultBaseURL ?? "(none: set \(descriptor.baseURLVariables.first ?? descriptor.baseURLVariable))"
        text += HelpText.row("Base URL", "\(base); override with --base-url or \(descriptor.baseURLVariable)", column, width)
        text += HelpText.row("Auth", descriptor.authStyle, column, width)
        text += HelpText.row("Pagination", descriptor.paginationStyle, column, width)
        text += HelpText.row("Cache", "GET answers stay fresh for \(descriptor.cacheFreshness.summary) (or the API's shorter max-age)", column, width)
        if let budgets = DescribeRateBudgets.text(descriptor.rateBudgets) { text += HelpText.row("Rate limit", budgets, column, width) }
        text += HelpText.row("SQL tables", sqlTables.isEmpty ? "none (every operation writes)" : sqlTables.joined(separator: ", "), column, width)
        if !descriptor.auth.isEmpty {
            text += "\nENVIRONMENT:\n"
            for variable in descriptor.auth { text += HelpText.row("  " + variable.name, variable.usage, column, width) }
        }
        text += "\nOPERATIONS:\n"
        for operation in descriptor.operations {
            let isDefault = operation.name == descriptor.defaultOperation.name
            text += "\n  \(operation.name)\(isDefault ? " (default)" : "") — \(operation.summary) Returns \(operation.itemKind) items.\n"
            text += "    usage: \(HelpText.usageLine(descriptor, operation: operation))\n"
            for parameter in operation.parameters {
                text += HelpText.row("    " + HelpText.parameterSynopsis(parameter), HelpText.parameterHelp(parameter), 32, width)
            }
        }
        if !descriptor.options.isEmpty {
            text += "\nPROVIDER OPTIONS (any operation):\n"
            for parameter in descriptor.options {
                text += HelpText.row("  " + HelpText.parameterSynopsis(parameter), HelpText.parameterHelp(parameter), 32, width)
            }
        }
        text += "\nEXAMPLES (run offline as shown; drop --offline to query the live API):\n"
        for example in descriptor.examples {
            text += "\n  \(example.commandLine) --offline\n"
            text += TextLayout.wrap(example.summary, width: width, indent: "      ").joined(separator: "\n") + "\n"
        }
        return text
    }

    /// - Parameter sqlTables: the provider's `aggregate sql` tables, as `sqlTables`.
    static func descriptorJSON(_ descriptor: ProviderDescriptor, sqlTables: [String]) -> JSONValue {
        func parameterJSON(_ parameter: Parameter) -> JSONValue {
            let style: String
            switch parameter.style {
            case .positional: style = "positional"
            case .option: style = "option"
            case .flag: style = "flag"
            }
            let type: String
            var choices: JSONValue = .null
            switch parameter.type {
            case .string: type = "string"
            case .integer: type = "integer"
            case .number: type = "number"
            case .boolean: type = "boolean"
            case .choice(let values):
                type = "choice"
                choices = .array(values.map(JSONValue.string))
            case .choiceList(let values):
                type = "choiceList"
                choices = .array(values.map(JSONValue.string))
            }
            return [
                "name": .string(parameter.name), "style": .string(style), "type": .string(type), "choices": choices,
                "required": .bool(parameter.isRequired), "default": .optional(parameter.defaultValue), "help": .string(parameter.help),
            ]
        }
        return [
            "name": .string(descriptor.name),
            "displayName": .string(descriptor.displayName),
            "summary": .string(descriptor.summary),
            "docsUrl": .string(descriptor.docsURL),
            "defaultBaseUrl": .optional(descriptor.defaultBaseURL),
            "baseUrlVariables": .array(([descriptor.baseURLVariable] + descriptor.baseURLVariables).map(JSONValue.string)),
            "auth": .array(descriptor.auth.map { ["name": .string($0.name), "usage": .string($0.usage)] }),
            "authStyle": .string(descriptor.authStyle),
            "paginationStyle": .string(descriptor.paginationStyle),
            "cacheFreshness": descriptor.cacheFreshness.jsonValue,
            "rateBudgets": DescribeRateBudgets.json(descriptor.rateBudgets),
            "options": .array(descriptor.options.map(parameterJSON)),
            "operations": .array(descriptor.operations.map { operation in
                [
                    "name": .string(operation.name), "summary": .string(operation.summary), "itemKind": .string(operation.itemKind),
                    "writes": .bool(operation.writes), "parameters": .array(operation.parameters.map(parameterJSON)),
                ]
            }),
            "sqlTables": .array(sqlTables.map(JSONValue.string)),
            "examples": .array(descriptor.examples.map { example in
                ["arguments": .array(example.arguments.map(JSONValue.string)), "summary": .string(example.summary)]
            }),
        ]
    }
}
