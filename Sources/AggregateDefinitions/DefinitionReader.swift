import AggregateJSON
import Foundation

/// A mistake in a provider definition: where it is (a JSON pointer) and what is wrong.
public struct DefinitionProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON pointer of the value at fault, e.g. `/operations/0/request/query/q` (`/` for the document).
    public var pointer: String
    /// What is wrong, e.g. `the template names 'qeury', which is not a parameter of 'search'`.
    public var message: String

    /// Creates a problem.
    public init(_ pointer: String, _ message: String) {
        self.pointer = pointer.isEmpty ? "/" : pointer
        self.message = message
    }

    public var description: String { "\(pointer): \(message)" }
}

/// Reads one value of a definition, knowing its JSON pointer so every mistake names where it is.
struct DefinitionReader {
    let value: JSONValue
    let pointer: String

    init(_ value: JSONValue, pointer: String = "") {
        self.value = value
        self.pointer = pointer
    }

    func problem(_ message: String) -> DefinitionProblem { DefinitionProblem(pointer, message) }

    /// The member `key`'s pointer: `~` and `/` escaped as RFC 6901 says.
    func pointer(to key: String) -> String { Self.pointer(pointer, key) }

    /// The pointer of member `key` under `pointer`, `~` and `/` escaped as RFC 6901 says.
    static func pointer(_ pointer: String, _ key: String) -> String { JSONPointer.member(key, of: pointer) }

    /// The members of an object, refusing keys outside `allowed` and missing `required` ones.
    func object(allowed: [String], required: [String] = []) throws(DefinitionProblem) -> ObjectReader {
        guard case .object(let object) = value else { throw problem("must be an object, not \(value.typeName)") }
        for key in object.keys where !allowed.contains(key) {
            throw DefinitionProblem(pointer(to: key), "is not a field here (fields: \(allowed.joined(separator: ", ")))")
        }
        for key in required where object[key] == nil {
            throw problem("misses the required field '\(key)'")
        }
        return ObjectReader(object: object, reader: self)
    }

    /// The members of an object whose keys are names (e.g. `metrics`).
    func members() throws(DefinitionProblem) -> [(key: String, value: DefinitionReader)] {
        guard case .object(let object) = value else { throw problem("must be an object, not \(value.typeName)") }
        return object.members.map { ($0.key, DefinitionReader($0.value, pointer: pointer(to: $0.key))) }
    }

    func array(minimum: Int = 0) throws(DefinitionProblem) -> [DefinitionReader] {
        guard case .array(let elements) = value else { throw problem("must be an array, not \(value.typeName)") }
        guard elements.count >= minimum else { throw problem("must hold at least \(minimum) element\(minimum == 1 ? "" : "s")") }
        return elements.enumerated().map { DefinitionReader($0.element, pointer: "\(pointer)/\($0.offset)") }
    }

    func string(nonEmpty: Bool = true) throws(DefinitionProblem) -> String {
        guard case .string(let text) = value else { throw problem("must be a string, not \(value.typeName)") }
        if nonEmpty, text.unicodeScalars.allSatisfy(Self.isBlank) { throw problem("must not be empty") }
        return text
    }

    /// What `CharacterSet.whitespaces` holds (tab and the space separators), tested without Foundation's bridging.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }

    func bool() throws(DefinitionProblem) -> Bool {
        guard case .bool(let flag) = value else { throw problem("must be true or false, not \(value.typeName)") }
        return flag
    }

    func integer(in range: ClosedRange<Int> = Int.min...Int.max) throws(DefinitionProblem) -> Int {
        guard let number = value.int, value.numberText.map({ !$0.contains(".") && !$0.lowercased().contains("e") }) == true else {
            throw problem("must be a whole number, not \(value.typeName == "number" ? value.numberText ?? "" : value.typeName)")
        }
        guard range.contains(number) else { throw problem("must be between \(range.lowerBound) and \(range.upperBound)") }
        return number
    }

    func number() throws(DefinitionProblem) -> Double {
        guard let number = value.double, value.numberText != nil else { throw problem("must be a number, not \(value.typeName)") }
        return number
    }

    /// One of `words`.
    func word(_ words: [String]) throws(DefinitionProblem) -> String {
        let text = try string()
        guard words.contains(text) else { throw problem("must be one of \(words.joined(separator: ", ")), not '\(text)'") }
        return text
    }

    /// One of the cases of `type`, spelled as its raw value.
    func word<Word: RawRepresentable & CaseIterable>(_ type: Word.Type) throws(DefinitionProblem) -> Word where Word.RawValue == String {
        let text = try string()
        guard let word = Word(rawValue: text) else {
            throw problem("must be one of \(Word.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return word
    }

    /// A lower-case identifier (`search`, `by-date`).
    func identifier() throws(DefinitionProblem) -> String {
        let text = try string()
        guard let first = text.first, first.isASCII, first.isLowercase,
              text.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        else { throw problem("'\(text)' must be lower-case letters, digits and '-', starting with a letter") }
        return text
    }

    /// A JSON path in the syntax of ``JSONPath``.
    func jsonPath() throws(DefinitionProblem) -> JSONPath {
        let text = try string(nonEmpty: true)
        do { return try JSONPath(parsing: text) } catch { throw problem("'\(text)' is not a JSON path: \(error)") }
    }

    /// A template; with `paths`, each name must also parse as a JSON path.
    func template(namesArePaths paths: Bool = false) throws(DefinitionProblem) -> Template {
        let text = try string(nonEmpty: false)
        let template: Template
        do { template = try Template(parsing: text) } catch { throw problem("'\(text)' is not a template: \(error)") }
        if paths {
            for name in template.names {
                do { _ = try JSONPath(parsing: name) } catch { throw problem("the placeholder '{\(name)}' is not a JSON path: \(error)") }
            }
        }
        return template
    }
}

/// An object's members, read by key.
struct ObjectReader {
    let object: JSONObject
    let reader: DefinitionReader

    /// The member `key`, when present.
    subscript(key: String) -> DefinitionReader? {
        object[key].map { DefinitionReader($0, pointer: reader.pointer(to: key)) }
    }

    /// The member `key`, which `object(allowed:required:)` has checked is present.
    func required(_ key: String) -> DefinitionReader {
        self[key] ?? DefinitionReader(.null, pointer: reader.pointer(to: key))
    }
}
