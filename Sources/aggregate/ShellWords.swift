import AggregateCore


/// Splits one command line written as a single argument (`'tmdb search "the matrix"'`) into words, the way a POSIX
/// shell would for quotes and backslashes (no variables, globs or substitutions).
enum ShellWords {
    static func split(_ line: String) throws(AggregateError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaping = false
        for character in line {
            if escaping {
                current.append(character)
                escaping = false
                inWord = true
                continue
            }
            switch (quote, character) {
            case (nil, "\\"), ("\"", "\\"):
                escaping = true
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case (nil, _) where character.isWhitespace:
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        if escaping { current.append("\\") }
        if let quote { throw AggregateError(.usage, "unbalanced \(quote) quote") }
        if inWord { words.append(current) }
        return words
    }
}
