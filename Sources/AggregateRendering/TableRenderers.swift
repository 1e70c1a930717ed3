public import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// One row per item, with the unified fields as columns: the shape shared by CSV, Markdown and the `--fields`
/// text view.
public struct ItemTable: Sendable, Equatable {
    /// The fields shown when `--fields` is not given: every field of ``Item/Field`` but `extra`, with `metrics`
    /// last because the number of its columns varies, so the fixed columns keep their places.
    public static let defaultFields: [ItemFieldPath] =
        Item.Field.allCases.filter { $0 != .extra && $0 != .metrics }.map { ItemFieldPath($0) } + [ItemFieldPath(.metrics)]

    /// Column names.
    public var columns: [String]
    /// Cell texts, one array per item, aligned with `columns` (empty when unknown).
    public var rows: [[String]]

    /// A table of any columns and cell texts, e.g. a SQL statement's rows (`aggregate sql`).
    public init(columns: [String], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The table of every item of every successful result, with the columns of `fields`: a whole `location` is a
    /// `city`, `country`, `latitude` and `longitude` column, a whole `metrics` one `metric_<name>` column per metric
    /// present, a part (`metrics.stars`) one column named as given.
    /// - Parameter fields: the columns; `nil` uses the first result's `--fields` selection, else ``defaultFields``.
    public init(_ results: [ProviderResult], fields: [ItemFieldPath]? = nil) {
        let items = results.flatMap(\.items)
        let fields = fields ?? results.first?.meta.selectedFields ?? Self.defaultFields
        let metricNames = Set(items.flatMap(\.metrics.keys)).sorted()
        var header: [String] = []
        var paths: [ItemFieldPath] = []
        for field in fields {
            switch (field.field, field.part) {
            case (.location, nil):
                for part in Item.Field.location.parts ?? [] {
                    header.append(part)
                    paths.append(ItemFieldPath(.location, part: part))
                }
            case (.metrics, nil):
                for name in metricNames {
                    header.append("metric_\(name)")
                    paths.append(ItemFieldPath(.metrics, part: name))
                }
            default:
                header.append(field.description)
                paths.append(field)
            }
        }
        columns = header
        rows = items.map { item in
            let json = item.jsonValue
            return paths.map { Self.cellText($0.value(in: json)) }
        }
    }

    /// A value as one cell: text as it is, numbers as JSON writes them, lists joined with `;`, objects as JSON.
    static func cellText(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let text)?: return text
        case .number(let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        case .array(let elements)?: return elements.map { cellText($0) }.joined(separator: ";")
        case .object(let members)?: return JSONWriter().string(.object(members))
        }
    }

    /// RFC 4180 CSV: a header row, CRLF line ends, fields quoted when they hold a comma, quote, CR or LF
    /// (quotes doubled).
    public var csv: String {
        ([columns] + rows).map { $0.map(Self.csvField).joined(separator: ",") + "\r\n" }.joined()
    }

    /// A GitHub-flavoured Markdown table; `|` and backslashes are escaped and line breaks become `<br>`.
    public var markdown: String {
        var lines = ["| " + columns.map(Self.markdownCell).joined(separator: " | ") + " |"]
        lines.append("|" + columns.map { _ in " --- |" }.joined())
        lines += rows.map { "| " + $0.map(Self.markdownCell).joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n") + "\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func markdownCell(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\r\n", with: "<br>")
            .replacingOccurrences(of: "\n", with: "<br>")
            .replacingOccurrences(of: "\r", with: "<br>")
    }
}

extension ItemTable {
    /// The `--fields` text view: the columns side by side under their names, each cut so the table fits `width`.
    public func text(width: Int) -> String {
        let gap = 2
        var widths = columns.indices.map { column in
            min(60, ([columns[column]] + rows.map { $0[column] }).map { TextLayout.width(Self.oneLine($0)) }.max() ?? 0)
        }
        // Narrow the widest column, one step at a time, until the table fits (or every column is down to 6).
        while widths.reduce(0, +) + gap * max(0, widths.count - 1) > width,
              let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 6 {
            widths[widest] -= 1
        }
        func line(_ cells: [String]) -> String {
            var text = zip(cells, widths).map { TextLayout.pad(TextLayout.truncate(Self.oneLine($0), to: $1), to: $1) }
                .joined(separator: String(repeating: " ", count: gap))
            while text.hasSuffix(" ") { text.removeLast() }
            return text + "\n"
        }
        return line(columns) + rows.map(line).joined()
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
