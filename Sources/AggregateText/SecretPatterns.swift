package import Foundation

/// A redactor's expressions (AggregateCore's `Redactor`: per secret, its encodings matched in any letter case, then
/// its base64 forms), built from the secrets, compiled on first need, with a cheap test that proves a text holds no
/// match.
///
/// Compiling them is most of what a redactor costs (ICU's regular-expression engine starts up on the first one),
/// and most texts that pass through it (a URL, a title) hold no secret. ``mayMatch(_:in:)`` answers `false` only
/// when the expression cannot match anywhere in the text, so skipping the expression then changes nothing; when in
/// doubt (a secret or a text with characters whose case folding it does not model) it answers `true`.
package final class SecretPatterns: @unchecked Sendable {
    /// What is known of one secret without compiling anything.
    private struct Secret {
        var text: String
        /// The secret's bytes when it is ASCII without NUL (`nil` otherwise: every text may then hold it).
        var ascii: [UInt8]?
        /// The lower-case hexadecimal digits of its bytes (the pattern's last alternative).
        var hex: [UInt8]
        /// Its base64 forms, matched exactly.
        var base64: [String]
    }

    private let secrets: [Secret]
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private let lock = NSLock()
    /// Per expression (two per secret: encodings, base64), compiled or not yet (`nil`), or that failed (`.some(nil)`).
    private var compiled: [NSRegularExpression??]

    /// The expressions of `secrets`, each compiled when a text may hold a match.
    package init(_ secrets: [String]) {
        self.secrets = secrets.map { secret in
            Secret(
                text: secret, ascii: secret.utf8.allSatisfy { $0 > 0 && $0 < 0x80 } ? Array(secret.utf8) : nil,
                hex: secret.utf8.flatMap { [Self.hexDigits[Int($0 >> 4)], Self.hexDigits[Int($0 & 0xF)]] }, base64: Self.base64Forms(of: secret))
        }
        compiled = Array(repeating: nil, count: 2 * secrets.count)
    }

    /// The expressions' indices, in the order they are applied: per secret, its encodings, then its base64 forms.
    package var indices: Range<Int> { 0..<(2 * secrets.count) }

    /// Expression `index`, compiled now if it has not been; `nil` if it does not compile (it is then skipped, as
    /// before it was compiled lazily).
    package func expression(_ index: Int) -> NSRegularExpression? {
        lock.lock()
        defer { lock.unlock() }
        if let known = compiled[index] { return known }
        let secret = secrets[index / 2]
        let made = index % 2 == 0
            ? try? NSRegularExpression(pattern: Self.pattern(matchingEncodingsOf: secret.text), options: [.caseInsensitive])
            : try? NSRegularExpression(pattern: Self.base64Pattern(of: secret.text))
        compiled[index] = .some(made)
        return made
    }

    /// `text` with every match of each expression in turn replaced by `mask`; an expression that cannot match the
    /// text (``mayMatch(_:in:)``) is neither compiled nor run.
    package func replacingMatches(in text: String, with mask: String) -> String {
        var result = text
        for index in indices where mayMatch(index, in: result) {
            guard let expression = expression(index) else { continue }
            result = expression.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: NSRegularExpression.escapedTemplate(for: mask))
        }
        return result
    }

    /// Whether an expression matches somewhere in `text`.
    package func matches(_ text: String) -> Bool {
        indices.contains { index in
            guard mayMatch(index, in: text), let expression = expression(index) else { return false }
            return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    /// How many expressions have been compiled (for tests).
    package var compiledCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return compiled.filter { $0 != nil }.count
    }

    /// `false` when expression `index` matches nowhere in `text`.
    package func mayMatch(_ index: Int, in text: String) -> Bool {
        let secret = secrets[index / 2]
        let bytes = Array(text.utf8)
        if index % 2 == 1 { return secret.base64.contains { Self.contains(bytes, Array($0.utf8)) } }
        guard let ascii = secret.ascii, !Self.hasCaseFoldingToASCII(text) else { return true }
        if Self.contains(bytes, secret.hex, ignoringASCIICase: true) { return true }
        return Self.holdsEncodings(of: ascii, in: bytes)
    }

    /// `false` when `text` holds no `name=` of `names` (lower-case ASCII) at the start or after `?`, `&` or `;`, in
    /// any letter case (what the redactor's parameter pattern needs).
    package static func mayHoldParameter(named names: [[UInt8]], in text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "=")) else { return false }
        if hasCaseFoldingToASCII(text) { return true }
        for (equals, byte) in bytes.enumerated() where byte == UInt8(ascii: "=") {
            for name in names where equals >= name.count {
                let start = equals - name.count
                guard start == 0 || [UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: ";")].contains(bytes[start - 1]) else { continue }
                if zip(bytes[start..<equals], name).allSatisfy({ lower($0) == $1 }) { return true }
            }
        }
        return false
    }

    /// Whether `text` holds the bytes `literal` (e.g. `Bearer`), as they are.
    package static func contains(_ text: String, literal: String) -> Bool { contains(Array(text.utf8), Array(literal.utf8)) }

    // MARK: - The patterns

    /// A pattern for `secret`, to be matched in any letter case, in which every character may appear as itself or in
    /// any of its encodings, followed by the hexadecimal digits of the whole value's bytes.
    package static func pattern(matchingEncodingsOf secret: String) -> String {
        var characters = ""
        for scalar in secret.unicodeScalars {
            var forms = [NSRegularExpression.escapedPattern(for: String(scalar))]
            let bytes = Array(String(scalar).utf8)
            forms.append(bytes.map { "%" + hexPattern(UInt32($0), digits: 2) }.joined())
            forms.append(bytes.map { "%25" + hexPattern(UInt32($0), digits: 2) }.joined())
            forms.append("&#0*\(scalar.value);?")
            forms.append("&#x0*\(String(scalar.value, radix: 16));?")
            if let name = htmlNames[scalar] { forms.append("&\(name);") }
            if scalar == " " { forms.append("\\+") }
            switch scalar {
            case "/": forms.append("\\\\/")
            case "\"": forms.append("\\\\\"")
            case "\\": forms.append("\\\\\\\\")
            default: break
            }
            forms.append(String(scalar).utf16.map { "\\\\u" + hexPattern(UInt32($0), digits: 4) }.joined())
            characters += "(?:" + forms.joined(separator: "|") + ")"
        }
        let hex = secret.utf8.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        return characters + "|" + hex
    }

    /// The base64 forms of `secret`, standard and URL-safe: of the whole value (with or without padding), and the
    /// run of characters that only its bytes decide when it sits at any offset inside a longer value (`Bearer …`,
    /// `user:…`), whatever comes before and after it; runs shorter than six characters (a credential of four bytes
    /// at some offsets) are left out, as they would match ordinary base64.
    package static func base64Pattern(of secret: String) -> String {
        base64Forms(of: secret).map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
    }

    /// The literal forms ``base64Pattern(of:)`` matches, longest first.
    package static func base64Forms(of secret: String) -> [String] {
        let bytes = Array(secret.utf8)
        let standard = Data(bytes).base64EncodedString()
        // Base64 text is ASCII, so its characters are swapped byte by byte (no bridging to NSString).
        func mapped(_ text: String, _ swap: (UInt8) -> UInt8?) -> String { String(decoding: text.utf8.compactMap(swap), as: UTF8.self) }
        var forms = [standard, mapped(standard) { $0 == UInt8(ascii: "=") ? nil : $0 }]
        for offset in 0..<3 {
            // With `offset` bytes before it in its group of three, output characters first..<last are decided by
            // the secret's bits alone: those whose six bits lie entirely inside them.
            let encoded = Array(Data(Array(repeating: 0, count: offset) + bytes).base64EncodedString())
            let first = (8 * offset + 5) / 6
            let last = (8 * (offset + bytes.count)) / 6
            if last - first >= 6 { forms.append(String(encoded[first..<last])) }
        }
        forms += forms.map { form in
            mapped(form) { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
        }
        // Longest first: a padded form must win over its own unpadded prefix.
        return forms.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.sorted { $0.count > $1.count }
    }

    /// HTML's named references for the ASCII punctuation a credential may hold (HTML 5's table; `&tilde;` is not `~`).
    package static let htmlNames: [Unicode.Scalar: String] = [
        "!": "excl", "\"": "quot", "#": "num", "$": "dollar", "%": "percnt", "&": "amp", "'": "apos", "(": "lpar",
        ")": "rpar", "*": "ast", "+": "plus", ",": "comma", ".": "period", "/": "sol", ":": "colon", ";": "semi",
        "<": "lt", "=": "equals", ">": "gt", "?": "quest", "@": "commat", "[": "lsqb", "\\": "bsol", "]": "rsqb",
        "^": "Hat", "_": "lowbar", "`": "grave", "{": "lcub", "|": "verbar", "}": "rcub",
    ]

    /// `value` as hexadecimal digits where each letter matches either case, e.g. `2[fF]`.
    private static func hexPattern(_ value: UInt32, digits: Int) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return (String(repeating: "0", count: max(0, digits - hex.count)) + hex).map { digit in
            digit.isLetter ? "[\(digit)\(digit.lowercased())]" : String(digit)
        }.joined()
    }

    // MARK: - The encodings pattern, matched without an engine

    /// Whether some substring of `text` is `secret` written character by character in the forms
    /// ``pattern(matchingEncodingsOf:)`` allows (letters in any case). Every end a form can reach is
    /// followed, so this finds a match whenever the backtracking engine would.
    private static func holdsEncodings(of secret: [UInt8], in text: [UInt8]) -> Bool {
        guard let first = secret.first else { return true }
        let starts: Set<UInt8> = [lower(first), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "\\"), UInt8(ascii: "+")]
        for start in text.indices where starts.contains(lower(text[start])) {
            var positions: Set<Int> = [start]
            for character in secret {
                var next: Set<Int> = []
                for position in positions { Self.ends(of: character, at: position, in: text, into: &next) }
                positions = next
                if positions.isEmpty { break }
            }
            if !positions.isEmpty { return true }
        }
        return false
    }

    /// Every position after a form of `character` that starts at `position`.
    private static func ends(of character: UInt8, at position: Int, in text: [UInt8], into ends: inout Set<Int>) {
        guard position < text.count else { return }
        func has(_ literal: [UInt8], at offset: Int) -> Bool {
            offset + literal.count <= text.count && zip(text[offset..<(offset + literal.count)], literal).allSatisfy { lower($0) == $1 }
        }
        func hex(_ value: Int, digits: Int) -> [UInt8] {
            let text = String(value, radix: 16)
            return Array((String(repeating: "0", count: max(0, digits - text.count)) + text).utf8)
        }
        if lower(text[position]) == lower(character) { ends.insert(position + 1) }
        switch text[position] {
        case UInt8(ascii: "%"):
            let byte = hex(Int(character), digits: 2)
            if has(byte, at: position + 1) { ends.insert(position + 3) }
            if has(Array("25".utf8) + byte, at: position + 1) { ends.insert(position + 5) }
        case UInt8(ascii: "&"):
            if let name = htmlNames[Unicode.Scalar(character)], has(Array((name.lowercased() + ";").utf8), at: position + 1) {
                ends.insert(position + name.utf8.count + 2)
            }
            guard position + 1 < text.count, text[position + 1] == UInt8(ascii: "#") else { return }
            var digits = position + 2
            let hexadecimal = digits < text.count && lower(text[digits]) == UInt8(ascii: "x")
            if hexadecimal { digits += 1 }
            while digits < text.count, text[digits] == UInt8(ascii: "0") { digits += 1 }
            let value = Array((hexadecimal ? String(character, radix: 16) : String(character)).utf8)
            guard has(value, at: digits) else { return }
            let end = digits + value.count
            ends.insert(end)
            if end < text.count, text[end] == UInt8(ascii: ";") { ends.insert(end + 1) }
        case UInt8(ascii: "+"):
            if character == UInt8(ascii: " ") { ends.insert(position + 1) }
        case UInt8(ascii: "\\"):
            if [UInt8(ascii: "/"), UInt8(ascii: "\""), UInt8(ascii: "\\")].contains(character), has([character], at: position + 1) {
                ends.insert(position + 2)
            }
            if has(Array("u".utf8) + hex(Int(character), digits: 4), at: position + 1) { ends.insert(position + 6) }
        default:
            break
        }
    }

    // MARK: - Bytes

    /// An ASCII letter in lower case; any other byte as it is.
    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Whether `text` holds `needle` (whose letters are lower case when `ignoringASCIICase`).
    private static func contains(_ text: [UInt8], _ needle: [UInt8], ignoringASCIICase: Bool = false) -> Bool {
        guard !needle.isEmpty else { return true }
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) {
            var index = 0
            while index < needle.count, (ignoringASCIICase ? lower(text[start + index]) : text[start + index]) == needle[index] { index += 1 }
            if index == needle.count { return true }
        }
        return false
    }

    /// Whether `text` holds a character that matches ASCII letters when letter case is ignored (its case folding
    /// holds an ASCII letter: `ß`, `ẞ`, `ſ`, the Kelvin sign, `İ`, `ŉ`, `ǰ`, `ẖ`…`ẚ`, the ligatures `ﬀ`…`ﬆ`). With
    /// none, an ASCII pattern can match only ASCII text, which the tests above compare byte by byte.
    private static func hasCaseFoldingToASCII(_ text: String) -> Bool {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        return text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0xDF, 0x130, 0x149, 0x17F, 0x1F0, 0x1E96...0x1E9A, 0x1E9E, 0x212A, 0xFB00...0xFB06: return true
            default: return false
            }
        }
    }
}
