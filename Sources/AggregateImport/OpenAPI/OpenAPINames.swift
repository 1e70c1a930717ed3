import AggregateJSON
import Foundation

/// How the importer names things on the command line, deterministically: operations, parameters, kinds and the
/// provider.
enum OpenAPINames {
    /// The lower-case words of a name: `getAnimeSearch` → `get anime search`, `order_by` → `order by`,
    /// `get-an-albums-tracks` → `get an albums tracks`, `HTMLUrl` → `html url`.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current); current = "" }
                continue
            }
            if character.isUppercase, !current.isEmpty {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(Character(character.lowercased()))
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// An operation's name: `x-cli-name` as given when it is a valid name; else the `operationId` in kebab case
    /// without a leading `get` (and then a leading `a`, `an` or `the`): `getAnimeSearch` → `anime-search`,
    /// `get-an-albums-tracks` → `albums-tracks`; else the path's words: `GET /users/{id}/repos` → `users-id-repos`, `/articlesearch.json` → `articlesearch`.
    static func operationName(cliName: String?, operationID: String?, path: String) -> String {
        if let cliName, isIdentifier(cliName) { return cliName }
        if let operationID {
            var parts = words(operationID)
            if parts.count > 1, parts[0] == "get" { parts.removeFirst() }
            if parts.count > 1, ["a", "an", "the"].contains(parts[0]) { parts.removeFirst() }
            if let name = identifier(parts) { return name }
        }
        var parts = words(path)
        if parts.count > 1, parts.last == "json" { parts.removeLast() }
        return identifier(parts) ?? "root"
    }

    /// `name` then `name-2`, `name-3`, ... for the names already taken (operations, options, variables with `_`).
    static func unique(_ name: String, taken: inout Set<String>, separator: String = "-") -> String {
        var candidate = name
        var counter = 2
        while taken.contains(candidate) {
            candidate = "\(name)\(separator)\(counter)"
            counter += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// The words as an identifier (`^[a-z][a-z0-9-]*$`), or `nil` when they make none.
    static func identifier(_ parts: [String], maxLength: Int = 60) -> String? {
        var name = parts.joined(separator: "-")
        while let first = name.first, !first.isLetter { name.removeFirst() }
        if name.count > maxLength { name = String(name.prefix(maxLength)) }
        while name.hasSuffix("-") { name.removeLast() }
        return name.isEmpty ? nil : name
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLowercase else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    /// The provider's name from the document's title, without the words every API title has: `Jikan REST API` →
    /// `jikan`, `Forem API V1` → `forem`, `Spotify Web API` → `spotify-web`.
    static func providerName(title: String) -> String? {
        let filler: Set<String> = ["api", "apis", "rest", "restful", "openapi", "swagger", "spec", "specification", "documentation", "docs", "the", "http", "json", "public", "official"]
        let parts = words(title).filter { word in
            !filler.contains(word) && !(word.hasPrefix("v") && word.dropFirst().allSatisfy(\.isNumber) && word.count > 1)
        }
        return identifier(Array(parts.prefix(3)), maxLength: 40)
    }

    /// An item kind from a schema's name (`anime`, `ArticleIndex` → `article-index`, `TrackObject` → `track`) or the path's last literal
    /// word, singular (`/bookmarks` → `bookmark`); `record` when neither gives one.
    static func kind(referenceName: String?, path: String) -> String {
        if let referenceName {
            // `TrackObject`, `ArticleResource`, `UserDTO`: the last word says what a schema is, not what it holds.
            var parts = words(referenceName)
            if parts.count > 1, let last = parts.last, ["object", "schema", "model", "dto", "resource", "item", "entity"].contains(last) { parts.removeLast() }
            if let name = identifier(parts, maxLength: 40) { return name }
        }
        let literal = path.split(separator: "/").last { !$0.hasPrefix("{") }.map(String.init) ?? ""
        var parts = words(literal.replacingOccurrences(of: ".json", with: ""))
        if let last = parts.last, last.count > 3, last.hasSuffix("s"), !last.hasSuffix("ss") {
            parts[parts.count - 1] = last.hasSuffix("ies") ? String(last.dropLast(3)) + "y" : String(last.dropLast())
        }
        return identifier(parts, maxLength: 40) ?? "record"
    }

    /// The first sentence-sized line of a description, plain, at most 160 characters.
    static func oneLine(_ text: String?) -> String? {
        guard let text else { return nil }
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("!") && !$0.hasPrefix("<") }
        guard var plain = line?.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "**", with: ""), !plain.isEmpty else { return nil }
        if plain.count > 160 { plain = String(plain.prefix(157)) + "..." }
        return plain
    }
}
