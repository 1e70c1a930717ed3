import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts the screen right when SIGINT (Ctrl-C) or SIGTERM ends a run that has drawn on it (the progress lines), then
/// ends the process by that signal, so the shell sees an interrupted program (status 130 or 143).
///
/// The signal handler only writes the signal's number to a pipe (async-signal-safe); the clean-up runs on an ordinary
/// queue that reads the pipe, so it may take locks and write as usual. Not Dispatch signal sources: on Linux they
/// leave their own handler and blocked masks behind for good, which the explorer's handlers (``BrowseTerminal``)
/// would then never see. ``cancel()`` puts the previous handlers back.
final class EndingSignals: @unchecked Sendable {
    /// The signals that end a run from outside: Ctrl-C and `kill`.
    static let numbers = [SIGINT, SIGTERM]

    private let lock = NSLock()
    private var reader: (any DispatchSourceRead)?
    private var previousHandlers: [Int32: sighandler_t?] = [:]
    private var previousPipe: Int32 = -1

    /// Starts watching; `cleanUp` runs on the first of the signals, then the process ends by it. Without a pipe
    /// (out of descriptors) nothing is watched and the signals keep their default action.
    init(cleanUp: @escaping @Sendable () -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            // The handler must never block, whatever happens to the reader.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        let reader = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        reader.setEventHandler {
            var number: UInt8 = 0
            guard read(readEnd, &number, 1) == 1 else { return }
            cleanUp()
            Self.end(by: Int32(number))
        }
        reader.setCancelHandler {
            close(readEnd)
            close(writeEnd)
        }
        reader.resume()
        self.reader = reader
        previousPipe = endingSignalsPipe
        endingSignalsPipe = writeEnd
        for number in Self.numbers { previousHandlers[number] = signal(number, endingSignalsForward) }
    }

    /// Stops watching: the handlers from before (normally the default action) are back.
    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        guard let reader else { return }
        for (number, handler) in previousHandlers { signal(number, handler) }
        previousHandlers = [:]
        endingSignalsPipe = previousPipe
        reader.cancel()
        self.reader = nil
    }

    /// Ends the process by `number` with its default action, as an interrupted program does, so the shell reports
    /// it as such (130 for SIGINT, 143 for SIGTERM) and a script around it stops too. The calling thread may block
    /// signals (Dispatch's workers do), so the signal is unblocked here before it is raised.
    static func end(by number: Int32) -> Never {
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        exit(128 + number)
    }
}

/// The write end of the watching ``EndingSignals``' pipe, for the signal handler (which may touch nothing else).
nonisolated(unsafe) private var endingSignalsPipe: Int32 = -1

/// Forwards a signal's number to the clean-up; only async-signal-safe calls.
private func endingSignalsForward(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(endingSignalsPipe, &byte, 1)
}
