package import AggregateCore
package import AggregateJSON
import AggregateText
import Foundation

/// The figures `aggregate compare` shows for one invocation.
package struct ComparisonRow: Sendable {
    /// The unified fields an item may lack, whose coverage is measured, in the contract's order (`extra` is
    /// provider-specific, so its coverage says nothing when comparing).
    package static let coverageFields = Item.Field.allCases.filter { ![.provider, .kind, .id, .title, .extra].contains($0) }.map(\.rawValue)

    package var invocation: String
    package var result: ProviderResult
    package var authStyle: String
    package var paginationStyle: String

    package init(invocation: String, result: ProviderResult, authStyle: String, paginationStyle: String) {
        self.invocation = invocation
        self.result = result
        self.authStyle = authStyle
        self.paginationStyle = paginationStyle
    }

    /// For each unified field, the share of items that have it (0...1); empty when there are no items.
    var coverage: [(field: String, share: Double)] {
        let items = result.items
        guard !items.isEmpty else { return [] }
        return Self.coverageFields.map { field in
            let count = items.filter { Self.has($0, field) }.count
            return (field, Double(count) / Double(items.count))
        }
    }

    static func has(_ item: Item, _ field: String) -> Bool {
        switch field {
        case "subtitle": return item.subtitle != nil
        case "summary": return item.summary != nil
        case "url": return item.url != nil
        case "imageUrl": return item.imageUrl != nil
        case "author": return item.author != nil
        case "createdAt": return item.createdAt != nil
        case "location": return item.location?.nonEmpty != nil
        case "metrics": return !item.metrics.isEmpty
        case "tags": return !item.tags.isEmpty
        default: return false
        }
    }

    func firstTitles(_ count: Int = 3) -> [String] { result.items.prefix(count).map(\.title) }

    /// The document `aggregate compare ... --format json` prints (and `POST /v1/compare` answers): every result,
    /// with the rows' figures as `comparison`.
    package static func json(_ rows: [ComparisonRow]) -> String {
        let comparison: JSONValue = ["invocations": .array(rows.map(\.jsonValue))]
        return ResultRenderer.json(rows.map(\.result), extra: [.init("comparison", comparison)])
    }

    package var jsonValue: JSONValue {
        [
            "invocation": .string(invocation),
            "provider": .string(result.provider),
            "operation": .string(result.operation),
            "status": .string(result.status),
            "items": .int(result.items.count),
            "requests": .int(result.meta.requests),
            "pages": .int(result.meta.pages),
            "bytes": .int(result.meta.bytes),
            "elapsedMs": .number(String(format: "%.1f", result.meta.elapsedMs)),
            "authStyle": .string(authStyle),
            "paginationStyle": .string(paginationStyle),
            "fieldCoverage": .object(JSONObject(coverage.map { .init($0.field, .number(String(format: "%.2f", $0.share))) })),
            "firstTitles": .array(firstTitles().map(JSONValue.string)),
            "error": .optional(result.error?.message),
        ]
    }
}

/// The text view of a comparison: columns side by side when the terminal is wide enough, stacked otherwise.
package enum ComparisonText {
    static let labelWidth = 16
    static let minimumColumn = 24

    package static func render(_ rows: [ComparisonRow], style: TextStyle) -> String {
        let columnWidth = rows.isEmpty ? 0 : (style.width - labelWidth) / rows.count - 2
        return columnWidth >= minimumColumn ? sideBySide(rows, columnWidth: columnWidth, style: style) : stacked(rows, style: style)
    }

    /// One column's cells, in row order, each wrapped to `width`. Errors are added by the caller.
    private static func cells(_ row: ComparisonRow, width: Int) -> [(label: String, lines: [String])] {
        let result = row.result
        var cells: [(label: String, lines: [String])] = [
            ("", [TextLayout.truncate(row.invocation, to: width)]),
            ("status", [result.error == nil ? "ok" : "failed"]),
            ("items", [String(result.items.count)]),
            ("requests/pages", ["\(result.meta.requests) / \(result.meta.pages)\(cacheNote(result))"]),
            ("received", [ByteCount.describe(result.meta.bytes)]),
            ("time", [milliseconds(result.meta.elapsedMs)]),
            ("auth", TextLayout.wrap(row.authStyle, width: width)),
            ("pagination", TextLayout.wrap(row.paginationStyle, width: width)),
        ]
        let coverage = row.coverage
        for field in ComparisonRow.coverageFields {
            let share = coverage.first { $0.field == field }?.share
            cells.append(("  " + field, [share.map { "\(Int(($0 * 100).rounded()))%" } ?? "–"]))
        }
        let titles = row.firstTitles()
        cells.append(("first titles", titles.isEmpty ? ["–"] : titles.map { TextLayout.truncate("• " + $0, to: width) }))
        return cells
    }

    private static func sideBySide(_ rows: [ComparisonRow], columnWidth: Int, style: TextStyle) -> String {
        let columns = rows.map { cells($0, width: columnWidth) }
        let errors = rows.map { $0.result.error.map { TextLayout.wrap($0.message, width: columnWidth) } ?? [] }
        var output = ""
        func emit(_ label: String, _ cellLines: [[String]]) {
            let height = cellLines.map(\.count).max() ?? 1
            for line in 0..<height {
                var text = TextLayout.pad(line == 0 ? label : "", to: labelWidth)
                for cell in cellLines {
                    let content = line < cell.count ? cell[line] : ""
                    // Padded by the plain text's width, so escape sequences never shift the columns.
                    text += paint(content, label: label, style) + String(TextLayout.pad(content, to: columnWidth).dropFirst(content.count)) + "  "
                }
                while text.hasSuffix(" ") { text.removeLast() }
                output += text + "\n"
            }
        }
        for (index, cell) in columns[0].enumerated() {
            if cell.label == "  " + ComparisonRow.coverageFields[0] { output += "field coverage\n" }
            emit(cell.label, columns.map { $0[index].lines })
            if cell.label == "status", errors.contains(where: { !$0.isEmpty }) { emit("error", errors) }
        }
        return output
    }

    /// A side-by-side cell with colour, when the style allows it: the invocations in bold, `ok` green, `failed` red.
    private static func paint(_ content: String, label: String, _ style: TextStyle) -> String {
        switch (label, content) {
        case (_, ""): return content
        case ("", _): return ANSI.bold(content, style)
        case ("status", "ok"): return ANSI.green(content, style)
        case ("status", "failed"): return ANSI.red(content, style)
        default: return content
        }
    }

    private static func stacked(_ rows: [ComparisonRow], style: TextStyle) -> String {
        let width = style.width
        return rows.map { row in
            let result = row.result
            var lines = TextLayout.wrap("== \(row.invocation)", width: width).map { ANSI.bold($0, style) }
            if let error = result.error {
                lines += TextLayout.wrap("failed: " + error.message, width: width).map { ANSI.red($0, style) }
            } else {
                lines += TextLayout.wrap("ok · \(result.items.count) items · \(result.meta.requests) requests\(cacheNote(result)), \(result.meta.pages) pages · \(ByteCount.describe(result.meta.bytes)) · \(milliseconds(result.meta.elapsedMs))", width: width)
            }
            lines += TextLayout.wrap("auth: \(row.authStyle)", width: width)
            lines += TextLayout.wrap("pagination: \(row.paginationStyle)", width: width)
            let coverage = row.coverage.map { "\($0.field) \(Int(($0.share * 100).rounded()))%" }
            if !coverage.isEmpty { lines += TextLayout.wrap("coverage: " + coverage.joined(separator: " · "), width: width) }
            lines += row.firstTitles().map { TextLayout.truncate("• " + $0, to: width) }
            return lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// ` (cache)` or ` (revalidated)` when the disk cache answered, so 0 requests is not mistaken for nothing done.
    static func cacheNote(_ result: ProviderResult) -> String {
        [.cache, .revalidated].contains(result.meta.source) ? " (\(result.meta.source.rawValue))" : ""
    }

    static func milliseconds(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.2f s", value / 1000) : "\(Int(value.rounded())) ms"
    }
}
