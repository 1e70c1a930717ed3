import AggregateCore
import AggregateText
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams, written and read with `write(2)` and `read(2)`.
///
/// `FileHandle` traps when a write fails (a full disk, a closed descriptor, a reader that went away), so the CLI
/// never writes through it. Here every failure is one of three endings, decided in one place:
/// - a reader that went away (`EPIPE`, e.g. `| head -1`) ends the process quietly with 141, as Unix tools do;
/// - any other output failure prints one line and exits 74 (EX_IOERR);
/// - reading a closed standard input is an input error (66) for the caller to report.
enum StandardStreams {
    /// The exit status of a process whose reader went away: what a shell shows for a death by SIGPIPE.
    static let brokenPipeStatus: Int32 = 141

    /// Which standard descriptors were closed when the process started (`>&-`, `<&-`).
    struct ClosedAtStart: Sendable {
        var input = false
        var output = false
        var error = false
    }

    /// Checked once, first thing in `main`: each closed descriptor is reopened on `/dev/null`, so that no file
    /// the run opens later (a cache entry, the config) is given descriptor 1 and receives the results, and the
    /// closedness is remembered so output and input still fail as they should.
    static let closedAtStart: ClosedAtStart = {
        var closed = ClosedAtStart()
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
            switch descriptor {
            case STDIN_FILENO: closed.input = true
            case STDOUT_FILENO: closed.output = true
            default: closed.error = true
            }
        }
        return closed
    }()

    /// Writes results to standard output, or ends the process (141 quietly for a broken pipe, else one line and 74).
    static func writeOutput(_ text: String) {
        if closedAtStart.output { endAfterOutputFailure(EBADF) }
        if let failure = writeAll(text, to: STDOUT_FILENO) { endAfterOutputFailure(failure) }
    }

    /// Writes UTF-8 results to standard output as they are, or ends the process as ``writeOutput(_:)`` does.
    static func writeOutput(bytes: UnsafeRawBufferPointer) {
        if closedAtStart.output { endAfterOutputFailure(EBADF) }
        if let failure = writeAll(bytes, to: STDOUT_FILENO) { endAfterOutputFailure(failure) }
    }

    /// Writes to standard error; a failure there has nowhere to be reported, so it is dropped.
    static func writeError(_ text: String) {
        if closedAtStart.error { return }
        _ = writeAll(text, to: STDERR_FILENO)
    }

    /// The line for an output failure with `errno` value `code`.
    static func outputFailureLine(_ code: Int32) -> String {
        let hint = code == EBADF ? "; redirect it to a file or to /dev/null" : ""
        return "Error: cannot write the results to standard output: \(FileSystemReason.describe(errno: code))\(hint)\n"
    }

    private static func endAfterOutputFailure(_ code: Int32) -> Never {
        if code == EPIPE { exit(brokenPipeStatus) }
        writeError(outputFailureLine(code))
        exit(ExitCode.ioError.rawValue)
    }

    /// Writes all of `text`, retrying short writes and interruptions; the `errno` of a failure, or `nil`.
    private static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in writeAll(UnsafeRawBufferPointer(bytes), to: descriptor) }
    }

    /// Writes all of `bytes`, retrying short writes and interruptions; the `errno` of a failure, or `nil`.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// Reads all of standard input, refusing more than `maxBytes` (``JSONInput/read(_:name:maxBytes:hint:)``, the one
    /// capped reader). Messages start with "standard input", for the caller to prefix with what read it
    /// (`--message -: standard input is closed; ...`).
    /// - Parameter hint: what to do when the input is over the cap, e.g. "raise it with --max-size".
    /// - Throws: `noInput` (66) when standard input was closed, `tooLarge` past the cap, `ioError` (74) when a
    ///   read fails.
    static func readInput(maxBytes: Int, hint: String) throws(AggregateError) -> Data {
        if closedAtStart.input {
            throw AggregateError(.noInput, "standard input is closed; pipe the input in, or give it another way")
        }
        return try JSONInput.read(.standardInput, name: "standard input", maxBytes: maxBytes, hint: hint)
    }
}
