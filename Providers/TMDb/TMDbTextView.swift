import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateText
import Foundation

/// The text views: one line per movie for lists, a detail view for `movie`.
enum TMDbTextView {
    /// How many cast members the detail view lists when `--limit` is not given.
    static let defaultCastLines = 10

    /// `The Amazing Spider-Man (2012)  ★ 6.6  Action, Adventure — overview…`, cut to the width.
    static func listLine(_ item: Item, style: TextStyle) -> String {
        let head = titleWithYear(item)
        var line = head
        if let rating = item.metrics["voteAverage"] { line += "  ★ " + oneDecimal(rating) }
        if !item.tags.isEmpty { line += "  " + item.tags.joined(separator: ", ") }
        if let summary = item.summary { line += " — " + summary }
        let plain = TextLayout.truncate(line, to: style.width)
        guard style.color, plain.hasPrefix(head) else { return plain }
        return ANSI.bold(head, style) + plain.dropFirst(head.count)
    }

    /// Title and year, tagline, facts, overview wrapped to the width, then `Name as Character` per cast member.
    static func detail(_ item: Item, castLines: Int, style: TextStyle) -> String {
        let width = style.width
        var lines = [ANSI.bold(TextLayout.truncate(titleWithYear(item), to: width), style)]
        let originalTitle = item.extra["originalTitle"]?.string
        if let subtitle = item.subtitle, subtitle != originalTitle {
            lines.append(TextLayout.truncate(subtitle, to: width))
        }
        lines.append("")
        var facts: [(String, String)] = []
        if let originalTitle, originalTitle != item.title { facts.append(("Original", originalTitle)) }
        if let runtime = item.metrics["runtime"] { facts.append(("Runtime", duration(minutes: runtime))) }
        if !item.tags.isEmpty { facts.append(("Genres", item.tags.joined(separator: ", "))) }
        let directors = item.extra["directors"]?.array?.compactMap(\.string) ?? []
        if !directors.isEmpty { facts.append((directors.count == 1 ? "Director" : "Directors", directors.joined(separator: ", "))) }
        if let rating = item.metrics["voteAverage"] {
            let votes = item.metrics["voteCount"].map { " (\(grouped($0)) votes)" } ?? ""
            facts.append(("Rating", "★ \(oneDecimal(rating))\(votes)"))
        }
        let labelWidth = (facts.map { $0.0.count }.max() ?? 0) + 2
        for (label, value) in facts {
            let padded = label + String(repeating: " ", count: labelWidth - label.count)
            lines.append(ANSI.dim(padded, style) + TextLayout.truncate(value, to: max(1, width - labelWidth)))
        }
        if let summary = item.summary {
            if !facts.isEmpty { lines.append("") }
            lines += TextLayout.wrap(summary, width: width)
        }
        let cast = item.extra["cast"]?.array ?? []
        if !cast.isEmpty {
            lines += ["", ANSI.bold("Cast", style)]
            for member in cast.prefix(castLines) {
                lines.append(TextLayout.truncate("  " + castLine(member), to: width))
            }
            if cast.count > castLines {
                lines.append(ANSI.dim("  … and \(cast.count - castLines) more (--limit \(cast.count) lists them all)", style))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Andrew Garfield as Peter Parker`, or the name alone when the character is not known.
    static func castLine(_ member: JSONValue) -> String {
        let name = member["name"]?.string ?? "?"
        guard let character = member["character"]?.nonEmptyString else { return name }
        return "\(name) as \(character)"
    }

    /// `Title (2012)`, or the title alone when the release date is unknown.
    static func titleWithYear(_ item: Item) -> String {
        guard let date = item.createdAt else { return item.title }
        return "\(item.title) (\(UTCTimestamp.parts(of: date).year))"
    }

    /// `6.6` from `6.641`: TMDb shows averages to one decimal.
    static func oneDecimal(_ value: Decimal) -> String {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 1, .plain)
        // Decimal's own text is plain notation with a '.', what `JSONNumberFormat.text(for:)` writes through the
        // POSIX locale; it spares loading ICU's number formatting for one rating.
        let text = rounded.description
        return text.contains(".") ? text : text + ".0"
    }

    /// `2 h 16 min` from 136.
    static func duration(minutes: Decimal) -> String {
        let total = NSDecimalNumber(decimal: minutes).intValue
        let hours = total / 60
        let rest = total % 60
        if hours == 0 { return "\(rest) min" }
        return rest == 0 ? "\(hours) h" : "\(hours) h \(rest) min"
    }

    /// `18,342` from 18342, whatever the user's locale.
    static func grouped(_ value: Decimal) -> String {
        NSDecimalNumber(decimal: value).int64Value.formatted(.number.locale(Locale(identifier: "en_US")))
    }
}
