import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateRendering
import AggregateSQL
import AggregateText
import Foundation

/// `aggregate sql "<statement>"`: one SQL statement over the provider tables (`AggregateSQL`), or their list,
/// one table's columns, or the statement's plan.
enum SQLCommand: CLICommand {
    /// The common options that make sense for a statement: no `--fields`, `--sort`, `--raw` or `--base-url`, which
    /// belong to one provider's result.
    static let commonNames = Set<String>([
        "limit", "format", "offline", "timeout", "allow-http", "verbose", "quiet", "profile", "color", "no-pager",
        "no-rate-limit", "record", "replay", "store", "to", "help",
    ]).union(CacheChoice.names)

    static let options: [OptionSpec] = [
        OptionSpec("plan", arity: .flag, help: "Print what the statement reads and the most requests it sends, and send none."),
        OptionSpec("max-requests", valueName: "N", help: "Stop a statement that needs more than N requests (default: 100)."),
        OptionSpec("partial", arity: .flag, help: "A table that fails gives no rows and a failure in meta (exit 3) instead of failing the statement."),
        OptionSpec("db", valueName: "FILE", help: "Attach the SQLite FILE (e.g. made with --to) as schema 'db' beside the provider tables."),
        OptionSpec("tables", arity: .flag, help: "List the tables: one per provider operation."),
        OptionSpec("describe", valueName: "TABLE", help: "List a table's columns and key columns, with an example."),
    ] + CommonOptions.specs.filter { commonNames.contains($0.name) && $0.name != "help" }.map(adapted)
        + [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")]

    /// A common option's help, worded for tables.
    private static func adapted(_ spec: OptionSpec) -> OptionSpec {
        var spec = spec
        switch spec.name {
        case "limit": spec.help = "The most items a table reads per key values when the statement pushes no LIMIT down (default: 20)."
        case "to": spec.help = "Keep the items every table read in the SQLite FILE: a table per provider operation, upserted by provider and id (docs/sql-store.md)."
        default: break
        }
        return spec
    }

    static let command = HelpText.Command(
        name: "sql", summary: "Run one SQL statement over every provider's operations as tables (SQLite).",
        usage: "aggregate sql \"<statement>\" [--plan] [--max-requests N] [--partial] [--db FILE] [<options>] | --tables | --describe TABLE",
        arguments: [("<statement>", "One SQLite statement; '-' reads it from standard input.")],
        options: options,
        discussion: """
            Each operation that reads is a table named <provider>_<operation> (tmdb_search, github_search, ...). \
            An = or IN condition on a key column, or a table-valued-function argument (tmdb_search('batman')), \
            becomes the API parameter; LIMIT is pushed down when the table is read alone; SQLite applies every other \
            condition. The same table and key values are fetched once per statement. Exit codes: 0 success, 1 a \
            provider failed, 3 some tables failed with --partial, 64 a statement SQLite refuses, a required key \
            column left unconstrained or a statement over --max-requests. See docs/sql.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            var common = try CommonOptions(parsed)
            let catalog = SQLCatalog(registry: context.registry)
            if parsed.has("tables") {
                try refuseStatement(parsed, with: "--tables")
                console.out(common.format == .json ? JSONWriter(pretty: true).string(tablesJSON(catalog)) + "\n" : tablesText(catalog, width: context.terminal.width))
                return .success
            }
            if let name = parsed.value("describe") {
                try refuseStatement(parsed, with: "--describe")
                guard let table = catalog.table(named: name) else {
                    throw AggregateError(.usage, "no table '\(name)'\(DidYouMean.suffix(for: name, among: catalog.tables.map(\.name), otherwise: "")); see 'aggregate sql --tables'")
                }
                console.out(common.format == .json ? JSONWriter(pretty: true).string(describeJSON(table)) + "\n" : describeText(table))
                return .success
            }
            let statement = try statementText(parsed, context: context)
            let options = try engineOptions(parsed, common: common)
            let engine = SQLEngine(catalog: catalog)
            let environments = try providerEnvironments(common, context: context)
            common.limit = options.defaultLimit
            if parsed.has("plan") {
                let plan = try engine.plan(statement, options: options)
                let budgets: (ProviderDescriptor) -> String = { descriptor in
                    SQLPlan.budgetText(
                        descriptor, environment: environments[descriptor.name] ?? context.environment, offline: common.offline,
                        limited: !common.tools.noRateLimit && common.tools.replay == nil)
                }
                console.out(common.format == .json
                    ? JSONWriter(pretty: true).string(plan.json(maxRequests: options.maxRequests, budgets: budgets)) + "\n"
                    : plan.text(maxRequests: options.maxRequests, budgets: budgets))
                return .success
            }
            let tools = try RunTools(common.tools, offline: common.offline, environment: context.environment)
            let printer = EventPrinter(console: console, verbose: common.verbose, quiet: common.quiet)
            if common.offline, !common.quiet {
                console.err("note: sql: offline: the tables answer from the sandbox's bundled sample data, not live results\n")
            }
            let result = try await execute(
                statement, engine: engine, options: options, common: common, environments: environments, context: context, tools: tools,
                events: printer.handle)
            await Pager.paging(common.mayPage, context: context) { context in
                render(result, format: common.format, context: context)
            }
            for failure in result.failures {
                if let error = failure.result.error { console.err("warning: \(failure.table): \(error.description)\n") }
            }
            if let path = common.to { try await keep(result, catalog: catalog, path: path, quiet: common.quiet, console: console) }
            return result.failures.isEmpty ? .success : .partial
        } catch {
            return Diagnostics.report(error.provider == nil ? error.attributed(to: "sql") : error, console: console, usage: command.usage)
        }
    }

    /// Credentials from the config file, per provider, as each provider command would have them.
    static func providerEnvironments(_ common: CommonOptions, context: Context) throws(AggregateError) -> [String: [String: String]] {
        let settings = try SettingsSources(context: context)
        var environments: [String: [String: String]] = [:]
        for provider in context.registry.providers {
            var scoped = common
            scoped.applySettings(
                layers: try settings.layers(for: provider.descriptor.name, profile: common.profile), environment: settings.environment,
                descriptor: provider.descriptor)
            environments[provider.descriptor.name] = scoped.providerEnvironment(context.environment)
        }
        return environments
    }

    /// Runs one statement as `aggregate sql` does (and `GET /v1/sql` of `aggregate serve`).
    static func execute(
        _ statement: String, engine: SQLEngine, options: SQLEngine.Options, common: CommonOptions, environments: [String: [String: String]],
        context: Context, tools: RunTools, events: @escaping @Sendable (FetchEvent) -> Void
    ) async throws(AggregateError) -> SQLResult {
        let runner = InvocationRunner(context: context, events: events, tools: tools).runner
        var runSettings = common.runSettings
        runSettings.cache = common.cache.settings(root: context.cacheDirectory)
        return try await engine.run(statement, options: options, runner: runner, settings: runSettings) { environments[$0] }
    }

    /// `--to FILE`: the items of every successful fetch, each in its provider operation's table, in one transaction.
    private static func keep(_ result: SQLResult, catalog: SQLCatalog, path: String, quiet: Bool, console: Console) async throws(AggregateError) {
        let batches = result.scans.compactMap { scan -> SQLItemStore.Batch? in
            guard scan.result.error == nil, let table = catalog.table(named: scan.table) else { return nil }
            return SQLItemStore.Batch(table: table, items: scan.result.items)
        }
        guard !batches.isEmpty else { return }
        // SQLite's writes block (and may wait for a lock): not on the cooperative pool.
        let written = try await BlockingWork.run { () throws(AggregateError) -> [SQLItemStore.Written] in
            try SQLItemStore(path: path).write(batches)
        }
        if !quiet {
            let tables = written.map { "\($0.table) \($0.rows == 1 ? "1 row" : "\($0.rows) rows")" }.joined(separator: ", ")
            console.err("note: sql: wrote to \(path): \(tables)\n")
        }
    }

    /// `--tables` and `--describe` take no statement.
    private static func refuseStatement(_ parsed: ParsedArguments, with option: String) throws(AggregateError) {
        if let extra = parsed.positionals.first { throw AggregateError(.usage, "\(option) takes no statement, but '\(extra.prefix(40))' was given") }
    }

    /// The statement: the one argument, or standard input for `-`.
    private static func statementText(_ parsed: ParsedArguments, context: Context) throws(AggregateError) -> String {
        guard let first = parsed.positionals.first else {
            throw AggregateError(.usage, "missing the SQL statement, e.g. aggregate sql \"SELECT title FROM tmdb_popular LIMIT 5\" (see --tables)")
        }
        if parsed.positionals.count > 1 {
            throw AggregateError(.usage, "give the statement as one argument, quoted: unexpected '\(parsed.positionals[1].prefix(40))'")
        }
        guard first == "-" else { return first }
        let bytes = try context.readStandardInput(ProviderArguments.standardInputMaxBytes)
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw AggregateError(.invalidInput, "the statement on standard input is not UTF-8 text")
        }
        return text
    }

    /// The engine's options from the command line.
    private static func engineOptions(_ parsed: ParsedArguments, common: CommonOptions) throws(AggregateError) -> SQLEngine.Options {
        var options = SQLEngine.Options(defaultLimit: common.limit, partial: parsed.has("partial"), database: parsed.value("db"))
        if let text = parsed.value("max-requests") {
            guard let value = Int(text), (1...100_000).contains(value) else {
                throw AggregateError(.usage, "--max-requests must be a whole number from 1 to 100000, not '\(text)'")
            }
            options.maxRequests = value
        }
        if options.database?.isEmpty == true { throw AggregateError(.usage, "--db needs a file") }
        return options
    }

    /// Writes the rows in the chosen format.
    static func render(_ result: SQLResult, format: OutputFormat, context: Context) {
        let console = context.console
        let table = { ItemTable(columns: result.columns, rows: result.rows.map { $0.map(\.plainText) }) }
        switch format {
        case .json: console.out(JSONWriter(pretty: true).string(result.jsonValue) + "\n")
        case .ndjson: console.out(result.rowObjects.map { JSONWriter().string($0) + "\n" }.joined())
        case .csv: console.out(table().csv)
        case .markdown: console.out(table().markdown)
        case .text: console.out(result.rows.isEmpty ? "(no rows)\n" : table().text(width: context.terminal.width))
        }
    }

    static func tablesText(_ catalog: SQLCatalog, width: Int) -> String {
        let rows = catalog.tables.map { table in
            [table.name, table.keyColumns.filter(\.isRequired).map(\.name).joined(separator: ", "), table.operation.summary]
        }
        return ItemTable(columns: ["table", "required keys", "summary"], rows: rows).text(width: width)
    }

    static func tablesJSON(_ catalog: SQLCatalog) -> JSONValue {
        .array(catalog.tables.map(describeJSON))
    }

    static func describeJSON(_ table: SQLTable) -> JSONValue {
        [
            "table": .string(table.name), "provider": .string(table.providerName), "operation": .string(table.operation.name),
            "summary": .string(table.operation.summary),
            "columns": .array(table.columns.map { ["name": .string($0.name), "type": .string($0.type.rawValue.lowercased())] }),
            "keyColumns": .array(table.keyColumns.map { key in
                [
                    "name": .string(key.name), "parameter": .string(key.parameter.name), "required": .bool(key.isRequired),
                    "type": .string(key.typeDescription), "default": .optional(key.parameter.defaultValue), "help": .string(key.parameter.help),
                ]
            }),
            "example": .string(table.example),
        ]
    }

    static func describeText(_ table: SQLTable) -> String {
        var lines = ["\(table.name) — \(table.operation.summary) (aggregate \(table.providerName) \(table.operation.name))", "", "COLUMNS:"]
        lines += table.columns.map { "  \(TextLayout.pad($0.name, to: 16)) \($0.type.rawValue.lowercased())" }
        lines += ["", "KEY COLUMNS (hidden; = or IN becomes the API parameter; required ones may be given as arguments, in this order):"]
        if table.keyColumns.isEmpty { lines.append("  none") }
        for key in table.keyColumns {
            let requirement = key.isRequired ? "required" : key.parameter.defaultValue.map { "optional, default \($0)" } ?? "optional"
            lines.append("  \(TextLayout.pad(key.name, to: 16)) \(key.typeDescription); \(requirement). \(key.parameter.help)")
        }
        lines += ["", "EXAMPLE:", "  aggregate sql \(shellQuoted(table.example)) --offline"]
        return lines.joined(separator: "\n") + "\n"
    }
}
