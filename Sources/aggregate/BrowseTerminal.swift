import AggregateCore
import AggregateText
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``BrowseExplorer`` full-screen: raw keyboard input, the alternate screen, redraw on resize, and the
/// terminal put back as it was on every way out (`q`, Ctrl-C, SIGINT/SIGTERM/SIGHUP/SIGQUIT, end of input).
///
/// Signals are not handled inside their handlers: a handler only writes the signal's number to a pipe, and the
/// loop, which waits on the keyboard and that pipe with `poll`, restores the terminal and then ends the process by
/// the same signal with its default action, so the shell sees an interrupted program (status 130 for Ctrl-C).
final class BrowseTerminal {
    /// Where keys come from: standard input when it is a terminal, else the controlling terminal (`/dev/tty`), so
    /// `... --raw | aggregate browse - -i` works. `nil` when there is no keyboard.
    static func keyboard(stdinIsTerminal: Bool) -> Int32? {
        if stdinIsTerminal { return STDIN_FILENO }
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard isatty(descriptor) == 1 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private let input: Int32
    private let output: Int32
    private var saved = termios()
    private var decoder = KeyDecoder()
    private var signalPipe: (read: Int32, write: Int32) = (-1, -1)
    private var previousHandlers: [Int32: sighandler_t?] = [:]

    /// Signals that end the explorer; SIGWINCH only redraws.
    private static let endingSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Shows `explorer` until the user quits; returns `.success` for `q` or the end of keyboard input.
    /// Ctrl-C and ending signals do not return: the process ends by that signal after the terminal is restored.
    func run(_ explorer: inout BrowseExplorer) throws(AggregateError) -> ExitCode {
        guard tcgetattr(input, &saved) == 0 else {
            throw AggregateError(.usage, "--interactive needs a terminal to read keys from (tcgetattr failed)")
        }
        try installSignalPipe()
        enterRawMode()
        var ending: Int32?
        draw(explorer)
        loop: while true {
            var descriptors = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, decoder.hasPending ? 50 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            var keys: [Key] = ready == 0 ? decoder.flush() : []
            if descriptors[1].revents & Int16(POLLIN) != 0 {
                var numbers = [UInt8](repeating: 0, count: 16)
                let count = read(signalPipe.read, &numbers, numbers.count)
                for number in numbers.prefix(max(0, count)) where Int32(number) != SIGWINCH {
                    ending = Int32(number)
                    break loop
                }
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                var bytes = [UInt8](repeating: 0, count: 256)
                let count = read(input, &bytes, bytes.count)
                if count <= 0 {
                    if count < 0, errno == EINTR || errno == EAGAIN { continue }
                    break  // the terminal went away
                }
                keys += decoder.feed(Array(bytes.prefix(count)))
            } else if descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                break
            }
            let (width, height) = size()
            for key in keys {
                switch explorer.handle(key, width: width, height: height) {
                case .stay: continue
                case .quit: break loop
                case .interrupt:
                    ending = SIGINT
                    break loop
                }
            }
            draw(explorer)
        }
        restore()
        if let ending {
            // End the way an interrupted program does, now that the terminal is back to normal.
            EndingSignals.end(by: ending)
        }
        return .success
    }

    // MARK: Terminal modes

    private func enterRawMode() {
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSAFLUSH, &raw)
        // The alternate screen keeps the user's scrollback; the cursor is hidden while the list is shown.
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Leaves the alternate screen, shows the cursor, restores the saved modes and the previous signal handlers.
    private func restore() {
        write("\u{1B}[0m\u{1B}[2J\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(input, TCSAFLUSH, &saved)
        for (number, handler) in previousHandlers { signal(number, handler) }
        previousHandlers = [:]
        browseSignalPipeWrite = -1
        close(signalPipe.read)
        close(signalPipe.write)
    }

    private func installSignalPipe() throws(AggregateError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw AggregateError(.usage, "--interactive could not set up its signal pipe") }
        signalPipe = (descriptors[0], descriptors[1])
        // The handler must never block, whatever happens to the reader.
        _ = fcntl(signalPipe.write, F_SETFL, fcntl(signalPipe.write, F_GETFL) | O_NONBLOCK)
        browseSignalPipeWrite = signalPipe.write
        var set = sigset_t()
        sigemptyset(&set)
        for number in Self.endingSignals + [SIGWINCH] {
            previousHandlers[number] = signal(number, browseForwardSignal)
            sigaddset(&set, number)
        }
        // A process started by a thread that blocks signals inherits that mask; this thread, which waits in poll,
        // takes them.
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    // MARK: Drawing

    /// The terminal's size from the kernel, else `COLUMNS`/`LINES`, else 80×24.
    func size() -> (width: Int, height: Int) {
        var window = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 {
            return (Int(window.ws_col), Int(window.ws_row))
        }
        let environment = ProcessInfo.processInfo.environment
        return (environment["COLUMNS"].flatMap(Int.init) ?? 80, environment["LINES"].flatMap(Int.init) ?? 24)
    }

    private func draw(_ explorer: BrowseExplorer) {
        let (width, height) = size()
        let screen = explorer.screen(width: width, height: max(3, height))
        let columns = BrowseExplorer.columns(width)
        var text = ""
        for (row, line) in screen.lines.enumerated() {
            text += "\u{1B}[\(row + 1);1H"
            if row == 0 || row == screen.highlighted {
                text += "\u{1B}[7m" + TextLayout.pad(line, to: columns) + "\u{1B}[0m\u{1B}[K"
            } else {
                text += line + "\u{1B}[K"
            }
        }
        write(text)
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { writeToDescriptor(output, $0) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// The write end of the explorer's signal pipe, for the signal handler (which may touch nothing else).
nonisolated(unsafe) private var browseSignalPipeWrite: Int32 = -1

/// Forwards a signal's number to the explorer's loop; only async-signal-safe calls.
private func browseForwardSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(browseSignalPipeWrite, &byte, 1)
}

/// `write(2)`, outside the class whose own `write(_:)` would shadow it.
private func writeToDescriptor(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    write(descriptor, buffer.baseAddress, buffer.count)
}
