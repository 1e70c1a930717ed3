import Foundation

/// A text template of a provider definition: `https://news.ycombinator.com/item?id={objectID}`.
///
/// `{name}` is a value; `{name?TEXT}` is `TEXT` (itself a template) when `name` has a value; `{{` and `}}` are
/// literal braces. What a name means depends on where the template is: a parameter in a request, a JSON path into
/// the record in a mapping, an item field in the text view.
public struct Template: Sendable, Equatable {
    /// One piece of a template.
    public enum Part: Sendable, Equatable {
        /// Literal text.
        case text(String)
        /// `{name}`.
        case value(String)
        /// `{name?TEXT}`.
        case ifPresent(String, [Part])
    }

    /// The pieces, in order.
    public var parts: [Part]

    /// Reads `text`.
    /// - Throws: a message saying what is wrong and at which character.
    public init(parsing text: String) throws(TemplateSyntaxError) {
        var reader = Reader(characters: Array(text))
        parts = try reader.parts(closing: false)
    }

    /// Every name used, nested ones included.
    public var names: [String] {
        func collect(_ parts: [Part]) -> [String] {
            parts.flatMap { part -> [String] in
                switch part {
                case .text: return []
                case .value(let name): return [name]
                case .ifPresent(let name, let inner): return [name] + collect(inner)
                }
            }
        }
        return collect(parts)
    }

    /// Whether the template has no placeholder at all.
    public var isConstant: Bool { names.isEmpty }

    /// The text with every name looked up by `value`, or `nil` when a `{name}` outside a conditional part has no
    /// value (so a fallback, an omitted query parameter or an omitted header can take over).
    /// With `keepingEmpty`, a name without a value renders as nothing instead (the text view's lines).
    public func render(keepingEmpty: Bool = false, _ value: (String) -> String?) -> String? {
        func render(_ parts: [Part]) -> String? {
            var text = ""
            for part in parts {
                switch part {
                case .text(let literal):
                    text += literal
                case .value(let name):
                    guard let found = value(name), !found.isEmpty else {
                        if keepingEmpty { continue }
                        return nil
                    }
                    text += found
                case .ifPresent(let name, let inner):
                    guard let found = value(name), !found.isEmpty, found != "false" else { continue }
                    guard let rendered = render(inner) else { return nil }
                    text += rendered
                }
            }
            return text
        }
        return render(parts)
    }

    private struct Reader {
        let characters: [Character]
        var index = 0

        mutating func parts(closing: Bool) throws(TemplateSyntaxError) -> [Part] {
            var parts: [Part] = []
            var literal = ""
            func flush() {
                if !literal.isEmpty { parts.append(.text(literal)) }
                literal = ""
            }
            while index < characters.count {
                let character = characters[index]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if character == "{", next == "{" {
                    literal.append("{")
                    index += 2
                } else if character == "}", next == "}", !closing {
                    literal.append("}")
                    index += 2
                } else if character == "}" {
                    guard closing else { throw TemplateSyntaxError(reason: "a '}' closes nothing (write '}}' for a brace)", column: index + 1) }
                    flush()
                    return parts
                } else if character == "{" {
                    flush()
                    parts.append(try placeholder())
                } else {
                    literal.append(character)
                    index += 1
                }
            }
            guard !closing else { throw TemplateSyntaxError(reason: "a '{' is not closed", column: characters.count + 1) }
            flush()
            return parts
        }

        /// `{name}` or `{name?TEXT}`, from the `{`.
        mutating func placeholder() throws(TemplateSyntaxError) -> Part {
            let start = index
            index += 1
            var name = ""
            while index < characters.count, !"}?{".contains(characters[index]) {
                name.append(characters[index])
                index += 1
            }
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw TemplateSyntaxError(reason: "a placeholder has no name", column: start + 1)
            }
            guard index < characters.count else { throw TemplateSyntaxError(reason: "a '{' is not closed", column: start + 1) }
            switch characters[index] {
            case "}":
                index += 1
                return .value(name)
            case "?":
                index += 1
                let inner = try parts(closing: true)
                index += 1
                return .ifPresent(name, inner)
            default:
                throw TemplateSyntaxError(reason: "a '{' inside a placeholder's name", column: index + 1)
            }
        }
    }
}

/// What is wrong with a template, and where.
public struct TemplateSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The 1-based character position.
    public var column: Int

    public var description: String { "\(reason) at character \(column)" }
}
