public import AggregateCore
public import AggregateHTTP
public import AggregateJSON
public import AggregateScaffold
import Foundation

/// A definition inferred from a cassette, and for each operation the recorded run it must reproduce.
public struct RecordingImport: Sendable {
    /// The folder to write.
    public var imported: ImportedDefinition
    /// One per imported operation: the arguments it was recorded with and the items its pages hold.
    public var runs: [RecordedRun]
}

/// What one operation's recorded pages hold, to check the definition against by replaying the cassette.
public struct RecordedRun: Sendable, Equatable {
    /// The operation's name.
    public var operation: String
    /// The recorded arguments, typed as the definition declares them (the runner's parameters).
    public var parameters: JSONObject
    /// The records' ids and titles, page after page, as the item mapping reads them (records without either left
    /// out, a repeated id once).
    public var expected: [Entry]
    /// How many exchanges its pages are.
    public var exchanges: Int

    /// One record's id and title.
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        public var id: String
        public var title: String
        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }
        public var description: String { "\(id) \"\(title)\"" }
    }
}

/// `aggregate import recording`: infers a provider definition from the exchanges of a cassette (`--record DIR`).
///
/// Exchanges are grouped into operations by method and path shape (numbers and ids in path segments become
/// placeholders). For each: the records are the largest array of objects in the bodies, the paginator is read
/// from how the requests followed each other (``RecordingPaginator``), the item mapping is ``ItemMappingGuess``'s
/// over the union of the records' fields, the first request's query parameters become parameters (path
/// placeholders positional ones), a redacted (`***`) header or parameter gives the auth, and the bodies, in page
/// order, become the samples.
public enum RecordingImporter {
    /// Infers the definition.
    /// - Parameters:
    ///   - name: the provider's name, or `nil` for one read from the recording (the host's or the recorded provider's).
    ///   - taken: names a definition may not take (the built-in providers): a default name among them gets `-imported`.
    ///   - source: the cassette's path, for the summary and messages.
    /// - Throws: an `invalidInput` error (exit 65) when no exchange is a successful GET of JSON, or no operation has
    ///   records with an id and a title.
    public static func infer(_ cassette: Cassette, name: ScaffoldName?, taken: Set<String> = [], source: String) throws(AggregateError) -> RecordingImport {
        var report = ImportReport()
        guard !cassette.exchanges.isEmpty else {
            throw AggregateError(.invalidInput, "the cassette \(source) holds no exchanges: record a run with --record first")
        }
        var usable: [RecordedExchange] = []
        var reasons: [String] = []
        for (index, exchange) in cassette.exchanges.enumerated() {
            switch RecordedExchange.read(exchange, index: index) {
            case .success(let read): usable.append(read)
            case .failure(let skip):
                report.add(.skipped, "/exchanges/\(index)", skip.reason)
                reasons.append(skip.reason)
            }
        }
        guard let first = usable.first else {
            let why = Set(reasons).count == 1 ? reasons[0] : "none is a successful GET with a JSON body"
            throw AggregateError(
                .invalidInput, "the cassette \(source) has nothing to import: \(why) (\(cassette.exchanges.count) exchange\(cassette.exchanges.count == 1 ? "" : "s")); record a successful run of a JSON API")
        }
        let origin = first.origin
        for exchange in usable where exchange.origin != origin {
            report.add(.skipped, exchange.pointer, "another host (\(exchange.origin)): only \(origin), the first one's, is imported")
        }
        usable.removeAll { $0.origin != origin }

        let providerName: ScaffoldName
        if let name { providerName = name } else { providerName = try defaultName(origin: origin, recorded: cassette.exchanges[first.index].provider, taken: taken) }
        let base = basePath(usable, provider: cassette.exchanges[first.index].provider)
        let groups = group(usable, dropping: base.count)

        var operations: [JSONValue] = []
        var examples: [JSONValue] = []
        var samples: [(key: String, pages: [Data])] = []
        var runs: [RecordedRun] = []
        var usedNames: Set<String> = []
        let auth = AuthGuess.infer(first, credentialVariables: cassette.credentialVariables, prefix: providerName.environmentPrefix)
        report.append(contentsOf: auth.report)
        for group in groups {
            guard let operation = OperationGuess.infer(group, dropping: base.count, taken: usedNames, skipping: auth.parameters) else {
                report.add(.skipped, group[0].pointer, "no array of records with an id and a title in its bodies, so no operation")
                continue
            }
            usedNames.insert(operation.name)
            report.append(contentsOf: operation.report)
            operations.append(operation.definition)
            examples.append(.object(JSONObject([
                .init("arguments", .array(([providerName.name, operation.name] + operation.exampleArguments).map(JSONValue.string))),
                .init("summary", .string("The recorded run: \(operation.pages.count) page\(operation.pages.count == 1 ? "" : "s") (\(operation.expected.count) items).")),
            ])))
            samples.append((operation.name, operation.pages.map(\.body)))
            runs.append(RecordedRun(operation: operation.name, parameters: operation.parameters, expected: operation.expected, exchanges: operation.pages.count))
        }
        guard !operations.isEmpty else {
            throw AggregateError(.invalidInput, "the cassette \(source) has no JSON body with an array of records that have an id and a title: nothing to import")
        }

        let baseURL = origin + base.map { "/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0) }.joined()
        report.add(.mapped, first.pointer, "baseURL ← \(baseURL) (the recorded requests' origin\(base.isEmpty ? "" : " and the path they share"))")
        var definition: [JSONObject.Member] = [
            .init("$schema", "https://github.com/aggregate/aggregate/Schemas/provider-definition.schema.json"),
            .init("name", .string(providerName.name)),
            .init("displayName", .string(providerName.name)),
            .init("summary", .string("Imported from the recording \(URL(fileURLWithPath: source).lastPathComponent == Cassette.fileName ? URL(fileURLWithPath: source).deletingLastPathComponent().lastPathComponent : source) of \(origin); see import-report.txt for what was guessed.")),
            .init("docsURL", .string(origin)),
            .init("baseURL", .string(baseURL)),
        ]
        if !auth.entries.isEmpty { definition.append(.init("auth", .array(auth.entries))) }
        let headers = recordedHeaders(first)
        if !headers.isEmpty { definition.append(.init("headers", .object(JSONObject(headers.map { .init($0.name, .string($0.value)) })))) }
        definition.append(.init("operations", .array(operations)))
        definition.append(.init("examples", .array(examples)))
        let imported = ImportedDefinition(name: providerName, definition: JSONObject(definition), samples: samples, report: report)
        return RecordingImport(imported: imported, runs: runs)
    }

    /// The name from the host (`api.github.com` is `github`), else the provider the recording ran; `github-imported`
    /// when that is a built-in provider's, which a run-time definition may not take.
    static func defaultName(origin: String, recorded: String, taken: Set<String>) throws(AggregateError) -> ScaffoldName {
        let host = URLComponents(string: origin)?.host ?? ""
        let labels = host.split(separator: ".").map(String.init)
        let isAddress = labels.allSatisfy { $0.allSatisfy(\.isNumber) } || host.contains(":") || host == "localhost"
        let generic: Set<String> = ["api", "www", "rest", "data", "com", "org", "net", "io", "dev", "app", "co"]
        let word = isAddress ? nil : labels.dropLast().last { !generic.contains($0.lowercased()) }
        let candidate = (word ?? (recorded == "get" ? "imported" : recorded)).lowercased()
        var cleaned = String(candidate.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }).split(separator: "-").joined(separator: "-")
        if taken.contains(cleaned) { cleaned += "-imported" }
        do {
            return try ScaffoldName(validating: cleaned)
        } catch {
            return try ScaffoldName(validating: "imported")
        }
    }

    /// The leading path segments every exchange shares that name the API rather than an operation (`api`, `v1`,
    /// `3`, or the recorded provider's sandbox mount), leaving every operation at least one segment.
    static func basePath(_ exchanges: [RecordedExchange], provider: String) -> [String] {
        var base: [String] = []
        let shortest = exchanges.map(\.segments.count).min() ?? 0
        while base.count + 1 < shortest {
            let segment = exchanges[0].segments[base.count]
            guard exchanges.allSatisfy({ $0.segments[base.count] == segment }) else { break }
            let lower = segment.lowercased()
            let versioned = lower.hasPrefix("v") && lower.dropFirst().allSatisfy { $0.isNumber || $0 == "." } && lower.count > 1
            guard lower == "api" || lower == provider || versioned || lower.allSatisfy(\.isNumber) else { break }
            base.append(segment)
        }
        return base
    }

    /// The exchanges by method and path shape, in the order each shape was first recorded.
    static func group(_ exchanges: [RecordedExchange], dropping base: Int) -> [[RecordedExchange]] {
        var order: [String] = []
        var groups: [String: [RecordedExchange]] = [:]
        for exchange in exchanges {
            let key = exchange.segments.dropFirst(base).map { RecordedExchange.isIdentifier($0) ? "{}" : $0 }.joined(separator: "/")
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(exchange)
        }
        return order.compactMap { groups[$0] }
    }

    /// The request headers worth sending again: not credentials, not the transport's own.
    static func recordedHeaders(_ exchange: RecordedExchange) -> [(name: String, value: String)] {
        let transport: Set<String> = ["host", "content-length", "connection", "accept-encoding", "cookie", "authorization", "proxy-authorization"]
        return exchange.requestHeaders.fields.filter { !transport.contains($0.name.lowercased()) && !$0.value.contains(Redactor.mask) }
    }
}
