import AggregateTestSupport
import Foundation
import Testing

/// Every command, through the built binary, with its standard streams taken away: stdout closed, stdout on
/// `/dev/full`, stdout a pipe whose reader has gone, stdin closed; and with the folders it writes unwritable.
/// Each run must end with an exit status below 128 (or 141, quietly, for the gone reader), no backtrace, and
/// at most one `Error:` line, which names standard output when results could not be written.
@Suite(.serialized) struct IOMatrixTests {
    /// A scratch folder per test run: a JSON file to read, a regular file to put "folders" under.
    static let scratch: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-io-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data(#"{"results": [{"title": "Batman", "year": 1989, "cast": ["a", "b"]}], "page": 1}"#.utf8)
            .write(to: folder.appendingPathComponent("doc.json"))
        try? Data("not a folder".utf8).write(to: folder.appendingPathComponent("file"))
        return folder
    }()

    static var document: String { scratch.appendingPathComponent("doc.json").path }
    /// A path no process can create: its parent is a regular file (ENOTDIR, whoever runs the tests, root too).
    static var unwritable: String { scratch.appendingPathComponent("file/sub").path }

    /// An argument replaced by a new folder on each run, for commands that refuse to overwrite what they wrote.
    static let freshFolder = "{fresh folder}"

    static let archive = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Fixtures/twitter_archive/2024_parts").path

    /// One invocation of each command and of each provider, with the options that change how output is written.
    static let commands: [[String]] = [
        ["--version"], ["--help"], ["help"], ["help", "tmdb"], ["help", "compare"], ["providers"], ["describe", "tmdb"],
        ["describe", "github", "--format", "json"],
        ["tmdb", "search", "batman", "--offline"], ["tmdb", "popular", "--offline", "--format", "json"],
        ["tmdb", "movie", "550", "--offline", "--format", "markdown"],
        ["github", "search", "swift", "--offline", "--format", "csv"], ["hackernews", "search", "swift", "--offline", "--format", "ndjson"],
        ["meetup", "--lat", "51.5", "--lon", "-0.12", "--offline"], ["kiva", "newest", "--offline", "--raw"],
        ["twitter", "timeline", "TwitterDev", "--offline", "--fields", "title,createdAt"],
        ["messageboard", "list", "--offline"], ["messageboard", "post", "--name", "Joe", "--message", "hi", "--offline"],
        ["compare", "tmdb search batman --offline", "github search batman --offline"],
        ["compare", "tmdb search batman --offline", "hackernews search batman --offline", "--format", "html"],
        ["browse", document], ["browse", document, "--paths"], ["browse", document, "--path", "results[0]"],
        ["normalize", "tmdb", "search", document], ["twitter", "archive", archive],
        ["config", "path"], ["config", "show"], ["config", "set", "tmdb.limit", "5"], ["config", "get", "tmdb.limit"],
        ["config", "unset", "tmdb.limit"], ["auth", "status"], ["completions", "bash"], ["completions", "zsh"], ["completions", "fish"],
        ["cache", "path"], ["cache", "stats"], ["cache", "clear"], ["limits", "show"], ["limits", "reset"],
        ["new-provider", "io-probe", "--dir", freshFolder],
        ["sandbox", "--help"],
        ["sql", "SELECT title, vote_average FROM tmdb_popular LIMIT 30", "--offline"],
        ["sql", "SELECT p.title, g.title FROM tmdb_popular p, github_search g WHERE g.query = p.kind", "--offline", "--format", "ndjson"],
        ["sql", "--tables"], ["sql", "--describe", "tmdb_search", "--format", "json"],
        ["sql", "SELECT title FROM tmdb_search WHERE query = 'leon'", "--plan"],
        ["check", TestPaths.packageRoot.appendingPathComponent("Providers/HackerNews/provider.json").path],
        ["check", TestPaths.packageRoot.appendingPathComponent("Providers/GitHub/provider.json").path, "--format", "json"],
    ]

    enum Stdout: String, CaseIterable {
        case closed = ">&-"
        case full = ">/dev/full"
        case readerGone = "reader gone"
    }

    @Test("stdout closed, full or without a reader: one line and 74, or 141 quietly", arguments: commands)
    func withoutStdout(arguments: [String]) throws {
        let baseline = try Run.binary(arguments)
        try #require(baseline.status < 128, "\(arguments) fails on its own: \(baseline.stderr)")
        for stdout in Stdout.allCases {
            let run = try Run.binary(arguments, stdout: stdout)
            let context = "\(arguments.joined(separator: " ")) with stdout \(stdout.rawValue)"
            Run.expectNoTrap(run, context)
            guard !baseline.stdout.isEmpty else {
                #expect(run.status == baseline.status, "\(context): a command that writes nothing should not notice")
                continue
            }
            switch stdout {
            case .closed, .full:
                #expect(run.status == 74, "\(context): \(run.stderr)")
                #expect(run.errorLines.count == 1 && run.errorLines.first?.contains("standard output") == true, "\(context): \(run.stderr)")
                let reason = stdout == .closed ? "it is closed" : "no space left on the device"
                #expect(run.stderr.contains(reason), "\(context): \(run.stderr)")
            case .readerGone:
                #expect(run.status == 141, "\(context): \(run.stderr)")
                #expect(run.errorLines.isEmpty, "\(context): a gone reader ends quietly: \(run.stderr)")
            }
        }
    }

    @Test("stdin closed: commands that do not read it do not notice", arguments: commands)
    func withoutStdin(arguments: [String]) throws {
        let baseline = try Run.binary(arguments)
        let run = try Run.binary(arguments, stdinClosed: true)
        Run.expectNoTrap(run, "\(arguments) with stdin closed")
        #expect(run.status == baseline.status, "\(arguments) with stdin closed: \(run.stderr)")
    }

    /// The commands that read standard input: each says so in one line and exits 66.
    static let stdinReaders: [[String]] = [
        ["messageboard", "post", "--name", "Joe", "--message", "-", "--offline"], ["browse", "-"], ["browse", "-", "--paths"],
        ["browse", "-", "--path", "a"], ["normalize", "tmdb", "search", "-"], ["normalize", "tmdb", "search"],
        ["normalize", "tmdb", "search", "-", "--pages"], ["sql", "-", "--offline"],
    ]

    @Test("stdin closed where it is read: one line naming it, exit 66", arguments: stdinReaders)
    func readingClosedStdin(arguments: [String]) throws {
        let run = try Run.binary(arguments, stdinClosed: true)
        Run.expectNoTrap(run, "\(arguments)")
        #expect(run.status == 66, "\(arguments): \(run.stderr)")
        #expect(run.errorLines.count == 1 && run.stderr.contains("standard input is closed"), "\(arguments): \(run.stderr)")
    }

    /// Inputs read whole stop at their cap: an endless stdin ends in one line, not in memory exhaustion.
    static let endlessStdin: [(arguments: [String], cap: String)] = [
        (["messageboard", "post", "--name", "Joe", "--message", "-", "--offline"], "1 MiB"),
        (["normalize", "tmdb", "search", "-"], "64 MiB"),
        (["normalize", "tmdb", "search", "-", "--pages"], "64 MiB"),
        (["normalize", "tmdb", "search", "-", "--max-size", "1M"], "1 MiB"),
        (["browse", "-", "--max-size", "2M"], "2 MiB"),
        (["sql", "-", "--offline"], "1 MiB"),
    ]

    @Test("an endless stdin stops at the documented cap", arguments: endlessStdin)
    func endlessInput(arguments: [String], cap: String) throws {
        let run = try Run.binary(arguments, stdinFromZero: true)
        Run.expectNoTrap(run, "\(arguments) </dev/zero")
        #expect(run.status == 1, "\(arguments): \(run.stderr)")
        #expect(run.errorLines.count == 1 && run.stderr.contains("larger than the \(cap) size cap"), "\(arguments): \(run.stderr)")
    }

    /// Folders the command must write to, made unwritable: one line naming the path and the reason.
    static let unwritableFolders: [(arguments: [String], environment: [String: String], status: Int32)] = [
        (["tmdb", "search", "batman", "--offline", "--record", unwritable], [:], 74),
        (["new-provider", "io-probe", "--dir", unwritable], [:], 74),
        (["config", "set", "tmdb.limit", "5"], ["XDG_CONFIG_HOME": unwritable], 78),
        (["new-provider", "io-probe"], ["XDG_CONFIG_HOME": unwritable], 74),
        (["cache", "clear"], ["XDG_CACHE_HOME": unwritable], 0),
        (["limits", "reset"], ["XDG_CACHE_HOME": unwritable], 0),
        (["messageboard", "post", "--name", "Joe", "--message", "hi", "--offline"], ["XDG_DATA_HOME": unwritable], 1),
    ]

    @Test("an unwritable --record, --dir, config, cache or data folder", arguments: unwritableFolders)
    func unwritableFolder(arguments: [String], environment: [String: String], status: Int32) throws {
        let run = try Run.binary(arguments, environment: environment)
        Run.expectNoTrap(run, "\(arguments)")
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        #expect(run.errorLines.count == (status == 0 ? 0 : 1), "\(arguments): \(run.stderr)")
        if status != 0 {
            #expect(run.stderr.contains(Self.unwritable) && run.stderr.contains("a part of the path is not a folder"), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("The operation could not be completed"), "a Foundation message: \(run.stderr)")
        }
    }

    /// `aggregate browse FILE --paths | head -1` on a document of many leaves: the first line, then a quiet 141.
    @Test func pathsIntoHead() throws {
        let big = Self.scratch.appendingPathComponent("big.json")
        let leaves = (0..<200_000).map { "{\"a\": \($0), \"b\": [\($0), \($0)]}" }.joined(separator: ",")
        try Data("[\(leaves)]".utf8).write(to: big)
        let run = try Run.shell("\"$0\" browse '\(big.path)' --paths | head -1; echo \"status=${PIPESTATUS[0]}\"")
        #expect(run.stdout == "[0].a = 0\nstatus=141\n", "\(run.stdout)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }
}

/// Runs the binary under `/bin/sh` so that its standard streams can be closed or redirected as a shell does.
private enum Run {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("Error:") } }
    }

    static func expectNoTrap(_ run: Output, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status < 128 || run.status == 141, "\(context): died with \(run.status): \(run.stderr)", sourceLocation: sourceLocation)
        for marker in ["Fatal error", "Stack dump", "backtrace", "Current stack trace", "💣", "NSCocoaErrorDomain", "The operation could not be completed"] {
            #expect(!run.stderr.contains(marker), "\(context): \(marker) on stderr: \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    static func binary(
        _ arguments: [String], stdout: IOMatrixTests.Stdout? = nil, stdinClosed: Bool = false, stdinFromZero: Bool = false,
        environment: [String: String] = [:]
    ) throws -> Output {
        var redirections = ""
        if let stdout, stdout != .readerGone { redirections += " \(stdout.rawValue)" }
        if stdinClosed { redirections += " <&-" }
        if stdinFromZero { redirections += " </dev/zero" }
        let arguments = arguments.map { argument in
            argument == IOMatrixTests.freshFolder ? IOMatrixTests.scratch.appendingPathComponent("new-\(UUID().uuidString)").path : argument
        }
        return try shell("exec \"$0\" \"$@\"\(redirections)", arguments: arguments, environment: environment, readerGone: stdout == .readerGone)
    }

    /// `script` run by `/bin/sh -c`, with the binary as `$0` and `arguments` as `$@`, in a private environment.
    static func shell(_ script: String, arguments: [String] = [], environment: [String: String] = [:], readerGone: Bool = false) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, Binary.url.path] + arguments
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1"]
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-io-home-\(UUID().uuidString)").path
        for variable in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "HOME"] { env[variable] = "\(fresh)/\(variable)" }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        if readerGone { try out.fileHandleForReading.close() }
        try process.run()
        let run = try Binary.collect(process, out: readerGone ? nil : out, err: err, timeout: 60, arguments: arguments)
        // A death by a signal counts as a shell shows it (128 + the signal), so the `< 128` check sees it.
        let status = process.terminationReason == .uncaughtSignal ? 128 + run.status : run.status
        return Output(status: status, stdout: run.stdout, stderr: run.stderr)
    }
}
