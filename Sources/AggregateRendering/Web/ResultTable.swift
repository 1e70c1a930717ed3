import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// A result's items as an HTML table: the title linked to the item's page, its subtitle, author, creation time,
/// thumbnail and metrics. Item text comes from the APIs, so all of it is escaped, and only http(s) URLs become links
/// or images (``CompareHTMLReport/safeLink(_:)``).
enum ResultTable {
    static func html(_ items: [Item]) -> String {
        guard !items.isEmpty else { return "<p class=\"muted\">No items.</p>\n" }
        let escape = CompareHTMLReport.escape
        let hasImages = items.contains { CompareHTMLReport.safeLink($0.imageUrl) != nil }
        let hasAuthors = items.contains { $0.author != nil }
        let hasDates = items.contains { $0.createdAt != nil }
        let hasMetrics = items.contains { !$0.metrics.isEmpty }
        var html = "<div class=\"scroll\">\n<table class=\"results\">\n<caption>\(items.count) item\(items.count == 1 ? "" : "s")</caption>\n<thead><tr>"
        html += "<th scope=\"col\">#</th>"
        if hasImages { html += "<th scope=\"col\">image</th>" }
        html += "<th scope=\"col\">title</th>"
        if hasAuthors { html += "<th scope=\"col\">author</th>" }
        if hasDates { html += "<th scope=\"col\">created</th>" }
        if hasMetrics { html += "<th scope=\"col\">metrics</th>" }
        html += "</tr></thead>\n<tbody>\n"
        for (index, item) in items.enumerated() {
            html += "<tr><td class=\"num\">\(index + 1)</td>"
            if hasImages {
                // The item's own picture, loaded from its host without a referrer; alt is empty because the title
                // beside it says what it shows.
                html += "<td>" + (CompareHTMLReport.safeLink(item.imageUrl).map {
                    "<img src=\"\($0)\" alt=\"\" width=\"48\" height=\"48\" loading=\"lazy\" referrerpolicy=\"no-referrer\">"
                } ?? "") + "</td>"
            }
            let title = escape(item.title.isEmpty ? "(untitled)" : TextLayout.truncate(item.title, to: 200))
            html += "<td><div class=\"title\">"
            html += CompareHTMLReport.safeLink(item.url).map { "<a href=\"\($0)\" rel=\"noreferrer\">\(title)</a>" } ?? title
            html += "</div>"
            // The subtitle, or else the start of the summary: a second line says what the item is.
            if let line = item.subtitle ?? item.summary { html += "<div class=\"sub\">\(escape(TextLayout.truncate(line, to: 160)))</div>" }
            html += "</td>"
            if hasAuthors { html += "<td>\(escape(item.author ?? ""))</td>" }
            if hasDates {
                html += "<td>" + (item.createdAt.map { date in
                    let text = ISO8601.string(from: date)
                    // Many APIs give only a day (a release date), read as midnight UTC: then the day alone.
                    let shown = text.hasSuffix("T00:00:00Z")
                        ? String(text.prefix(10)) : text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
                    return "<time datetime=\"\(escape(text))\">\(escape(shown))</time>"
                } ?? "") + "</td>"
            }
            if hasMetrics {
                html += "<td>" + (item.metrics.isEmpty ? "" : "<ul class=\"metrics\">" + item.metrics.sorted { $0.key < $1.key }.map {
                    "<li>\(escape($0.key)) <strong>\(escape(JSONNumberFormat.text(for: $0.value)))</strong></li>"
                }.joined() + "</ul>") + "</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</div>\n"
    }
}
