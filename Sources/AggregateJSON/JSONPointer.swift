/// RFC 6901 JSON pointers, as error messages and reports name places in a document.
public enum JSONPointer {
    /// The pointer of member `key` under `pointer`, `~` and `/` escaped as RFC 6901 says (`/paths` and `/search`
    /// give `/paths/~1search`).
    public static func member(_ key: String, of pointer: String) -> String {
        // Every run reads the built-in definitions through this, so it stays in the standard library (no NSString
        // bridging) and copies nothing for the usual key without `~` or `/`.
        guard key.contains(where: { $0 == "~" || $0 == "/" }) else { return pointer + "/" + key }
        var escaped = ""
        for character in key {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return pointer + "/" + escaped
    }
}
