import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate browse FILE|URL|-`: an outline of any JSON document, its leaf paths, or a full-screen explorer.
enum BrowseCommand {
    static let options: [OptionSpec] = [
        OptionSpec("path", valueName: "PATH", help: "Start at this node instead of the top: results.0.topics, results[0].topics, results[-1] (the last element), [\"key.with.dots\"] or 'key.with.dots' for keys with dots, brackets or spaces."),
        OptionSpec("depth", valueName: "N", help: "How many levels the outline shows below the node, 1 to 100 (default: 2)."),
        OptionSpec("items", valueName: "N", help: "The most keys or elements the outline lists per object or array; the rest are counted in a '… N more' line (default: 50)."),
        OptionSpec("paths", arity: .flag, help: "Print every leaf as 'path = value', one per line, complete and uncut (like gron), for grep."),
        OptionSpec("interactive", short: "i", arity: .flag, help: "Explore the document full-screen (standard output must be a terminal)."),
        OptionSpec("max-size", valueName: "SIZE", help: "The largest input read whole (the explorer, URLs, outlines of standard input and of files up to 8 MiB), in bytes or with K, M or G (binary units: 1M = 1 MiB); a larger file is refused before it is read, a larger stream or response as soon as it passes the size (default: 64M). --paths, --path and outlines of larger files are streamed in bounded memory and have no cap."),
        OptionSpec("timeout", valueName: "SECONDS", help: "For a URL: the most time the request may take (default: 15)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "browse", summary: "Look inside any JSON document: an outline, every leaf path, or a full-screen explorer.",
        usage: "aggregate browse <file|url|-> [--path <PATH>] [--depth <N> | --paths | -i] [<options>]",
        arguments: [
            ("<file|url|->", "A JSON file, an https:// URL (http:// only for loopback hosts), or - for standard input, e.g. the output of 'aggregate <provider> ... --raw'."),
        ],
        options: options,
        discussion: """
            Prints an outline: each key or [index] with its type and a short value, e.g. 'name = "London French Meetup"', 'topics: array[3]', 'organizer: object{2}', nested to --depth levels and cut to the terminal width. --paths prints every leaf path instead; --path starts either view at a node inside the document, and a path that does not exist names the first segment that failed and the keys or indices that were there.

            Keys of the explorer (-i): ↑/↓ or k/j move; PgUp/PgDn (b/space) and Home/End (g/G) jump; Enter, → or l steps into an object or array, or shows a value in full; ←, Backspace or h goes back up; / searches the keys and values of the current level (Enter to jump, Esc to cancel), n/N jump to the next/previous match; q quits. The terminal is restored on q, on Ctrl-C (exit status 130) and on SIGTERM/SIGHUP; a resize redraws the screen. Keys are read from the terminal even when the document comes from standard input.

            Exit codes: 0 success; 1 the URL could not be fetched, the input is over --max-size, or --path does not exist; 64 usage error (including -i without a terminal); 65 invalid input: empty, not UTF-8, not valid JSON (line, column and an excerpt are shown), or nested deeper than 512 levels; 66 the file does not exist or cannot be opened, or standard input is closed; 74 reading failed; 78 an http:// URL to a host that is not loopback.

            Example: aggregate meetup --lat 51.5 --lon -0.13 --offline --raw | aggregate browse - --depth 2
            """)

    /// What `browse` reads.
    enum Source: Equatable {
        case file(String)
        case standardInput
        case url(URL)

        /// The name errors use.
        var name: String {
            switch self {
            case .file(let path): return path
            case .standardInput: return "standard input"
            case .url(let url): return url.redactedForDisplay
            }
        }
    }

    /// What to print.
    enum Mode: Equatable {
        case outline(JSONOutline.Options)
        case paths
        case interactive
    }

    /// A checked `browse` command line.
    struct Invocation: Equatable {
        var source: Source
        var path: JSONPath
        var mode: Mode
        var maxBytes = JSONInput.defaultMaxBytes
        var timeout: TimeInterval = 15
    }

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            let invocation = try parse(parsed, width: context.terminal.width)
            var keyboard: Int32?
            if invocation.mode == .interactive {
                guard context.terminal.stdoutIsTerminal else {
                    throw AggregateError(.usage, "--interactive needs a terminal on standard output; without one, use the outline (--depth) or --paths")
                }
                keyboard = BrowseTerminal.keyboard(stdinIsTerminal: context.terminal.stdinIsTerminal && invocation.source != .standardInput)
                guard keyboard != nil else {
                    throw AggregateError(.usage, "--interactive needs a terminal to read keys from, and neither standard input nor /dev/tty is one")
                }
            }
            if streams(invocation) {
                try runStreaming(invocation, console: console)
                return .success
            }
            let document: JSONValue
            switch try await load(invocation, context: context) {
            case .stream(let reader):
                try runStreaming(invocation, reader: reader, console: console)
                return .success
            case .document(let loaded):
                document = loaded
            }
            let node: JSONValue
            let nodePath: JSONPath
            do {
                node = try invocation.path.resolve(in: document)
                nodePath = try invocation.path.normalized(in: document)
            } catch {
                throw AggregateError(.notFound, "--path \(invocation.path): \(error.reason)")
            }
            switch invocation.mode {
            case .outline(let options):
                console.out(JSONOutline.lines(node, options: options).joined(separator: "\n") + "\n")
            case .paths:
                var batch = ""
                JSONOutline.paths(node, prefix: nodePath) { line in
                    batch += line
                    batch += "\n"
                    if batch.utf8.count >= 1 << 16 {
                        console.out(batch)
                        batch = ""
                    }
                }
                console.out(batch)
            case .interactive:
                var explorer: BrowseExplorer
                do {
                    explorer = try BrowseExplorer(root: document, path: nodePath)
                } catch {
                    throw AggregateError(.notFound, "--path \(invocation.path): \(error.reason)")
                }
                return try BrowseTerminal(input: keyboard ?? STDIN_FILENO, output: STDOUT_FILENO).run(&explorer)
            }
            return .success
        } catch {
            return Diagnostics.report(error.attributed(to: "browse"), console: console, usage: command.usage)
        }
    }

    /// Checks the command line: one input, compatible options, values in range.
    static func parse(_ parsed: ParsedArguments, width: Int) throws(AggregateError) -> Invocation {
        guard let argument = parsed.positionals.first else {
            throw AggregateError(.usage, "missing <file|url|->: give a JSON file, an https:// URL, or - for standard input")
        }
        if parsed.positionals.count > 1 {
            throw AggregateError(.usage, "unexpected argument '\(parsed.positionals[1])': browse reads one document")
        }
        let source = try source(argument)
        var path = JSONPath.root
        if let text = parsed.value("path") {
            do {
                path = try JSONPath(parsing: text)
            } catch {
                throw AggregateError(.usage, "--path '\(text)': \(error)")
            }
        }
        let interactive = parsed.has("interactive")
        let paths = parsed.has("paths")
        if interactive, paths { throw AggregateError(.usage, "--paths and --interactive cannot be used together") }
        if interactive || paths {
            for option in ["depth", "items"] where parsed.value(option) != nil {
                throw AggregateError(.usage, "--\(option) applies to the outline, not to \(paths ? "--paths" : "--interactive")")
            }
        }
        var outline = JSONOutline.Options(width: width)
        if let text = parsed.value("depth") {
            guard let depth = Int(text), (1...100).contains(depth) else {
                throw AggregateError(.usage, "--depth must be a whole number from 1 to 100, not '\(text)'")
            }
            outline.depth = depth
        }
        if let text = parsed.value("items") {
            guard let items = Int(text), items >= 1 else {
                throw AggregateError(.usage, "--items must be a whole number of at least 1, not '\(text)'")
            }
            outline.maxChildren = items
        }
        var invocation = Invocation(source: source, path: path, mode: interactive ? .interactive : paths ? .paths : .outline(outline))
        invocation.maxBytes = try SizeCap.maxBytes(parsed.value("max-size"), default: invocation.maxBytes)
        if let text = parsed.value("timeout") {
            guard let seconds = DecimalText.number(text, in: 0.01...3600) else {
                throw AggregateError(.usage, "--timeout must be a decimal number of seconds from 0.01 to 3600, not '\(text)'")
            }
            invocation.timeout = seconds
        }
        return invocation
    }

    /// `-`, an http(s) URL, or a file path.
    static func source(_ argument: String) throws(AggregateError) -> Source {
        if argument == "-" { return .standardInput }
        let lowered = argument.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: argument), url.host?.isEmpty == false else {
                throw AggregateError(.usage, "'\(Redactor().redact(argument))' is not a valid URL")
            }
            return .url(url)
        }
        if let scheme = argument.range(of: "://"), !argument[..<scheme.lowerBound].contains("/") {
            throw AggregateError(.usage, "only https:// (and http:// to loopback hosts) URLs can be browsed, not '\(argument[..<scheme.lowerBound])://'")
        }
        return .file(argument)
    }

    /// What ``load(_:context:)`` gives: the parsed document, or a fetched body to read as a stream.
    enum Loaded {
        case document(JSONValue)
        case stream(JSONEventReader)
    }

    /// Reads the document whole (a URL's body, standard input, or a file that is not streamed) and parses it, or
    /// hands a large body over as a stream (``streams(_:body:)``).
    static func load(_ invocation: Invocation, context: Context) async throws(AggregateError) -> Loaded {
        let source = invocation.source
        // A large document takes a while to read and parse: past a second, a progress line says so.
        let progress = ProgressLine.forCommand(label: "browse \(source.name)", quiet: false, context: context)
        progress.update(phase: "reading")
        progress.startTicking()
        defer { progress.finish() }
        let data: Data
        switch source {
        case .file(let path):
            data = try JSONInput.readFile(atPath: path, maxBytes: invocation.maxBytes)
        case .standardInput:
            // Reading a pipe to its end blocks: on a thread of its own, not the cooperative pool.
            // Its messages start with "standard input", the name the other errors use.
            let maxBytes = invocation.maxBytes
            data = try await BlockingWork.run { () throws(AggregateError) -> Data in
                try StandardStreams.readInput(maxBytes: maxBytes, hint: JSONInput.maxSizeHint)
            }
        case .url(let url):
            let options = FetchOptions(timeout: invocation.timeout, maxResponseBytes: invocation.maxBytes)
            do {
                data = try await Fetcher(transport: context.makeTransport(), options: options).fetchDocument(url)
            } catch where error.kind == .tooLarge {
                throw AggregateError(.tooLarge, "\(source.name): \(error.message); raise it with --max-size")
            }
        }
        if streams(invocation, body: data) { return .stream(JSONEventReader(data: data)) }
        progress.update(phase: "parsing", bytes: data.count)
        return .document(try JSONInput.decode(data, name: source.name))
    }
}
