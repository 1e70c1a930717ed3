import Foundation

/// Fitting text into terminal columns, counting wide characters (CJK, emoji) as two columns.
public enum TextLayout {
    /// The number of terminal columns `text` takes.
    public static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// The columns one character takes: 0 for combining marks and controls, 2 for wide characters.
    public static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.value < 0x20 { return 0 }
        if first.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` on one line, cut to `columns` with `…` when it is longer.
    public static func truncate(_ text: String, to columns: Int) -> String {
        // Flattening and measuring go a character at a time (grapheme breaking: about a hundred instructions a byte),
        // so a long text is first cut from a prefix a little wider than the line: an outline shows the first columns
        // of strings that can be megabytes long. The prefix's result is the text's whenever measuring stops before the
        // prefix's last character, the only one that what follows it can change.
        let sample = text.prefix(max(columns, 0) * 2 + 64)
        if sample.endIndex < text.endIndex, let cut = cut(flatten(sample), to: columns, whole: false) { return cut }
        return cut(flatten(text), to: columns, whole: true) ?? ""
    }

    /// The text on one line: each run of line breaks becomes one space, and leading and trailing ones go.
    private static func flatten(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// ``truncate(_:to:)`` of the flattened text; `nil` when `flat` is not the `whole` text and measuring reached its
    /// last character.
    private static func cut(_ flat: String, to columns: Int, whole: Bool) -> String? {
        // Characters are measured only until the text is known to be too wide, however long it is.
        var used = 0
        var cut: String.Index?
        var index = flat.startIndex
        while index < flat.endIndex, used <= columns {
            let characterWidth = width(of: flat[index])
            // The first character that does not fit before the ellipsis: the kept text ends before it.
            if cut == nil, used + characterWidth > columns - 1 { cut = index }
            used += characterWidth
            index = flat.index(after: index)
        }
        if !whole, index == flat.endIndex { return nil }
        guard used > columns else { return flat }
        // With two columns or more, measuring ran past the first character that does not fit: `cut` is set.
        guard columns > 1, let cut else { return columns == 1 ? "…" : "" }
        var result = String(flat[..<cut])
        while result.last == " " { result.removeLast() }
        return result + "…"
    }

    /// `text` wrapped at word boundaries into lines of at most `columns`, each after `indent`.
    /// Words longer than a line are split. Existing line breaks are kept.
    public static func wrap(_ text: String, width columns: Int, indent: String = "") -> [String] {
        let available = max(10, columns - width(indent))
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var remaining = String(word)
                while !remaining.isEmpty {
                    let wordWidth = width(remaining)
                    let needed = lineWidth == 0 ? wordWidth : lineWidth + 1 + wordWidth
                    if needed <= available {
                        line += lineWidth == 0 ? remaining : " " + remaining
                        lineWidth = needed
                        remaining = ""
                    } else if lineWidth > 0 {
                        lines.append(indent + line)
                        line = ""
                        lineWidth = 0
                    } else {
                        // A word longer than a whole line: split it.
                        var piece = ""
                        var pieceWidth = 0
                        var rest = Substring(remaining)
                        while let character = rest.first, pieceWidth + width(of: character) <= available {
                            piece.append(character)
                            pieceWidth += width(of: character)
                            rest = rest.dropFirst()
                        }
                        if piece.isEmpty, let character = rest.first {
                            piece.append(character)
                            rest = rest.dropFirst()
                        }
                        lines.append(indent + piece)
                        remaining = String(rest)
                    }
                }
            }
            lines.append(indent + line)
        }
        // Drop trailing blank lines produced by a trailing newline.
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty, lines.count > 1 { lines.removeLast() }
        return lines
    }

    /// `text` padded with spaces to `columns` (cut first when longer).
    public static func pad(_ text: String, to columns: Int) -> String {
        let fitted = truncate(text, to: columns)
        return fitted + String(repeating: " ", count: max(0, columns - width(fitted)))
    }
}
