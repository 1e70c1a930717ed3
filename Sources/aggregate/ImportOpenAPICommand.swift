import AggregateCore
import AggregateImport
import AggregateJSON
import AggregateScaffold
import Foundation

/// `aggregate import openapi <file|-> [--name NAME] [--operations ID,...] [--out DIR] [--format text|json]`: an
/// OpenAPI or Swagger document (JSON or YAML) made into a definition folder that `aggregate check` passes.
enum ImportOpenAPICommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("name", valueName: "NAME", help: "The provider's name (default: from the document's info.title)."),
        OptionSpec("operations", valueName: "ID,...", help: "Only these GET operations, by operationId or imported name (default: every GET that returns a list)."),
        OptionSpec("out", valueName: "DIR", help: "The folder to write; it must not exist or be empty (default: ./<name>)."),
        OptionSpec("max-size", valueName: "BYTES", help: "The largest document read (default 64M)."),
        OptionSpec("format", valueName: "FORMAT", help: "text (default) or json: the summary and the report as one JSON object."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "openapi", summary: "Make a definition folder from an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML).",
        usage: "aggregate import openapi <file|-> [--name <NAME>] [--operations <ID,...>] [--out <DIR>] [--format text|json]",
        arguments: [("<file|->", "The document; - reads it from standard input. JSON when it starts with '{', else YAML.")],
        options: options,
        discussion: """
            Imports each GET operation whose 2xx JSON response holds a list of objects: path parameters become positional arguments, query parameters options (types, enums, bounds, defaults), the paging is guessed from the parameters and the response (page, offset, cursor, Link), the item mapping from field names and formats, and a sample page is taken from the response's example or made from its schema. Everything else is a 'skipped' line in import-report.txt, with its JSON pointer.

            Operation names: x-cli-name, else the operationId in kebab case without a leading 'get' (getAnimeSearch is anime-search), else the path's words; repeats get -2, -3 in document order.

            Exit codes: 0 written; 64 usage error (an unknown --operations id, a folder that is not empty); 65 a malformed document or nothing importable; 66 no such file; 74 the folder cannot be written.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let input = parsed.positionals.first else { throw AggregateError(.usage, "import openapi: name the document: a file, or - for standard input") }
            if let extra = parsed.positionals.dropFirst().first { throw AggregateError(.usage, "import openapi: unexpected argument '\(extra)': it reads one document") }
            let format = parsed.value("format") ?? "text"
            guard format == "text" || format == "json" else { throw AggregateError(.usage, "import openapi: --format must be text or json, not '\(format)'") }
            let maxBytes = try SizeCap.maxBytes(parsed.value("max-size"), default: JSONInput.defaultMaxBytes)
            let data = input == "-" ? try context.readStandardInput(maxBytes) : try JSONInput.readFile(atPath: input, maxBytes: maxBytes)
            let file = input == "-" ? "stdin" : input
            let document = try OpenAPIDocument.parse(data, name: file)
            let operations = parsed.value("operations").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            let (imported, summary) = try OpenAPIImporter.run(document, file: file, options: .init(name: parsed.value("name"), operations: operations))
            if context.registry.names.contains(imported.name.name) {
                // Re-importing a built-in provider's document into Providers/<Name> is how it is updated, so this is
                // a warning: only --provider-file refuses a definition that takes a built-in name.
                context.console.err("warning: '\(imported.name.name)' is a built-in provider's name: the folder can replace its Providers/ folder, but --provider-file refuses it; pass --name to use it beside the built-in\n")
            }
            let folder = URL(fileURLWithPath: parsed.value("out") ?? imported.name.name)
            try checkEmpty(folder)
            let plan = imported.folderPlan(at: folder)
            try plan.write()
            context.console.out(format == "json" ? json(imported, summary, plan: plan) : text(imported, summary, plan: plan, file: file))
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }

    /// The output folder may be new or empty, so that nothing of an earlier import is mixed in.
    static func checkEmpty(_ folder: URL) throws(AggregateError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else { throw AggregateError(.usage, "import openapi: \(folder.path) is a file; --out needs a new or empty folder") }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if !contents.isEmpty { throw AggregateError(.usage, "import openapi: \(folder.path) is not empty; choose another --out or empty it") }
    }

    static func text(_ imported: ImportedDefinition, _ operations: [OpenAPIImporter.Imported], plan: ScaffoldPlan, file: String) -> String {
        let report = imported.report
        var lines = ["Imported \(imported.name.name) from \(file): \(operations.count) operation\(operations.count == 1 ? "" : "s"), \(report.count(.skipped)) skipped, \(report.count(.guessed)) guesses to check."]
        for operation in operations { lines.append("  \(operation.name)  (paging: \(operation.paging))") }
        lines += ["", "Wrote \(plan.root.path):"] + plan.created.map { "  \($0.path)" }.prefix(6)
        if plan.created.count > 6 { lines.append("  ... and \(plan.created.count - 6) more") }
        lines += ["Report: \(plan.root.appendingPathComponent(ImportedDefinition.reportFileName).path)", "", "Next steps:"] + plan.nextSteps.map { "  \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ imported: ImportedDefinition, _ operations: [OpenAPIImporter.Imported], plan: ScaffoldPlan) -> String {
        var object = imported.report.json.object ?? JSONObject()
        object["provider"] = .string(imported.name.name)
        object["folder"] = .string(plan.root.path)
        object["operations"] = .array(operations.map { .object(["name": .string($0.name), "paging": .string($0.paging)]) })
        return JSONWriter(pretty: true).string(.object(object)) + "\n"
    }
}
