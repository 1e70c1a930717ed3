import Foundation

/// One row per item, with the unified fields as columns: the shape shared by CSV and Markdown output.
public struct ItemTable: Sendable, Equatable {
    /// The fixed columns, in order; `metric_<name>` columns follow for every metric present.
    public static let fixedColumns = [
        "provider", "kind", "id", "title", "subtitle", "summary", "url", "imageUrl", "author", "createdAt",
        "city", "country", "latitude", "longitude", "tags",
    ]

    /// Column names.
    public var columns: [String]
    /// Cell texts, one array per item, aligned with `columns` (empty when unknown).
    public var rows: [[String]]

    /// The table of every item of every successful result.
    public init(_ results: [ProviderResult]) {
        let items = results.flatMap(\.items)
        let metricNames = Set(items.flatMap(\.metrics.keys)).sorted()
        columns = Self.fixedColumns + metricNames.map { "metric_\($0)" }
        rows = items.map { item in
            var row = [
                item.provider, item.kind, item.id, item.title, item.subtitle ?? "", item.summary ?? "", item.url ?? "",
                item.imageUrl ?? "", item.author ?? "", item.createdAt.map(ISO8601.string) ?? "",
                item.location?.city ?? "", item.location?.country ?? "",
                item.location?.latitude.map(JSONNumberFormat.text) ?? "", item.location?.longitude.map(JSONNumberFormat.text) ?? "",
                item.tags.joined(separator: ";"),
            ]
            row += metricNames.map { name in item.metrics[name].map(JSONNumberFormat.text) ?? "" }
            return row
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
