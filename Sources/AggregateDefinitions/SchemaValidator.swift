import AggregateJSON
import Foundation

/// Checks a JSON document against a JSON Schema (draft 2020-12), for the keywords
/// `Schemas/provider-definition.schema.json` uses: `type`, `const`, `enum`, `properties`, `required`,
/// `additionalProperties`, `unevaluatedProperties`, `propertyNames`, `minProperties`/`maxProperties`, `items`,
/// `minItems`/`maxItems`, `uniqueItems`, `minLength`/`maxLength`, `pattern`, `minimum`/`maximum` and their exclusive
/// forms, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and local `$ref`s (`#/$defs/...`).
/// Annotations (`description`, `default`, `title`, `$schema`, `$id`) are skipped. Any other keyword is refused
/// when the validator is made, so the schema cannot grow past what is checked.
///
/// `aggregate check` runs it so that an author sees every schema violation at once, each with its JSON pointer,
/// where reading the definition stops at the first.
struct SchemaValidator {
    let root: JSONValue

    static let checkedKeywords: Set<String> = [
        "type", "const", "enum", "properties", "required", "additionalProperties", "unevaluatedProperties", "propertyNames",
        "items", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "minProperties", "maxProperties", "allOf", "anyOf", "oneOf", "not", "if",
        "then", "else", "$ref", "$defs",
    ]
    static let annotations: Set<String> = ["description", "default", "title", "$schema", "$id", "examples"]

    /// - Throws: a ``DefinitionProblem`` naming a keyword the validator does not check, or a `$ref` it cannot follow.
    init(schema: JSONValue) throws(DefinitionProblem) {
        root = schema
        try Self.audit(schema, pointer: "")
    }

    /// Every violation in `instance`, in document order, each at the pointer of the value at fault.
    func problems(in instance: JSONValue) -> [DefinitionProblem] {
        var seen = Set<String>()
        return validate(instance, against: root, at: "").problems.filter { seen.insert($0.description).inserted }
    }

    // MARK: Validation

    /// The violations, and the object members the schema evaluated (for `unevaluatedProperties`).
    private struct Outcome {
        var problems: [DefinitionProblem] = []
        var evaluated: Set<String> = []
        var isValid: Bool { problems.isEmpty }
    }

    private func validate(_ instance: JSONValue, against schema: JSONValue, at pointer: String, depth: Int = 0) -> Outcome {
        var outcome = Outcome()
        if case .bool(let allowed) = schema {
            if !allowed { outcome.problems.append(DefinitionProblem(pointer, "is not allowed here")) }
            return outcome
        }
        guard let keywords = schema.object, depth < 64 else { return outcome }
        func fail(_ message: String) { outcome.problems.append(DefinitionProblem(pointer, message)) }
        func merge(_ inner: Outcome) {
            outcome.problems += inner.problems
            outcome.evaluated.formUnion(inner.evaluated)
        }

        if let reference = keywords["$ref"]?.string {
            if let target = resolve(reference) { merge(validate(instance, against: target, at: pointer, depth: depth + 1)) }
        }
        if let type = keywords["type"] {
            let names = type.array?.compactMap(\.string) ?? type.string.map { [$0] } ?? []
            if !names.contains(where: { Self.matches(instance, type: $0) }) {
                fail("must be \(names.map(Self.article).joined(separator: " or ")), not \(Self.article(instance.typeName))")
                return outcome
            }
        }
        if let constant = keywords["const"], constant != instance { fail("must be \(Self.shown(constant))") }
        if let choices = keywords["enum"]?.array, !choices.contains(instance) {
            fail("must be one of \(choices.map(Self.shown).joined(separator: ", ")), not \(Self.shown(instance))")
        }
        if case .string(let text) = instance {
            if let minimum = keywords["minLength"]?.int, text.count < minimum { fail(minimum == 1 ? "must not be empty" : "must be at least \(minimum) characters long") }
            if let maximum = keywords["maxLength"]?.int, text.count > maximum { fail("must be at most \(maximum) characters long") }
            if let pattern = keywords["pattern"]?.string, !Self.matches(text, pattern: pattern) { fail("'\(text)' does not have the form \(pattern)") }
        }
        if case .number = instance, let number = instance.double {
            if let minimum = keywords["minimum"]?.double, number < minimum { fail("must be at least \(Self.shown(keywords["minimum"] ?? .null))") }
            if let maximum = keywords["maximum"]?.double, number > maximum { fail("must be at most \(Self.shown(keywords["maximum"] ?? .null))") }
            if let bound = keywords["exclusiveMinimum"]?.double, number <= bound { fail("must be more than \(Self.shown(keywords["exclusiveMinimum"] ?? .null))") }
            if let bound = keywords["exclusiveMaximum"]?.double, number >= bound { fail("must be less than \(Self.shown(keywords["exclusiveMaximum"] ?? .null))") }
        }
        if case .array(let elements) = instance {
            if let minimum = keywords["minItems"]?.int, elements.count < minimum { fail("must hold at least \(minimum) element\(minimum == 1 ? "" : "s")") }
            if let maximum = keywords["maxItems"]?.int, elements.count > maximum { fail("must hold at most \(maximum) element\(maximum == 1 ? "" : "s")") }
            if keywords["uniqueItems"] == .bool(true), let twice = elements.enumerated().first(where: { elements[..<$0.offset].contains($0.element) }) {
                fail("holds \(Self.shown(twice.element)) twice")
            }
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() { merge(validate(element, against: items, at: "\(pointer)/\(index)", depth: depth + 1)) }
            }
        }
        if case .object(let object) = instance {
            validateObject(object, keywords, at: pointer, depth: depth, into: &outcome)
        }
        for keyword in ["allOf"] {
            for branch in keywords[keyword]?.array ?? [] { merge(validate(instance, against: branch, at: pointer, depth: depth + 1)) }
        }
        if let branches = keywords["anyOf"]?.array {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer, depth: depth + 1) }
            if outcomes.contains(where: \.isValid) {
                for valid in outcomes where valid.isValid { outcome.evaluated.formUnion(valid.evaluated) }
            } else {
                outcome.problems += Self.closest(outcomes, at: pointer, instance: instance)
            }
        }
        if let branches = keywords["oneOf"]?.array {
            let outcomes = branches.map { validate(instance, against: $0, at: pointer, depth: depth + 1) }
            let valid = outcomes.filter(\.isValid)
            if valid.count == 1 {
                outcome.evaluated.formUnion(valid[0].evaluated)
            } else if valid.isEmpty {
                outcome.problems += Self.closest(outcomes, at: pointer, instance: instance)
            } else {
                fail(Self.exclusiveMessage(instance))
            }
        }
        if let excluded = keywords["not"], validate(instance, against: excluded, at: pointer, depth: depth + 1).isValid {
            fail(Self.exclusiveMessage(instance))
        }
        if let condition = keywords["if"] {
            let test = validate(instance, against: condition, at: pointer, depth: depth + 1)
            if test.isValid {
                outcome.evaluated.formUnion(test.evaluated)
                if let then = keywords["then"] { merge(validate(instance, against: then, at: pointer, depth: depth + 1)) }
            } else if let otherwise = keywords["else"] {
                merge(validate(instance, against: otherwise, at: pointer, depth: depth + 1))
            }
        }
        if case .object(let object) = instance, let unevaluated = keywords["unevaluatedProperties"] {
            for member in object.members where !outcome.evaluated.contains(member.key) {
                let inner = validate(member.value, against: unevaluated, at: Self.pointer(pointer, member.key), depth: depth + 1)
                if case .bool(false) = unevaluated {
                    outcome.problems.append(DefinitionProblem(Self.pointer(pointer, member.key), "is not a field here"))
                } else {
                    outcome.problems += inner.problems
                }
                outcome.evaluated.insert(member.key)
            }
        }
        return outcome
    }

    private func validateObject(_ object: JSONObject, _ keywords: JSONObject, at pointer: String, depth: Int, into outcome: inout Outcome) {
        let properties = keywords["properties"]?.object
        if let minimum = keywords["minProperties"]?.int, object.count < minimum {
            outcome.problems.append(DefinitionProblem(pointer, "must hold at least \(minimum) member\(minimum == 1 ? "" : "s")"))
        }
        if let maximum = keywords["maxProperties"]?.int, object.count > maximum {
            outcome.problems.append(DefinitionProblem(pointer, "must hold at most \(maximum) member\(maximum == 1 ? "" : "s")"))
        }
        for key in keywords["required"]?.array?.compactMap(\.string) ?? [] where object[key] == nil {
            outcome.problems.append(DefinitionProblem(pointer, "\(Self.missingFieldPrefix)\(key)'"))
        }
        if let names = keywords["propertyNames"] {
            for key in object.keys {
                for problem in validate(.string(key), against: names, at: Self.pointer(pointer, key), depth: depth + 1).problems {
                    outcome.problems.append(DefinitionProblem(problem.pointer, "the name '\(key)': \(problem.message)"))
                }
            }
        }
        for member in object.members {
            let here = Self.pointer(pointer, member.key)
            if let property = properties?[member.key] {
                if case .bool(false) = property {
                    outcome.problems.append(DefinitionProblem(here, "is not a field here"))
                } else {
                    outcome.problems += validate(member.value, against: property, at: here, depth: depth + 1).problems
                }
                outcome.evaluated.insert(member.key)
            } else if let additional = keywords["additionalProperties"] {
                if case .bool(false) = additional {
                    let fields = properties?.keys.filter { properties?[$0] != .bool(false) }.joined(separator: ", ") ?? ""
                    outcome.problems.append(DefinitionProblem(here, "is not a field here (fields: \(fields))"))
                } else {
                    outcome.problems += validate(member.value, against: additional, at: here, depth: depth + 1).problems
                }
                outcome.evaluated.insert(member.key)
            }
        }
    }

    // MARK: Parts

    /// The target of a local `$ref` (`#/$defs/name`).
    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node = root
        for part in reference.dropFirst().split(separator: "/") {
            let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = node.object?[key] else { return nil }
            node = next
        }
        return node
    }

    /// Refuses keywords the validator does not check and `$ref`s it cannot follow, everywhere in the schema.
    private static func audit(_ schema: JSONValue, pointer: String) throws(DefinitionProblem) {
        guard let keywords = schema.object else { return }
        for member in keywords.members {
            let here = Self.pointer(pointer, member.key)
            guard checkedKeywords.contains(member.key) || annotations.contains(member.key) else {
                throw DefinitionProblem(here, "the schema uses '\(member.key)', which the definition checker does not check")
            }
            switch member.key {
            case "properties", "$defs":
                for inner in member.value.object?.members ?? [] { try audit(inner.value, pointer: Self.pointer(here, inner.key)) }
            case "allOf", "anyOf", "oneOf":
                for (index, inner) in (member.value.array ?? []).enumerated() { try audit(inner, pointer: "\(here)/\(index)") }
            case "items", "additionalProperties", "unevaluatedProperties", "propertyNames", "not", "if", "then", "else":
                try audit(member.value, pointer: here)
            case "$ref":
                guard member.value.string?.hasPrefix("#/$defs/") == true else { throw DefinitionProblem(here, "only local #/$defs/ references are followed") }
            default:
                break
            }
        }
    }

    /// What to say when no branch of `anyOf`/`oneOf` fits: the problems of the branch that got furthest (one whose
    /// type fits the value, with the fewest problems), since that is the form the author most likely meant.
    private static func closest(_ outcomes: [Outcome], at pointer: String, instance: JSONValue) -> [DefinitionProblem] {
        // Branches that each only miss a field (`anyOf: [{required: [a]}, {required: [b]}]`) mean "one of these".
        let missing = outcomes.map { outcome in
            outcome.problems.compactMap { problem -> String? in
                guard problem.pointer == (pointer.isEmpty ? "/" : pointer), problem.message.hasPrefix(missingFieldPrefix) else { return nil }
                return String(problem.message.dropFirst(missingFieldPrefix.count).dropLast())
            }
        }
        if outcomes.count > 1, zip(outcomes, missing).allSatisfy({ $0.problems.count == 1 && $1.count == 1 }) {
            return [DefinitionProblem(pointer, "needs one of the fields \(missing.map { "'\($0[0])'" }.joined(separator: ", "))")]
        }
        let typeFits = outcomes.filter { outcome in
            !outcome.problems.contains { $0.pointer == (pointer.isEmpty ? "/" : pointer) && $0.message.hasPrefix("must be ") && $0.message.contains(", not ") }
        }
        guard let best = typeFits.min(by: { $0.problems.count < $1.problems.count }) else {
            return [DefinitionProblem(pointer, "\(article(instance.typeName)) is not one of the forms allowed here")]
        }
        return best.problems
    }

    private static let missingFieldPrefix = "misses the required field '"

    private static func exclusiveMessage(_ instance: JSONValue) -> String {
        guard let keys = instance.object?.keys, !keys.isEmpty else { return "fits more than one of the forms allowed here" }
        return "has fields that exclude each other (\(keys.joined(separator: ", "))); give one of them"
    }

    private static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number): return true
        case ("integer", .number(let text)): return !text.contains(".") && !text.lowercased().contains("e")
        default: return false
        }
    }

    private static func matches(_ text: String, pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return true }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func article(_ type: String) -> String {
        switch type {
        case "null": return "null"
        case "bool", "boolean": return "true or false"
        case "integer": return "a whole number"
        case "array", "object": return "an \(type)"
        default: return "a \(type)"
        }
    }

    private static func shown(_ value: JSONValue) -> String { JSONWriter().string(value) }

    private static func pointer(_ base: String, _ key: String) -> String { DefinitionReader.pointer(base, key) }
}
