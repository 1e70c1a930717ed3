import Foundation

/// Text matching the way the emulated search APIs do it: case- and accent-insensitive, the same on every machine
/// whatever its locale. Emulators fold their samples once and each request's text with the same function.
public enum SandboxText {
    /// `text` folded for matching: case- and accent-insensitive (`Café` → `cafe`), and with `widthInsensitive`
    /// also width-insensitive (full-width `ＡＢＣ` → `abc`).
    public static func fold(_ text: String, widthInsensitive: Bool = false) -> String {
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        return text.folding(options: widthInsensitive ? options.union(.widthInsensitive) : options, locale: posix)
    }

    /// The folded words of `text`: its runs of letters and digits, split at everything else.
    public static func words(_ text: String, widthInsensitive: Bool = false) -> [String] {
        fold(text, widthInsensitive: widthInsensitive).split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
}
