import AggregateCore
import AggregateHTTP
import AggregateImport
import AggregateScaffold
import Foundation

/// `aggregate import recording <DIR> [--name NAME] [--out DIR]`: a definition folder inferred from a cassette, then
/// verified by replaying the cassette through it.
enum ImportRecordingCommand: CLICommand {
    static let options: [OptionSpec] = [
        OptionSpec("name", valueName: "NAME", help: "The provider's name (default: from the recorded host, e.g. github for api.github.com, with -imported when a built-in provider has it)."),
        OptionSpec("out", valueName: "DIR", help: "The folder to write (default: ./<name>); it may exist but must not hold the files already."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "recording", summary: "Make a definition folder from a cassette recorded with --record (or aggregate get --record).",
        usage: "aggregate import recording <DIR> [--name <NAME>] [--out <DIR>]",
        arguments: [("<DIR>", "The cassette's folder, as given to --record: DIR/cassette.json is read.")],
        options: options,
        discussion: """
            Groups the exchanges into operations by path, takes the largest array of objects in the bodies as the records, \
            reads the paginator from how the requests followed each other (Link rel="next", a page number, an offset, a \
            cursor from the previous body), guesses the item fields from their names and values, makes the query \
            parameters parameters and a redacted (***) credential the auth. The recorded bodies become the samples.

            Then it replays the cassette through the new definition and compares the items with the recorded records \
            (ids and titles): 'verified: N items from M exchanges match', or what differs (exit 1, the folder is kept to \
            fix by hand). Exit codes: 0 verified; 1 not verified; 64 usage; 65 the cassette is malformed or holds \
            nothing to import; 66 no such folder or cassette; 74 the folder cannot be written. See docs/import.md.
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard let folder = parsed.positionals.first else {
                throw AggregateError(.usage, "import recording: name the cassette's folder, e.g. aggregate import recording ./batman")
            }
            if let extra = parsed.positionals.dropFirst().first { throw AggregateError(.usage, "import recording: unexpected argument '\(extra)'") }
            let name = try parsed.value("name").map { (text) throws(AggregateError) in try ScaffoldName(validating: text) }
            let directory = URL(fileURLWithPath: folder)
            let file = Cassette.file(in: directory)
            guard FileManager.default.fileExists(atPath: file.path) else {
                let what = FileManager.default.fileExists(atPath: directory.path) ? "\(folder) holds no \(Cassette.fileName)" : "there is no folder \(folder)"
                throw AggregateError(.noInput, "import recording: \(what): record one with --record \(folder)")
            }
            let cassette = try Cassette.load(from: directory)
            let imported = try RecordingImporter.infer(cassette, name: name, taken: Set(context.registry.names), source: file.path)
            let out = URL(fileURLWithPath: parsed.value("out") ?? imported.imported.name.name)
            let outcome = await RecordingVerification.verify(imported, cassette: cassette, file: file)
            let plan = imported.imported.folderPlan(at: out)
            try plan.write()
            context.console.out(NewProviderCommand.report(imported.imported.name, plan: plan))
            let report = imported.imported.report
            context.console.out("\nimport-report.txt: \(report.count(.mapped)) mapped, \(report.count(.guessed)) guessed, \(report.count(.skipped)) skipped\n")
            context.console.out(outcome.summary + "\n")
            for line in outcome.differences { context.console.err("  \(line)\n") }
            return outcome.differences.isEmpty ? .success : .failure
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }
}
