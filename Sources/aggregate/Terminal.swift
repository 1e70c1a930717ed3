import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process knows about its terminal. Linux/Darwin only, so it lives in the CLI, not in Core.
struct Terminal: Sendable {
    var stdoutIsTerminal: Bool
    var stderrIsTerminal: Bool
    var stdinIsTerminal: Bool
    /// Columns of the terminal, `COLUMNS` when set, else 80.
    var width: Int
    /// Whether `--color auto` colours stdout (``ColorChoice/automatic(isTerminal:environment:)``).
    var colorOnStdout: Bool
    /// Whether colour is allowed on stderr.
    var colorOnStderr: Bool

    static func current(environment: [String: String]) -> Terminal {
        let stdoutTTY = isatty(STDOUT_FILENO) == 1
        let stderrTTY = isatty(STDERR_FILENO) == 1
        return Terminal(
            stdoutIsTerminal: stdoutTTY, stderrIsTerminal: stderrTTY, stdinIsTerminal: isatty(STDIN_FILENO) == 1,
            width: Self.columns(environment: environment, isTerminal: stdoutTTY || stderrTTY),
            colorOnStdout: ColorChoice.automatic(isTerminal: stdoutTTY, environment: environment),
            colorOnStderr: ColorChoice.automatic(isTerminal: stderrTTY, environment: environment))
    }

    private static func columns(environment: [String: String], isTerminal: Bool) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        guard isTerminal else { return 80 }
        var size = winsize()
        for descriptor in [STDOUT_FILENO, STDERR_FILENO] where ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 80
    }
}

/// Where the CLI writes. Tests replace it to capture output.
final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void
    private let writeOutBytes: (@Sendable (UnsafeRawBufferPointer) -> Void)?

    /// - Parameter outBytes: writes UTF-8 results as they are; without it they are made text for `out`.
    init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        outBytes: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        writeOut = out
        writeErr = err
        writeOutBytes = outBytes
    }

    /// The process's stdout and stderr; a failed write of results ends the process (``StandardStreams``).
    static let standard = Console(out: StandardStreams.writeOutput, err: StandardStreams.writeError, outBytes: StandardStreams.writeOutput(bytes:))

    /// Writes results that are UTF-8 bytes already (`--paths` batches), without a round trip through `String`.
    func out(bytes: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        if let writeOutBytes { writeOutBytes(bytes) } else { writeOut(String(decoding: bytes, as: UTF8.self)) }
    }

    func out(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        writeOut(text)
    }

    func err(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        writeErr(text)
    }
}
