import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateText
import Foundation

/// A live status line per invocation on stderr (waiting, fetching page n, retrying in N s, done, failed),
/// redrawn in place. Used only when stderr is a terminal and `--quiet` is not given. Ctrl-C or SIGTERM clears the
/// lines before the process ends (``EndingSignals``).
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let console: Console
    private let labels: [String]
    private var states: [String]
    private var drawn = false
    private let width: Int
    private var signals: EndingSignals?

    init(labels: [String], console: Console, width: Int) {
        self.labels = labels
        self.console = console
        self.width = width
        states = Array(repeating: "waiting", count: labels.count)
    }

    /// The status text an event leads to, or `nil` when it does not change the status.
    static func status(for event: FetchEvent.Kind) -> String? {
        switch event {
        case .fetchingPage(let number): return "fetching page \(number)"
        case .retrying(let seconds, let reason, _, _): return "retrying in \(String(format: "%.1f", seconds)) s (\(reason))"
        case .waitingForRateLimit(let seconds, let budget): return RunTools.waitText(seconds: seconds, budget: budget)
        case .finished(let items): return "done with \(items) item\(items == 1 ? "" : "s")"
        case .failed(let message): return "failed: \(message)"
        default: return nil
        }
    }

    func update(_ index: Int, _ event: FetchEvent.Kind) {
        guard let status = Self.status(for: event) else { return }
        lock.lock()
        defer { lock.unlock() }
        states[index] = status
        redraw()
    }

    func start() {
        // The terminal echoes Ctrl-C as `^C` on the line below the block: that line goes too.
        let signals = EndingSignals { [weak self] in self?.finish(clearingCurrentLine: true) }
        lock.lock()
        defer { lock.unlock() }
        self.signals = signals
        redraw()
    }

    /// Clears the status lines so the results print on a clean screen (and the line below them, where the cursor is,
    /// when `clearingCurrentLine`).
    func finish(clearingCurrentLine: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        signals?.cancel()
        signals = nil
        guard drawn else { return }
        var text = (clearingCurrentLine ? "\r\u{1B}[2K" : "") + "\u{1B}[\(labels.count)A"
        for _ in labels { text += "\u{1B}[2K\n" }
        text += "\u{1B}[\(labels.count)A"
        console.err(text)
        drawn = false
    }

    private func redraw() {
        var text = drawn ? "\u{1B}[\(labels.count)A" : ""
        for (label, state) in zip(labels, states) {
            text += "\u{1B}[2K" + TextLayout.truncate("\(label): \(state)", to: width - 1) + "\n"
        }
        console.err(text)
        drawn = true
    }
}
