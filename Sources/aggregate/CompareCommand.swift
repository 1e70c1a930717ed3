import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateRendering
import AggregateText
import Foundation

/// `aggregate compare`: several provider invocations at once, side by side.
enum CompareCommand {
    /// Compare's own options, and the common ones it passes on to every invocation (worded for compare).
    static let options: [OptionSpec] = [
        OptionSpec("all", arity: .flag, help: "Compare the first example of every registered provider."),
        CommonOptions.spec("limit", help: "The most items per provider (default: 20, or each invocation's own --limit)."),
        OptionSpec("format", valueName: "FORMAT", help: "text (default), json, ndjson, csv, markdown, or html (a self-contained report)."),
        CommonOptions.spec("offline", help: "Answer every invocation from the bundled sandbox data."),
        CommonOptions.spec("timeout", help: "The most time one request may take (default: 15)."),
        CommonOptions.spec("verbose", help: "Trace requests, responses and retries on stderr."),
        CommonOptions.spec("quiet", help: "No progress lines or notes on stderr."),
        CommonOptions.spec("profile", help: "Use this profile of the config file for every invocation."),
        CommonOptions.spec("color", help: "Colour the text view: auto (default: on a terminal, unless NO_COLOR; FORCE_COLOR forces it), always or never."),
        CommonOptions.spec("no-pager", help: "Write a long text view directly, not through $AGGREGATE_PAGER, $PAGER or less -FRX."),
    ] + RunToolOptions.specs + CacheChoice.specs + [
        CommonOptions.spec("help", help: "Show help information."),
    ]

    /// What compare can print: any result format, or a self-contained HTML report.
    enum Output: Equatable {
        case results(OutputFormat)
        case html
    }

    /// The formats compare accepts.
    static let formats = OutputFormat.allCases.map(\.rawValue) + ["html"]

    static let command = HelpText.Command(
        name: "compare", summary: "Run several provider invocations concurrently and compare them side by side.",
        usage: "aggregate compare <invocation>... [--all] [--limit N] [--format text|json|ndjson|csv|markdown|html] [--offline]",
        arguments: [("<invocation>", "One provider invocation in quotes, written as it would be after 'aggregate', e.g. 'tmdb search batman'.")],
        options: options,
        discussion: """
            All invocations run at once, each with its own timeout and retries, so the run takes about as long as the \
            slowest one. One failing never hides the others: its column shows its error. Results appear in the order \
            given. The text view shows, per invocation: status, items, requests and pages, bytes received, time, auth \
            and pagination style, field coverage (the share of items that have each unified field) and the first \
            titles; --format json adds these figures as "comparison". Exit status: 0 when all succeed, 3 when some \
            fail, 1 when all fail, 64 when any invocation is not valid (nothing is sent then). --record DIR, --replay DIR \
            and --no-rate-limit apply to every invocation: one cassette for the run, one rate budget per provider. Example: \
            aggregate compare 'meetup --lat 51.509980 --lon -0.133700' 'kiva newest' 'tmdb search batman' 'twitter nasa' --offline
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        let shared: CommonOptions
        let output: Output
        let invocations: [(text: String, invocation: ProviderInvocation)]
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            output = try formatOption(parsed)
            shared = try sharedOptions(parsed)
            var texts = parsed.positionals
            if parsed.has("all") {
                texts += context.registry.providers.compactMap { $0.descriptor.examples.first?.arguments.map(shellQuoted).joined(separator: " ") }
            }
            guard !texts.isEmpty else { throw AggregateError(.usage, "give at least one invocation, e.g. 'meetup --lat 51.5 --lon -0.13', or --all") }
            let settings = try SettingsSources(context: context)
            invocations = try texts.enumerated().map { index, text throws(AggregateError) in
                (text, try invocation(text, number: index + 1, shared: shared, context: context, settings: settings))
            }
        } catch where error.kind == .config {
            return Diagnostics.report(error, console: console)
        } catch {
            return Diagnostics.report(error, console: console, usage: command.usage)
        }

        // One limiter, recorder and replayer for every invocation: one budget per provider, one cassette per run.
        let tools: RunTools
        do throws(AggregateError) {
            tools = try RunTools(shared.tools, offline: shared.offline, environment: context.environment)
        } catch where error.kind == .usage {
            return Diagnostics.report(error, console: console, usage: command.usage)
        } catch {
            return Diagnostics.report(error.attributed(to: "compare"), console: console)
        }
        let quiet = shared.quiet
        let progress = context.terminal.stderrIsTerminal && !quiet
            ? ProgressDisplay(labels: invocations.map { TextLayout.truncate($0.text, to: 40) }, console: console, width: context.terminal.width)
            : nil
        let printer = EventPrinter(console: console, verbose: shared.verbose, quiet: quiet)
        if shared.offline, !quiet {
            console.err("note: compare: offline: these are the sandbox's bundled sample data, not live results\n")
        }
        progress?.start()
        let results = await runAll(invocations.map(\.invocation), context: context, tools: tools) { index, event in
            if let progress { progress.update(index, event.kind) } else { printer.handle(event) }
        }
        progress?.finish()

        let rows = zip(invocations, results).map { entry, result in
            ComparisonRow(
                invocation: entry.text, result: result, authStyle: entry.invocation.provider.descriptor.authStyle,
                paginationStyle: entry.invocation.provider.descriptor.paginationStyle)
        }
        await Pager.paging(output == .results(.text) && !shared.noPager, context: context) { context in
            render(rows, format: output, color: shared.colorOnStdout(context.terminal), context: context)
        }
        for result in results { if let error = result.error { console.err(Diagnostics.line(for: error)) } }
        return ExitCode(comparing: results)
    }

    /// Compare's common options as typed settings (its own `--format`, which adds html, aside).
    static func sharedOptions(_ parsed: ParsedArguments) throws(AggregateError) -> CommonOptions {
        var common = parsed
        common.values["format"] = nil
        return try CommonOptions(common)
    }

    /// Parses one invocation; the compare options apply unless the invocation sets its own.
    static func invocation(
        _ text: String, number: Int, shared: CommonOptions, context: Context, settings: SettingsSources? = nil
    ) throws(AggregateError) -> ProviderInvocation {
        do throws(AggregateError) {
            var words = try ShellWords.split(text)
            if words.first == "aggregate" { words.removeFirst() }
            guard let name = words.first, context.registry.provider(named: name) != nil else {
                let word = words.first ?? ""
                let suggestion = DidYouMean.suffix(for: word, among: context.registry.names, otherwise: ".")
                throw AggregateError(.usage, "unknown provider '\(word)'\(suggestion) Valid providers: \(context.registry.names.joined(separator: ", ")).")
            }
            let invocation = try ProviderInvocation.parse(words, registry: context.registry, settings: settings, inheriting: shared)
            if invocation.common.help || invocation.common.raw || invocation.common.fields != nil || invocation.common.to != nil {
                throw AggregateError(.usage, "--help, --raw, --fields and --to cannot be used inside a compare invocation")
            }
            if invocation.common.tools != RunToolOptions() {
                throw AggregateError(.usage, "--no-rate-limit, --record, --replay and --store apply to the whole compare: give them after 'compare'")
            }
            return invocation
        } catch where error.kind == .config {
            throw error
        } catch {
            throw AggregateError(.usage, "invocation \(number) ('\(text)'): \(error.description)")
        }
    }

    static func formatOption(_ parsed: ParsedArguments) throws(AggregateError) -> Output {
        guard let text = parsed.value("format") else { return .results(.text) }
        if text.lowercased() == "html" { return .html }
        guard let format = OutputFormat(rawValue: text.lowercased()) else {
            throw AggregateError(.usage, "--format must be one of \(formats.joined(separator: ", ")), not '\(text)'\(DidYouMean.suffix(for: text, among: formats))")
        }
        return .results(format)
    }

    /// Runs every invocation concurrently and returns their results in the order given.
    static func runAll(
        _ invocations: [ProviderInvocation], context: Context, tools: RunTools = RunTools(), events: @escaping @Sendable (Int, FetchEvent) -> Void
    ) async -> [ProviderResult] {
        let cache = RunCache()
        let transport = context.makeTransport()
        return await withTaskGroup(of: (Int, ProviderResult).self) { group in
            for (index, invocation) in invocations.enumerated() {
                group.addTask {
                    let runner = InvocationRunner(context: context, events: { events(index, $0) }, tools: tools)
                    return (index, await runner.run(invocation, cache: cache, transport: transport))
                }
            }
            var results = [ProviderResult?](repeating: nil, count: invocations.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }  // every index was filled
        }
    }

    static func render(_ rows: [ComparisonRow], format output: Output, color: Bool, context: Context) {
        let results = rows.map(\.result)
        guard case .results(let format) = output else {
            context.console.out(CompareHTMLReport.render(rows))
            return
        }
        switch format {
        case .text:
            let style = TextStyle(width: context.terminal.width, color: color)
            context.console.out(ComparisonText.render(rows, style: style))
        case .json:
            context.console.out(ComparisonRow.json(rows))
        case .ndjson:
            context.console.out(ResultRenderer.ndjson(results))
        case .csv:
            context.console.out(ResultRenderer.csv(results))
        case .markdown:
            context.console.out(ResultRenderer.markdown(results))
        }
    }
}
