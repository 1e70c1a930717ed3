import AggregateCore
import AggregateText
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows a command's long text output through a pager, as git does: `$AGGREGATE_PAGER`, else `$PAGER`, else
/// `less -FRX`; an empty value or `cat` means none, and `--no-pager` turns it off.
///
/// It does not depend on how the console writes: while a command that may page runs, its stdout text is collected
/// (stderr is untouched, so notes and errors appear at once), and at the end the text goes to the pager when it is
/// taller than the terminal, else straight to stdout. Paging needs stdout to be a terminal and the output to be the
/// text format; the interactive explorer (`browse -i`) draws on the terminal itself and never pages. A pager that
/// cannot start leaves the text written directly, with no error.
enum Pager {
    /// `--no-pager`, for every command whose text output may page.
    static let spec = CommonOptions.noPagerSpec

    /// The pager command: `AGGREGATE_PAGER`, then `PAGER` (the first one that is set, even to empty), else
    /// `less -FRX`; `nil` when that is empty or `cat`, which mean no pager.
    static func command(environment: [String: String]) -> String? {
        let chosen = environment["AGGREGATE_PAGER"] ?? environment["PAGER"] ?? "less -FRX"
        let trimmed = chosen.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "cat" ? nil : trimmed
    }

    /// Runs `body` and pages what it writes to stdout when `eligible` (the format is text and `--no-pager` was not
    /// given), stdout is a terminal and a pager is configured; otherwise just runs it.
    /// - Parameter body: the command, given the context whose console it must write through.
    static func paging<Outcome>(_ eligible: Bool, context: Context, _ body: (Context) async -> Outcome) async -> Outcome {
        guard eligible, context.terminal.stdoutIsTerminal, let command = command(environment: context.environment) else {
            return await body(context)
        }
        let collected = Collected()
        var paged = context
        let console = context.console
        paged.console = Console(out: { collected.append($0) }, err: { console.err($0) })
        let outcome = await body(paged)
        show(collected.text, command: command, context: context)
        return outcome
    }

    /// Writes `text` through the pager `command` when it is taller than the terminal, else directly.
    static func show(_ text: String, command: String, context: Context) {
        guard !text.isEmpty else { return }
        // A text as tall as the terminal already pushes its first line off when the shell prompt follows it.
        let fits = rowsNeeded(text, width: context.terminal.width) < terminalRows(environment: context.environment)
        if fits || !run(command, input: text, environment: context.environment) { context.console.out(text) }
    }

    /// How many terminal rows `text` takes at `width` columns, long lines wrapping. Colour escape sequences count as
    /// columns here, which can only send text that fits to the pager, and `less -F` then quits at once.
    static func rowsNeeded(_ text: String, width: Int) -> Int {
        let columns = max(1, width)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines.reduce(0) { rows, line in rows + max(1, (TextLayout.width(String(line)) + columns - 1) / columns) }
    }

    /// Runs the pager through `/bin/sh -c` (so `less -FRX` and quoted arguments work) with `text` on its stdin, and
    /// waits for it. Returns `false`, having shown nothing, when it cannot start: no shell, or the command not found.
    private static func run(_ command: String, input text: String, environment: [String: String]) -> Bool {
        guard isFound(command, environment: environment) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var pagerEnvironment = environment
        // As git does: a plain `less` (e.g. PAGER=less) still passes colours through and quits when the text fits.
        if pagerEnvironment["LESS"] == nil { pagerEnvironment["LESS"] = "FRX" }
        process.environment = pagerEnvironment
        let input = Pipe()
        process.standardInput = input
        do { try process.run() } catch { return false }
        // Ctrl-C in the pager is the pager's to handle; this process just waits for it to end.
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        // The user may quit before reading everything: the write then fails (EPIPE; SIGPIPE is ignored), which is fine.
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return true
    }

    /// Whether the command's program exists: its first word names a file that is executable, or one on `PATH`. A
    /// command starting with a variable assignment or shell syntax is left to the shell.
    private static func isFound(_ command: String, environment: [String: String]) -> Bool {
        guard let program = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) else { return false }
        if program.contains("=") || program.contains(where: { "\"'$`\\(){};|&<>~".contains($0) }) { return true }
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        return (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains { folder in
            FileManager.default.isExecutableFile(atPath: "\(folder)/\(program)")
        }
    }

    /// The terminal's height: `LINES` when set, else the terminal's own, else 24.
    private static func terminalRows(environment: [String: String]) -> Int {
        if let text = environment["LINES"], let rows = Int(text), rows > 0 { return rows }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        return 24
    }

    /// The stdout text of a paged command, appended from whatever task writes it.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var parts: [String] = []

        func append(_ text: String) {
            lock.lock()
            defer { lock.unlock() }
            parts.append(text)
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return parts.joined()
        }
    }
}
