public import AggregateCore
public import AggregateJSON
import AggregateText
import Foundation

/// The output formats every command accepts with `--format`.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// A readable list sized to the terminal (the default).
    case text
    /// One JSON document: `{"schemaVersion": 1, "results": [...]}`.
    case json
    /// One item per line as JSON.
    case ndjson
    /// One row per item, RFC 4180.
    case csv
    /// A Markdown table, one row per item.
    case markdown
}

extension OutputFormat {
    /// The format a `--format` value names (any case).
    /// - Throws: a `usage` error listing the formats.
    public init(option text: String) throws(AggregateError) {
        guard let value = OutputFormat(rawValue: text.lowercased()) else {
            let names = OutputFormat.allCases.map(\.rawValue)
            throw AggregateError(.usage, "--format must be one of \(names.joined(separator: ", ")), not '\(text)'\(DidYouMean.suffix(for: text, among: names))")
        }
        self = value
    }
}

/// Renders results in the machine-readable formats.
public enum ResultRenderer {
    /// The `--format json` document, pretty-printed, ending with a newline.
    public static func json(_ results: [ProviderResult], extra: [JSONObject.Member] = []) -> String {
        JSONWriter(pretty: true).string(ResultDocument.jsonValue(results, extra: extra)) + "\n"
    }

    /// The `--format csv` table of every item.
    public static func csv(_ results: [ProviderResult]) -> String { ItemTable(results).csv }

    /// The `--format markdown` table of every item.
    public static func markdown(_ results: [ProviderResult]) -> String { ItemTable(results).markdown }

    /// The `--format ndjson` lines: every item of every successful result, one compact JSON object per line.
    public static func ndjson(_ results: [ProviderResult]) -> String {
        let writer = JSONWriter()
        var output: [UInt8] = []
        for result in results {
            for item in result.items {
                writer.append(result.itemJSON(item), to: &output)
                output.append(0x0A)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Text views shared by providers.
public enum TextRenderer {
    /// The text view of a successful result: `provider`'s own when it has one, else the generic list.
    public static func view(of result: ProviderResult, by provider: any RunnableProvider, style: TextStyle) -> String {
        provider.textView(result, style: style) ?? genericList(result.items, style: style)
    }

    /// One line per item: `title — subtitle — summary`, cut to the width.
    public static func genericList(_ items: [Item], style: TextStyle) -> String {
        items.map { item in
            let parts = [item.title, item.subtitle, item.summary].compactMap { $0 }.filter { !$0.isEmpty }
            return oneLine(parts, style: style) + "\n"
        }.joined()
    }

    /// `parts` joined with ` — ` and cut to the style's width, the first part in bold.
    public static func oneLine(_ parts: [String], style: TextStyle) -> String {
        let plain = TextLayout.truncate(parts.joined(separator: " — "), to: style.width)
        guard style.color, let first = parts.first, plain.hasPrefix(first) else { return plain }
        return ANSI.bold(first, style) + plain.dropFirst(first.count)
    }

    /// The line shown when a successful result has no items.
    public static func noItems(provider: String) -> String { "(no results from \(provider))\n" }
}
