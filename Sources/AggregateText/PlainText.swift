import Foundation

/// Turns API text into plain text: HTML tags removed, entities decoded, whitespace collapsed.
public enum PlainText {
    /// `html` as plain text on one line, or `nil` when nothing is left.
    ///
    /// `<p>Meet <b>locals</b>&nbsp;&amp; friends</p>` becomes `Meet locals & friends`.
    public static func fromHTML(_ html: String?) -> String? {
        guard let html else { return nil }
        var text = ""
        text.reserveCapacity(html.count)
        var insideTag = false
        var insideComment = false
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if insideComment {
                if html[index...].hasPrefix("-->") {
                    insideComment = false
                    index = html.index(index, offsetBy: 3)
                    continue
                }
            } else if insideTag {
                if character == ">" { insideTag = false }
            } else if character == "<" {
                if html[index...].hasPrefix("<!--") {
                    insideComment = true
                } else if let next = html.index(index, offsetBy: 1, limitedBy: html.endIndex), next < html.endIndex,
                    html[next].isLetter || html[next] == "/" || html[next] == "!"
                {
                    insideTag = true
                    // Block tags separate words; inline ones (<a>, <b>, <span>) must not split "show &amp; <b>tell</b>.".
                    if isBlockTag(html[next...]) { text.append(" ") }
                } else {
                    text.append(character)
                }
            } else {
                text.append(character)
            }
            index = html.index(after: index)
        }
        return collapseWhitespace(decodeEntities(text))
    }

    private static let blockTags: Set<String> = [
        "p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "table", "blockquote",
        "pre", "hr", "section", "article", "header", "footer", "dd", "dt", "dl",
    ]

    /// Whether the tag starting at `rest` (just after `<`) is a block-level tag.
    private static func isBlockTag(_ rest: Substring) -> Bool {
        let name = rest.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }).lowercased()
        return blockTags.contains(name)
    }

    /// `text` with runs of whitespace (including non-breaking spaces and newlines) turned into one space,
    /// trimmed; `nil` when empty.
    public static func collapseWhitespace(_ text: String?) -> String? {
        guard let text else { return nil }
        if isCollapsed(text) { return text }
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{00A0}" })
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// Whether `text` is already what ``collapseWhitespace(_:)`` makes of it: not empty, single spaces between
    /// words, no other whitespace. Checked on the bytes, so the usual case costs no splitting.
    private static func isCollapsed(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return false }
            var previous: UInt8 = 0
            for index in bytes.indices {
                let byte = bytes[index]
                if byte < 0x20 || (byte == 0x20 && previous == 0x20) { return false }
                // Whitespace above ASCII: U+0085, U+00A0 (C2 85, C2 A0), U+1680 (E1 9A 80), U+2000–U+200A, U+2028,
                // U+2029, U+202F (E2 80 80–8A, A8, A9, AF), U+205F (E2 81 9F) and U+3000 (E3 80 80).
                if byte >= 0xC2, byte <= 0xE3, index + 1 < bytes.count {
                    let second = bytes[index + 1]
                    let third = index + 2 < bytes.count ? bytes[index + 2] : 0
                    switch byte {
                    case 0xC2 where second == 0x85 || second == 0xA0: return false
                    case 0xE1 where second == 0x9A && third == 0x80: return false
                    case 0xE2 where second == 0x80 && ((0x80...0x8A).contains(third) || [0xA8, 0xA9, 0xAF].contains(third)): return false
                    case 0xE2 where second == 0x81 && third == 0x9F: return false
                    case 0xE3 where second == 0x80 && third == 0x80: return false
                    default: break
                    }
                }
                previous = byte
            }
            return true
        }
    }

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "ndash": "–", "mdash": "—",
        "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "copy": "©", "reg": "®", "trade": "™",
        "eacute": "é", "egrave": "è", "aacute": "á", "agrave": "à", "oacute": "ó", "uacute": "ú", "iacute": "í",
        "ntilde": "ñ", "ccedil": "ç", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß", "euro": "€", "pound": "£",
        "bull": "•", "middot": "·", "laquo": "«", "raquo": "»", "deg": "°",
    ]

    /// `text` with HTML character references (`&amp;`, `&#39;`, `&#x1F600;`) decoded; unknown ones are kept.
    public static func decodeEntities(_ text: String) -> String {
        // Bytes, with `memchr` where the string is contiguous (native strings are): `String.contains(String)` goes
        // through NSString, and a byte loop was a fortieth of an archive's time.
        let ampersand = UInt8(ascii: "&")
        let hasReference = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(ampersand), bytes.count) != nil
        } ?? text.utf8.contains(ampersand)
        guard hasReference else { return text }
        var output = ""
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index] == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") else {
                output.append(text[index])
                index = text.index(after: index)
                continue
            }
            let name = text[text.index(after: index)..<semicolon]
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                replacement = namedEntities[String(name)]
            }
            if let replacement {
                output += replacement
                index = text.index(after: semicolon)
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }
}
