package import AggregateCore
import AggregateText
import Foundation

/// `aggregate compare ... --format html`: one self-contained page (inline CSS and SVG, no scripts, nothing loaded
/// from the network) with a card per invocation, a bar chart of time and bytes, a heat map of field coverage and
/// the first items. Colours follow the reader's light or dark preference, at WCAG AA contrast.
package enum CompareHTMLReport {
    /// How many items each invocation lists.
    static let itemsShown = 5

    package static func render(_ rows: [ComparisonRow]) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>aggregate compare: \(escape(rows.map(\.result.provider).joined(separator: ", ")))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>aggregate compare</h1>
            <p class="muted">\(escape(tally(rows)))</p>
            </header>
            <main>

            """
        html += sections(rows)
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    /// `5 invocations: 4 succeeded, 1 failed.`
    package static func tally(_ rows: [ComparisonRow]) -> String {
        let succeeded = rows.filter { $0.result.error == nil }.count
        return "\(rows.count) invocation\(rows.count == 1 ? "" : "s"): \(succeeded) succeeded, \(rows.count - succeeded) failed."
    }

    /// The report's content, which `aggregate serve`'s compare view shows too: a card per invocation, the charts of
    /// time and bytes, the field-coverage heat map and the first items.
    package static func sections(_ rows: [ComparisonRow]) -> String {
        var html = "<section aria-labelledby=\"cards-title\">\n<h2 id=\"cards-title\">Invocations</h2>\n<div class=\"cards\">\n"
        for row in rows { html += card(row) }
        html += "</div>\n</section>\n"
        html += chartSection(rows)
        html += heatMapSection(rows)
        html += itemsSection(rows)
        return html
    }

    // MARK: - Cards

    /// One invocation's outcome: ok or failed, the error line, and its items, requests, pages, bytes, time, auth
    /// and pagination (the web page shows it for a query's result too).
    package static func card(_ row: ComparisonRow) -> String {
        let result = row.result
        let ok = result.error == nil
        var html = "<article class=\"card \(ok ? "ok" : "failed")\">\n<h3><code>\(escape(row.invocation))</code></h3>\n"
        html += "<p class=\"status\"><span class=\"badge\">\(ok ? "ok" : "failed")</span></p>\n"
        if let error = result.error {
            html += "<p class=\"error\" role=\"alert\">\(errorLine(error))</p>\n"
        }
        let facts: [(String, String)] = [
            ("items", String(result.items.count)),
            ("requests", String(result.meta.requests) + ComparisonText.cacheNote(result)),
            ("pages", String(result.meta.pages)),
            ("received", ByteCount.describe(result.meta.bytes)),
            ("time", ComparisonText.milliseconds(result.meta.elapsedMs)),
            ("auth", row.authStyle),
            ("pagination", row.paginationStyle),
        ]
        html += "<dl>\n" + facts.map { "<dt>\($0.0)</dt><dd>\(escape($0.1))</dd>\n" }.joined() + "</dl>\n</article>\n"
        return html
    }

    // MARK: - Bar chart

    private static func chartSection(_ rows: [ComparisonRow]) -> String {
        var html = "<section aria-labelledby=\"chart-title\">\n<h2 id=\"chart-title\">Time and bytes</h2>\n<div class=\"charts\">\n"
        html += barChart(
            id: "time", title: "Time per invocation", rows: rows, value: { $0.result.meta.elapsedMs },
            label: { ComparisonText.milliseconds($0.result.meta.elapsedMs) }, barClass: "bar-time")
        html += barChart(
            id: "bytes", title: "Bytes received per invocation", rows: rows, value: { Double($0.result.meta.bytes) },
            label: { ByteCount.describe($0.result.meta.bytes) }, barClass: "bar-bytes")
        return html + "</div>\n</section>\n"
    }

    /// A horizontal bar chart in SVG: one bar per invocation, scaled to the largest value.
    private static func barChart(
        id: String, title: String, rows: [ComparisonRow], value: (ComparisonRow) -> Double, label: (ComparisonRow) -> String, barClass: String
    ) -> String {
        let labelWidth = 230.0, barSpace = 300.0, valueWidth = 90.0, rowHeight = 28.0, top = 8.0
        let width = labelWidth + barSpace + valueWidth
        let height = top * 2 + rowHeight * Double(max(rows.count, 1))
        let largest = max(rows.map(value).max() ?? 0, 1)
        var svg = """
            <figure>
            <svg viewBox="0 0 \(format(width)) \(format(height))" width="\(format(width))" height="\(format(height))" role="img" aria-labelledby="\(id)-title">
            <title id="\(id)-title">\(escape(title))</title>

            """
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * Double(index)
            let length = max(value(row) / largest * barSpace, value(row) > 0 ? 2 : 0)
            svg += """
                <text class="chart-label" x="\(format(labelWidth - 8))" y="\(format(y + 18))" text-anchor="end">\(escape(TextLayout.truncate(row.invocation, to: 30)))</text>
                <rect class="\(barClass)" x="\(format(labelWidth))" y="\(format(y + 5))" width="\(format(length))" height="\(format(rowHeight - 10))" rx="3"><title>\(escape("\(row.invocation): \(label(row))"))</title></rect>
                <text class="chart-value" x="\(format(labelWidth + length + 6))" y="\(format(y + 18))">\(escape(label(row)))</text>

                """
        }
        return svg + "</svg>\n<figcaption>\(escape(title))</figcaption>\n</figure>\n"
    }

    // MARK: - Heat map

    private static func heatMapSection(_ rows: [ComparisonRow]) -> String {
        var html = """
            <section aria-labelledby="coverage-title">
            <h2 id="coverage-title">Field coverage</h2>
            <p class="muted">The share of each invocation's items that have the field.</p>
            <div class="scroll">
            <table class="heat">
            <thead><tr><th scope="col">field</th>
            """
        html += rows.map { "<th scope=\"col\"><code>\(escape(TextLayout.truncate($0.invocation, to: 28)))</code></th>" }.joined() + "</tr></thead>\n<tbody>\n"
        let coverages = rows.map(\.coverage)
        for field in ComparisonRow.coverageFields {
            html += "<tr><th scope=\"row\">\(field)</th>"
            for coverage in coverages {
                if let share = coverage.first(where: { $0.field == field })?.share {
                    let bucket = min(4, Int((share * 4).rounded()))
                    html += "<td class=\"h\(bucket)\">\(Int((share * 100).rounded()))%</td>"
                } else {
                    html += "<td class=\"none\">–</td>"
                }
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</div>\n</section>\n"
    }

    // MARK: - First items

    private static func itemsSection(_ rows: [ComparisonRow]) -> String {
        var html = "<section aria-labelledby=\"items-title\">\n<h2 id=\"items-title\">First items</h2>\n"
        for row in rows {
            html += "<h3><code>\(escape(row.invocation))</code></h3>\n"
            if let error = row.result.error {
                html += "<p class=\"error\">\(errorLine(error))</p>\n"
                continue
            }
            guard !row.result.items.isEmpty else {
                html += "<p class=\"muted\">No items.</p>\n"
                continue
            }
            html += "<ol class=\"items\">\n"
            for item in row.result.items.prefix(itemsShown) {
                let title = escape(item.title.isEmpty ? "(untitled)" : TextLayout.truncate(item.title, to: 120))
                html += "<li>" + (safeLink(item.url).map { "<a href=\"\($0)\">\(title)</a>" } ?? title)
                if let subtitle = item.subtitle { html += " <span class=\"muted\">\(escape(TextLayout.truncate(subtitle, to: 80)))</span>" }
                if let image = safeLink(item.imageUrl) { html += " <a class=\"image\" href=\"\(image)\">image</a>" }
                html += "</li>\n"
            }
            html += "</ol>\n"
        }
        return html + "</section>\n"
    }

    // MARK: - Helpers

    /// The error's one line as `aggregate` prints it (`Error: kiva: ...`), escaped.
    package static func errorLine(_ error: AggregateError) -> String {
        escape(error.diagnosticLine.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Text safe inside HTML elements and attribute values.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// An http(s) URL, escaped for an attribute; anything else (e.g. `javascript:`) is not linked.
    package static func safeLink(_ text: String?) -> String? {
        guard let text, let scheme = URL(string: text)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else { return nil }
        return escape(text)
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Light colours by default, dark ones when the reader prefers them; every text colour meets WCAG AA (4.5:1)
    /// against its background, and the bars 3:1.
    package static let style = """

        :root { --bg: #ffffff; --fg: #1a1a1a; --muted: #52595f; --card: #f6f8fa; --border: #d0d7de;
          --ok: #1a7f37; --failed: #b3261e; --time: #1f5fa8; --bytes: #9a3f12; --link: #0b57d0;
          --h0: #f6f8fa; --h0-fg: #1a1a1a; --h1: #dbeafe; --h1-fg: #1a1a1a; --h2: #93c5fd; --h2-fg: #0b1a33;
          --h3: #3b82f6; --h3-fg: #000000; --h4: #1d4ed8; --h4-fg: #ffffff; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9da7b3; --card: #161b22; --border: #30363d;
            --ok: #3fb950; --failed: #ff7b72; --time: #58a6ff; --bytes: #f0883e; --link: #79c0ff;
            --h0: #21262d; --h0-fg: #e6edf3; --h1: #1b3a5c; --h1-fg: #e6edf3; --h2: #1f5fa8; --h2-fg: #ffffff;
            --h3: #58a6ff; --h3-fg: #0d1117; --h4: #a5d6ff; --h4-fg: #0d1117; }
        }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 1200px; padding: 1.5rem; background: var(--bg); color: var(--fg);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        h1 { margin: 0 0 .25rem; font-size: 1.6rem; }
        h2 { margin: 2rem 0 .75rem; font-size: 1.25rem; border-bottom: 1px solid var(--border); padding-bottom: .25rem; }
        h3 { margin: 1rem 0 .5rem; font-size: 1rem; }
        code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
        a { color: var(--link); }
        .muted { color: var(--muted); }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 1rem; }
        .card { background: var(--card); border: 1px solid var(--border); border-left: 6px solid var(--ok);
          border-radius: 8px; padding: .75rem 1rem; }
        .card.failed { border-left-color: var(--failed); }
        .card h3 { margin-top: 0; word-break: break-word; }
        .badge { font-weight: 700; color: var(--ok); }
        .failed .badge, .error { color: var(--failed); }
        .error { font-weight: 600; word-break: break-word; }
        dl { display: grid; grid-template-columns: auto 1fr; gap: .15rem .75rem; margin: 0; }
        dt { color: var(--muted); }
        dd { margin: 0; }
        .charts { display: flex; flex-wrap: wrap; gap: 1.5rem; }
        figure { margin: 0; max-width: 100%; overflow-x: auto; }
        figcaption { color: var(--muted); font-size: .9rem; }
        svg text { fill: var(--fg); font-size: 12px; }
        .bar-time { fill: var(--time); }
        .bar-bytes { fill: var(--bytes); }
        .scroll { overflow-x: auto; }
        table.heat { border-collapse: collapse; }
        .heat th, .heat td { border: 1px solid var(--border); padding: .3rem .6rem; text-align: center; }
        .heat th[scope=row] { text-align: left; font-weight: 600; }
        .heat td.none { color: var(--muted); }
        .h0 { background: var(--h0); color: var(--h0-fg); }
        .h1 { background: var(--h1); color: var(--h1-fg); }
        .h2 { background: var(--h2); color: var(--h2-fg); }
        .h3 { background: var(--h3); color: var(--h3-fg); }
        .h4 { background: var(--h4); color: var(--h4-fg); }
        ol.items { margin: 0; padding-left: 1.5rem; }
        ol.items li { margin: .15rem 0; }
        a.image { font-size: .85em; }

        """
}
