import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateRendering
import AggregateSandbox
import AggregateSandboxKit
import Foundation

/// `aggregate check <definition.json> [--live [--base-url URL]]`: the definition author's tool. It checks the file
/// against the schema and the reader, runs every sample through the mapping and counts, field by field, how many
/// records gave a value, then runs the examples offline (or, with `--live`, against the API or a server of the
/// author's), and fails on anything a user would see as broken.
enum CheckCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("live", arity: .flag, help: "Run the examples against the API (or --base-url) instead of the emulator, and check the mapping on the live responses too."),
        OptionSpec("base-url", valueName: "URL", help: "With --live: the server to send the examples to (default: the definition's baseURL)."),
        OptionSpec("verbose", short: "v", arity: .flag, help: "Show every request the examples send."),
    ] + CommonOptions.specs.filter { ["format", "help"].contains($0.name) }

    static let command = HelpText.Command(
        name: "check", summary: "Check a provider definition: schema, mapping of every sample, and its examples.",
        usage: "aggregate check <definition.json> [--live [--base-url <URL>]] [--format text|json]",
        arguments: [("<definition.json>", "The definition file (its samples are read beside it).")],
        options: options,
        discussion: """
            Validates the file against Schemas/provider-definition.schema.json (every violation, each with its JSON pointer), reads it as aggregate would, runs every sample of every operation through the operation's records path and item mapping, and prints per field how many records gave a value, with the reason for the first that gave none ("title: 0 of 13 records gave a value, no key "name" in the top level; keys there: title, author_name, ..."). Then it runs each example offline against the definition's emulator, or with --live against the API (or --base-url), mapping the live responses too.

            Problems (a required field, id or title, empty in every record; a records path that leads nowhere; a number read as epoch seconds that looks like a year or like milliseconds; an example that fails or gives no items; a schema violation) are printed on stderr one line each, as "problem: FILE: POINTER: what"; warnings (an optional field that no record fills, an operation without samples) as "warning: ...".

            Exit codes: 0 no problems (warnings allowed); 1 problems were found (a file that is not JSON is one); 64 usage error; 66 the file does not exist or cannot be opened; 74 reading it failed.

            Example: aggregate check ~/.config/aggregate/providers/openlibrary.json
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let path = parsed.positionals.first else {
                throw AggregateError(.usage, "missing <definition.json>: the definition file to check")
            }
            if let extra = parsed.positionals.dropFirst().first { throw AggregateError(.usage, "unexpected argument '\(extra)': check reads one definition") }
            let live = parsed.has("live")
            if parsed.value("base-url") != nil, !live { throw AggregateError(.usage, "--base-url needs --live: without it the examples run against the emulator") }
            var format = OutputFormat.text
            if let text = parsed.value("format") { format = try CommonOptions.format(from: text) }
            guard format == .text || format == .json else { throw AggregateError(.usage, "check prints text or json, not \(format.rawValue)") }

            let file = URL(fileURLWithPath: path)
            let data = try JSONInput.readFile(atPath: path, maxBytes: JSONInput.defaultMaxBytes)
            let folder = file.deletingLastPathComponent()
            var check = DefinitionCheck(data: data, file: path) { sample in try? Data(contentsOf: folder.appendingPathComponent(sample)) }
            if let definition = check.definition {
                let settings = Runs(live: live, baseURL: parsed.value("base-url"), verbose: parsed.has("verbose"))
                try await runExamples(definition, file: file, into: &check, settings: settings, context: context)
            }
            switch format {
            case .json: console.out(JSONWriter(pretty: true).string(CheckReport.json(check)) + "\n")
            default: console.out(CheckReport.text(check))
            }
            for finding in check.findings { console.err("\(finding.severity.rawValue): \(check.file): \(finding)\n") }
            let problems = check.problems.count
            guard problems == 0 else {
                console.err("Error: check: \(check.file): \(problems) problem\(problems == 1 ? "" : "s") (listed above)\n")
                return .failure
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: console, usage: error.kind == .usage ? command.usage : nil)
        }
    }

    struct Runs {
        var live: Bool
        var baseURL: String?
        var verbose: Bool
    }

    /// Runs each example of `definition` (offline, or live) and adds what it gave to `check`; live, the responses
    /// go through the mapping check too.
    static func runExamples(_ definition: ProviderDefinition, file: URL, into check: inout DefinitionCheck, settings: Runs, context: Context) async throws(AggregateError) {
        guard !definition.descriptor.examples.isEmpty else { return }
        // Only this definition: a checked copy of a built-in (Providers/GitHub/provider.json) must not clash with it.
        var checking = context
        do {
            checking.catalog = try SandboxCatalog.withDefinitions(swift: [], sandboxes: [], builtIn: [], samples: [:], files: [file])
        } catch {
            throw AggregateError(.config, "\(file.path): cannot be loaded: \(error)")
        }
        checking.cacheDirectory = nil
        if let broken = checking.registry.broken.first { throw broken.error }
        let printer = EventPrinter(console: context.console, verbose: settings.verbose, quiet: !settings.verbose)
        let runner = InvocationRunner(context: checking, events: { printer.handle($0) }, tools: RunTools())
        for (index, example) in definition.descriptor.examples.enumerated() {
            var arguments = example.arguments
            // Live, `--raw` keeps the response bodies, which the mapping check reads.
            arguments += settings.live ? ["--raw"] + (settings.baseURL.map { ["--base-url", $0] } ?? []) : ["--offline"]
            let outcome: Result<Int, AggregateError>
            do throws(AggregateError) {
                let invocation = try ProviderInvocation.parse(arguments, registry: checking.registry)
                var result = await runner.run(invocation)
                if let error = result.error { throw error }
                if settings.live {
                    for (number, body) in result.rawBodies.enumerated() {
                        check.addLive(body, operation: invocation.operation.name, label: "live response \(number + 1) of example \(index + 1)")
                    }
                    result.rawBodies = []
                }
                outcome = .success(result.items.count)
            } catch {
                outcome = .failure(error)
            }
            check.addExample(example.arguments, index: index, outcome: outcome)
        }
    }
}

/// `aggregate check`'s report, as text or JSON.
enum CheckReport {
    static func text(_ check: DefinitionCheck) -> String {
        var text = "\(check.definition.map { "\($0.name): " } ?? "")\(check.file)\n"
        let schema = check.fitsSchema ? "fits the schema" : "does not fit the schema"
        text += "  definition: \(schema); \(check.definition == nil ? "cannot be read" : "reads")\n"
        for response in check.responses {
            let records = response.records.map { "\($0) record\($0 == 1 ? "" : "s") → \(response.items) item\(response.items == 1 ? "" : "s")" } ?? "no records list"
            text += "  \(response.operation), \(response.label): \(records)\n"
            let width = (response.fields.map(\.field.count).max() ?? 0) + 1
            for field in response.fields {
                let padded = field.field + ":" + String(repeating: " ", count: max(0, width - field.field.count))
                var line = "    \(padded) \(field.filled) of \(field.records)"
                if field.filled < field.records, let why = field.whyEmpty { line += ", first missing: \(why)" }
                if field.suspicious > 0, let why = field.suspiciousWhy { line += "; \(field.suspicious) suspicious: \(why)" }
                text += line + "\n"
            }
        }
        let problems = check.problems.count, warnings = check.findings.count - problems
        text += "  \(problems) problem\(problems == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
        return text
    }

    static func json(_ check: DefinitionCheck) -> JSONValue {
        let responses: [JSONValue] = check.responses.map { response in
            let fields: [JSONValue] = response.fields.map { field in
                [
                    "field": .string(field.field), "pointer": .string(field.pointer), "filled": .int(field.filled), "records": .int(field.records),
                    "firstMissing": field.whyEmpty.map(JSONValue.string) ?? .null, "suspicious": .int(field.suspicious),
                    "suspiciousReason": field.suspiciousWhy.map(JSONValue.string) ?? .null,
                ]
            }
            return [
                "operation": .string(response.operation), "source": .string(response.label),
                "records": response.records.map(JSONValue.int) ?? .null, "items": .int(response.items), "fields": .array(fields),
            ]
        }
        let findings: [JSONValue] = check.findings.map { finding in
            ["severity": .string(finding.severity.rawValue), "pointer": .string(finding.pointer), "message": .string(finding.message)]
        }
        return [
            "file": .string(check.file), "provider": check.definition.map { .string($0.name) } ?? .null,
            "ok": .bool(check.problems.isEmpty), "fitsSchema": .bool(check.fitsSchema), "readable": .bool(check.definition != nil), "responses": .array(responses), "findings": .array(findings),
        ]
    }
}
