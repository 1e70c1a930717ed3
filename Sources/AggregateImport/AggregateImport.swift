// AggregateImport: turns a description of an API into a provider definition folder (`provider.json`, the samples
// its emulator serves, and a report) — from an OpenAPI or Swagger document (`aggregate import openapi`) or from a
// cassette recorded with `--record` (`aggregate import recording`). Both importers guess the item mapping through
// one `ItemMappingGuess` and write through one `ImportedDefinitionFolder`, so a guess reads the same from either.
// It uses AggregateHTTP for the one `Cassette` reader and to verify an imported recording by replaying it.
// May import: AggregateText, AggregateJSON, AggregateCore, AggregateHTTP, AggregateDefinitions, AggregateScaffold, AggregateYAML, Foundation
public import AggregateJSON
import Foundation

/// What an importer did with one part of its input, for the author to check: one line each, with the JSON pointer
/// into the document (or the cassette) it came from. Nothing is left out silently: what is not imported is a
/// `skipped` line saying why.
public struct ImportNote: Sendable, Equatable {
    /// How sure the importer is.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Read as the document states it (a declared parameter, a security scheme, a server URL).
        case mapped
        /// Inferred from names, formats or shapes (the title field, the paginator); worth a look.
        case guessed
        /// Not imported, with the reason (an operation that is not a GET of JSON, a parameter style not supported).
        case skipped
    }

    public var kind: Kind
    /// Where in the input it comes from: a JSON pointer (`/paths/~1search/get`), or a cassette exchange (`exchanges/3`).
    public var pointer: String
    /// What was done, e.g. `title ← name (a string property named like a title)`.
    public var message: String

    public init(_ kind: Kind, _ pointer: String, _ message: String) {
        self.kind = kind
        self.pointer = pointer
        self.message = message
    }

    /// The report's line: `guessed  /paths/~1search/get: title ← name`.
    public var line: String { "\(kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(pointer): \(message)" }
}

/// Everything an import noticed, in the order it noticed it.
public struct ImportReport: Sendable, Equatable {
    public var notes: [ImportNote] = []

    public init(notes: [ImportNote] = []) { self.notes = notes }

    public mutating func add(_ kind: ImportNote.Kind, _ pointer: String, _ message: String) {
        notes.append(ImportNote(kind, pointer, message))
    }

    public mutating func append(contentsOf other: ImportReport) { notes += other.notes }

    /// How many notes of a kind there are.
    public func count(_ kind: ImportNote.Kind) -> Int { notes.count { $0.kind == kind } }

    /// The report as text: a summary line, then one line per note.
    public var text: String {
        let summary = "\(count(.mapped)) mapped, \(count(.guessed)) guessed, \(count(.skipped)) skipped"
        return ([summary] + notes.map(\.line)).joined(separator: "\n") + "\n"
    }

    /// The report as JSON: `{"mapped": n, "guessed": n, "skipped": n, "notes": [{"kind", "pointer", "message"}]}`.
    public var json: JSONValue {
        .object(JSONObject([
            .init("mapped", .int(count(.mapped))), .init("guessed", .int(count(.guessed))), .init("skipped", .int(count(.skipped))),
            .init("notes", .array(notes.map { .object(JSONObject([.init("kind", .string($0.kind.rawValue)), .init("pointer", .string($0.pointer)), .init("message", .string($0.message))])) })),
        ]))
    }
}
