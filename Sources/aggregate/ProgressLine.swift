import AggregateCore
import AggregateHTTP
import AggregateText
import Dispatch
import Foundation

/// One status line on stderr for long work, redrawn in place: what is happening, pages, items, bytes and the time
/// so far, e.g. `tmdb: fetching page 3 · 2 pages · 40 items · 31.2 KiB · 2.4 s`.
///
/// It appears only when enabled (stderr is a terminal and `--quiet` was not given) and only once the work has taken
/// longer than `delay`, so quick runs never flicker. Any long task can feed it: ``handle(_:)`` takes fetch events,
/// and ``update(phase:pages:items:bytes:)`` takes figures from anything else (reading a large file, an archive).
/// Ctrl-C or SIGTERM while it ticks clears it before the process ends (``EndingSignals``).
final class ProgressLine: @unchecked Sendable {
    /// The figures shown; `nil` ones are left out.
    struct Figures: Equatable {
        var phase: String?
        var pages: Int?
        var items: Int?
        var bytes: Int?
    }

    private let lock = NSLock()
    private let label: String
    private let isEnabled: Bool
    private let width: Int
    private let delay: TimeInterval
    private let clock: @Sendable () -> TimeInterval
    private let write: @Sendable (String) -> Void
    private let started: TimeInterval
    private var figures = Figures()
    private var drawn = false
    private var finished = false
    private var timer: (any DispatchSourceTimer)?
    private var signals: EndingSignals?

    /// - Parameters:
    ///   - label: what the line is about, e.g. the provider's name.
    ///   - isEnabled: whether to draw at all (stderr is a terminal and not `--quiet`).
    ///   - width: the terminal's width; the line is cut to fit.
    ///   - delay: how long the work must take before the line appears.
    ///   - clock: seconds on a monotonic clock (tests inject their own).
    ///   - write: writes to stderr.
    init(
        label: String, isEnabled: Bool, width: Int, delay: TimeInterval = 1, clock: @escaping @Sendable () -> TimeInterval = ProgressLine.monotonic,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.label = label
        self.isEnabled = isEnabled
        self.width = width
        self.delay = delay
        self.clock = clock
        self.write = write
        started = clock()
    }

    /// The line for a CLI command: drawn on stderr when it is a terminal and `quiet` is false.
    static func forCommand(label: String, quiet: Bool, context: Context) -> ProgressLine {
        ProgressLine(
            label: label, isEnabled: context.terminal.stderrIsTerminal && !quiet, width: context.terminal.width,
            write: { context.console.err($0) })
    }

    /// Seconds since an arbitrary point, never going backwards.
    static let monotonic: @Sendable () -> TimeInterval = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Redraws the line every `interval` seconds until ``finish()``, so the time keeps moving while one step is slow,
    /// and clears it if SIGINT or SIGTERM ends the process meanwhile.
    func startTicking(interval: TimeInterval = 0.2) {
        guard isEnabled else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.tick() }
        let signals = EndingSignals { [weak self] in self?.finish() }
        lock.lock()
        self.timer = timer
        self.signals = signals
        lock.unlock()
        timer.resume()
    }

    /// Takes the figures a fetch reports.
    func handle(_ event: FetchEvent) {
        switch event.kind {
        case .fetchingPage(let number): update(phase: "fetching page \(number)")
        case .pageRead(let pages, let items): update(pages: pages, items: items)
        case .response(_, let bytes, _): add(bytes: bytes)
        case .retrying(let seconds, _, _, _): update(phase: "retrying in \(String(format: "%.1f", seconds)) s")
        case .waitingForRateLimit(let seconds, let budget): update(phase: RunTools.waitText(seconds: seconds, budget: budget))
        default: break
        }
    }

    /// Sets the given figures (the others stay) and redraws when the line is due.
    func update(phase: String? = nil, pages: Int? = nil, items: Int? = nil, bytes: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let phase { figures.phase = phase }
        if let pages { figures.pages = pages }
        if let items { figures.items = items }
        if let bytes { figures.bytes = bytes }
        drawIfDue()
    }

    /// Adds to the byte count.
    func add(bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        figures.bytes = (figures.bytes ?? 0) + bytes
        drawIfDue()
    }

    /// Redraws the line when it is due (the timer calls this).
    func tick() {
        lock.lock()
        defer { lock.unlock() }
        drawIfDue()
    }

    /// Clears the line while `body` prints a message (a warning), then draws it again below.
    func printAbove(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if drawn { write("\r\u{1B}[2K") }
        drawn = false
        body()
        drawIfDue()
    }

    /// Stops the line and clears it, so what follows prints on a clean line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        timer?.cancel()
        timer = nil
        signals?.cancel()
        signals = nil
        if drawn { write("\r\u{1B}[2K") }
        drawn = false
    }

    /// `tmdb: fetching page 3 · 2 pages · 40 items · 31.2 KiB · 2.4 s`, cut to `width`.
    static func text(label: String, figures: Figures, elapsed: TimeInterval, width: Int) -> String {
        var parts: [String] = []
        if let phase = figures.phase { parts.append(phase) }
        if let pages = figures.pages { parts.append("\(pages) page\(pages == 1 ? "" : "s")") }
        if let items = figures.items { parts.append("\(items) item\(items == 1 ? "" : "s")") }
        if let bytes = figures.bytes { parts.append(ByteCount.describe(bytes)) }
        parts.append(String(format: "%.1f s", elapsed))
        return TextLayout.truncate("\(label): " + parts.joined(separator: " · "), to: max(1, width - 1))
    }

    private func drawIfDue() {
        guard isEnabled, !finished else { return }
        let elapsed = clock() - started
        guard elapsed >= delay else { return }
        write("\r\u{1B}[2K" + Self.text(label: label, figures: figures, elapsed: elapsed, width: width))
        drawn = true
    }
}
