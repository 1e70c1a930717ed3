public import AggregateCore





/// ANSI styling, applied only when the style allows colour.
public enum ANSI {
    /// `text` in bold.
    public static func bold(_ text: String, _ style: TextStyle) -> String { style.color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// `text` dimmed.
    public static func dim(_ text: String, _ style: TextStyle) -> String { style.color ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// `text` in red.
    public static func red(_ text: String, _ style: TextStyle) -> String { style.color ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
    /// `text` in green.
    public static func green(_ text: String, _ style: TextStyle) -> String { style.color ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
}
