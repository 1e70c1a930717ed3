import AggregateCore
import AggregateJSON
import Foundation

/// One operation inferred from the exchanges of one path shape: its definition, the pages it was recorded with
/// and what they hold.
struct OperationGuess {
    var name: String
    var definition: JSONValue
    /// The exchanges of its recorded run, first page first.
    var pages: [RecordedExchange]
    /// The recorded arguments, typed (the runner's parameters).
    var parameters: JSONObject
    /// The recorded arguments as a command line after `<provider> <operation>`.
    var exampleArguments: [String]
    var expected: [RecordedRun.Entry]
    var report = ImportReport()

    /// Query parameters that read as the words of a search: the positional free text.
    static let freeTextNames: Set<String> = ["q", "query", "search", "term", "keywords", "keyword", "text", "s"]

    static func infer(_ group: [RecordedExchange], dropping base: Int, taken: Set<String>, skipping credentials: Set<String>) -> OperationGuess? {
        guard let first = group.first, let records = recordsPath(first.json) else { return nil }
        func recordsOf(_ exchange: RecordedExchange) -> [JSONValue] {
            ((try? records.path.resolve(in: exchange.json))?.array ?? []).filter { $0.object != nil }
        }

        // The longest run of exchanges that follow each other as pages; the rest are other runs, reported.
        var pages = [first]
        var paginator = RecordingPaginator.infer(pages, records: recordsOf)
        for count in stride(from: group.count, through: 2, by: -1) {
            let candidate = RecordingPaginator.infer(Array(group.prefix(count)), records: recordsOf)
            if candidate.pagination != nil {
                pages = Array(group.prefix(count))
                paginator = candidate
                break
            }
        }
        var report = ImportReport()
        for exchange in group.dropFirst(pages.count) {
            report.add(.skipped, exchange.pointer, "another run of the same path: only the first run's pages are imported")
        }

        var fields: [RecordField] = []
        var seen: [[String]: Int] = [:]
        for page in pages {
            for (index, record) in recordsOf(page).enumerated() {
                for field in RecordField.fields(of: record, pointer: page.pointer + "/response/body" + records.pointer + "/\(index)") {
                    if let at = seen[field.path] {
                        if fields[at].type == .null, field.type != .null { fields[at] = field }
                    } else {
                        seen[field.path] = fields.count
                        fields.append(field)
                    }
                }
            }
        }
        guard let mapping = ItemMappingGuess.guess(fields, pointer: first.pointer + "/response/body" + records.pointer) else { return nil }

        // The path: ids become positional placeholders named for the segment before them.
        let segments = Array(first.segments.dropFirst(base))
        var pathParts: [String] = []
        var parameters: [JSONValue] = []
        var values: [JSONObject.Member] = []
        var positional: [String] = []
        var options: [String] = []
        var usedNames: Set<String> = []
        func unique(_ word: String) -> String {
            let candidate = numbered(word, avoiding: usedNames)
            usedNames.insert(candidate)
            return candidate
        }
        for (index, segment) in segments.enumerated() {
            guard RecordedExchange.isIdentifier(segment) else {
                pathParts.append(segment.replacingOccurrences(of: "{", with: "{{").replacingOccurrences(of: "}", with: "}}"))
                continue
            }
            let before = index > 0 ? singular(identifier(segments[index - 1])) : ""
            let name = unique(before.isEmpty ? "id" : before + "-id")
            pathParts.append("{\(name)}")
            parameters.append(.object(JSONObject([
                .init("name", .string(name)), .init("positional", true), .init("required", true), .init("freeText", false),
                .init("help", .string("The id in the path (recorded: \(segment))."))])))
            values.append(.init(name, .string(segment)))
            positional.append(segment)
            report.add(.guessed, first.pointer + "/request/url", "parameter \(name) ← the path segment \(segment) (positional: it looks like an id)")
        }

        var query: [JSONObject.Member] = []
        var freeTextTaken = false
        for item in first.query where !paginator.parameters.contains(item.name) && !credentials.contains(item.name) {
            let name = unique(identifier(item.name).isEmpty ? "parameter" : identifier(item.name))
            query.append(.init(item.name, .string("{\(name)}")))
            let isFreeText = !freeTextTaken && freeTextNames.contains(item.name.lowercased())
            var members: [JSONObject.Member] = [.init("name", .string(name))]
            if isFreeText {
                freeTextTaken = true
                members += [.init("positional", true), .init("required", true), .init("help", .string("The words to look for (sent as \(item.name)=)."))]
                values.append(.init(name, .string(item.value)))
                positional.append(item.value)
                report.add(.guessed, first.pointer + "/request/url", "parameter \(name) ← \(item.name)=\(item.value) (positional: named like search words)")
            } else {
                let integer = Int(item.value)
                if integer != nil { members.append(.init("type", "integer")) }
                members.append(.init("help", .string("Sent as \(item.name)= (recorded: \(item.value)).")))
                values.append(.init(name, integer.map(JSONValue.int) ?? .string(item.value)))
                options += ["--\(name)", item.value]
                report.add(.mapped, first.pointer + "/request/url", "parameter --\(name) ← \(item.name)=\(item.value)")
            }
            parameters.append(.object(JSONObject(members)))
        }

        var name = segments.last { !RecordedExchange.isIdentifier($0) }.map(identifier) ?? ""
        if name.isEmpty { name = "get" }
        name = numbered(name, avoiding: taken)
        let generic: Set<String> = ["items", "hits", "results", "data", "records", "entries", "list", "values", "docs", "response", "rows", ""]
        let recordsKey = records.path.segments.last.flatMap { segment -> String? in
            if case .key(let key) = segment { return identifier(key) }
            return nil
        } ?? ""
        var kind = singular(generic.contains(recordsKey) ? name : recordsKey)
        if kind.isEmpty || !(kind.first?.isLetter ?? false) { kind = "record" }

        var operation: [JSONObject.Member] = [
            .init("name", .string(name)),
            .init("summary", .string("GET /\(segments.joined(separator: "/")), as recorded.")),
            .init("kind", .string(kind)),
        ]
        if !parameters.isEmpty { operation.append(.init("parameters", .array(parameters))) }
        var request: [JSONObject.Member] = [.init("path", .string("/" + pathParts.joined(separator: "/")))]
        if !query.isEmpty { request.append(.init("query", .object(JSONObject(query)))) }
        operation.append(.init("request", .object(JSONObject(request))))
        if let pagination = paginator.pagination { operation.append(.init("pagination", .object(pagination))) }
        operation.append(.init("records", .string(records.text)))
        operation.append(.init("item", mapping.item))

        report.add(.guessed, first.pointer + "/response/body" + records.pointer, "records ← \(records.text) (the largest array of objects: \(recordsOf(first).count) records)")
        report.add(.guessed, (pages.count > 1 ? pages[1] : first).pointer, "pagination: \(paginator.note)")
        // The engine sends the paginator's parameters after the operation's own; a replay matches them in order.
        let names = first.query.map(\.name)
        if let firstPaging = names.firstIndex(where: paginator.parameters.contains),
            let misplaced = names[firstPaging...].first(where: { !paginator.parameters.contains($0) }) {
            report.add(
                .guessed, first.pointer + "/request/url",
                "the recorded URL sends \(names[firstPaging]) before \(misplaced), the engine after it: a replay of this cassette will not match; record it with the paging parameters last")
        }
        report.append(contentsOf: mapping.report)
        report.add(.mapped, first.pointer, "samples: the \(pages.count) recorded bod\(pages.count == 1 ? "y" : "ies"), in page order")

        let expected = entries(pages.flatMap(recordsOf), item: mapping.item)
        let limit = pages.count > 1 ? ["--limit", String(expected.count)] : []
        return OperationGuess(
            name: name, definition: .object(JSONObject(operation)), pages: pages, parameters: JSONObject(values),
            exampleArguments: positional + options + limit, expected: expected, report: report)
    }

    /// `word`, or `word-2`, `word-3`, ... when it is taken.
    static func numbered(_ word: String, avoiding taken: Set<String>) -> String {
        var candidate = word
        var number = 2
        while taken.contains(candidate) {
            candidate = "\(word)-\(number)"
            number += 1
        }
        return candidate
    }

    /// The largest array of objects in a body, not inside another array, at most three objects deep.
    static func recordsPath(_ body: JSONValue) -> (path: JSONPath, text: String, pointer: String)? {
        var best: (path: [JSONPath.Segment], count: Int)?
        func visit(_ value: JSONValue, _ path: [JSONPath.Segment], depth: Int) {
            switch value {
            case .array(let elements):
                let count = elements.count { $0.object != nil }
                if count > 0, count > (best?.count ?? 0) { best = (path, count) }
            case .object(let object) where depth < 3:
                for member in object.members { visit(member.value, path + [.key(member.key)], depth: depth + 1) }
            default: break
            }
        }
        visit(body, [], depth: 0)
        guard let best else { return nil }
        let pointer = best.path.map { segment -> String in
            if case .key(let key) = segment { return JSONPointer.member(key, of: "") }
            return ""
        }.joined()
        return (JSONPath(best.path), best.path.isEmpty ? "." : JSONPath(best.path).description, pointer)
    }

    /// The ids and titles the mapping reads from `records`: the first value of each fallback list that is not
    /// empty, records without either left out, a repeated id once (as the engine does).
    static func entries(_ records: [JSONValue], item: JSONValue) -> [RecordedRun.Entry] {
        func paths(_ value: JSONValue?) -> [JSONPath] {
            let list = value?.array ?? value.map { [$0] } ?? []
            return list.compactMap { entry in (entry.string ?? entry["path"]?.string).flatMap { try? JSONPath(parsing: $0) } }
        }
        let ids = paths(item["id"])
        let titles = paths(item["title"])
        var seen: Set<String> = []
        var entries: [RecordedRun.Entry] = []
        for record in records {
            let id = ids.lazy.compactMap { (try? $0.resolve(in: record))?.idString }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let title = titles.lazy.compactMap { (try? $0.resolve(in: record))?.string }.first { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            guard let id, let title, seen.insert(id).inserted else { continue }
            entries.append(RecordedRun.Entry(id: id, title: title))
        }
        return entries
    }

    /// A name as a definition identifier: `hitsPerPage` and `per_page` are `hits-per-page` and `per-page`.
    static func identifier(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for character in text {
            if character.isASCII, character.isLetter || character.isNumber {
                if character.isUppercase, previousLower, !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(Character(character.lowercased()))
                previousLower = character.isLowercase || character.isNumber
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousLower = false
            }
        }
        if !current.isEmpty { words.append(current) }
        let joined = words.joined(separator: "-")
        return joined.drop { !$0.isLetter }.description
    }

    /// `repositories` → `repository`, `hits` → `hit`: good enough for a kind.
    static func singular(_ word: String) -> String {
        if word.hasSuffix("ies"), word.count > 3 { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("ses") || word.hasSuffix("xes") { return String(word.dropLast(2)) }
        if word.hasSuffix("s"), !word.hasSuffix("ss"), word.count > 1 { return String(word.dropLast()) }
        return word
    }
}
