import AggregateCore
import AggregateRendering
import AggregateText
import Foundation

/// The text view: one entry per post, `@handle · 2025-11-28 21:40 — text`, the text wrapped (never cut) to the
/// terminal width, continuation lines indented by two spaces. Times are UTC, so the view is the same everywhere.
enum TwitterTextView {
    static let indent = "  "

    static func render(_ items: [Item], style: TextStyle) -> String {
        items.map { entry($0, style: style) }.joined()
    }

    static func entry(_ item: Item, style: TextStyle) -> String {
        let handle = item.author.flatMap { $0.split(separator: " ").first.map(String.init) } ?? "@?"
        let when = item.createdAt.map { date in " · " + minuteFormatter.withLock { $0.string(from: date) } } ?? ""
        let text = "\(handle)\(when) — \(compactLines(item.title))"
        var lines = TextLayout.wrap(text, width: style.width, indent: indent)
        if let first = lines.first { lines[0] = String(first.dropFirst(indent.count)) }
        if style.color, let first = lines.first, first.hasPrefix(handle) {
            lines[0] = ANSI.bold(handle, style) + first.dropFirst(handle.count)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text with blank lines dropped, so an entry never contains an empty line.
    static func compactLines(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    static let minuteFormatter = LockedFormatter(ISO8601.utcFormatter(format: "yyyy-MM-dd HH:mm"))
}
