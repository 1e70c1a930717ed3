import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation

/// The paginator an operation's recorded pages show, read from how each request followed the one before: a Link
/// header's `rel="next"` that the next request asked for, a page number counting up, an offset stepping by the
/// page's record count, or a cursor whose value the previous body held.
struct RecordingPaginator {
    /// The definition's `pagination`, or `nil` for one request.
    var pagination: JSONObject?
    /// The query parameters the paginator sends, which are not the operation's own parameters.
    var parameters: Set<String>
    /// What the report says about it.
    var note: String

    /// Infers the paginator from `pages` (in recorded order) whose records sit at `records` in each body.
    static func infer(_ pages: [RecordedExchange], records: (RecordedExchange) -> [JSONValue]) -> RecordingPaginator {
        guard let first = pages.first else { return RecordingPaginator(pagination: nil, parameters: [], note: "one request") }
        let firstCount = records(first).count
        let size = pageSize(first, records: firstCount)
        var sizeParameters: Set<String> = []
        var sized: [JSONObject.Member] = []
        if let size {
            sized = [.init("pageSize", .int(size.value)), .init("pageSizeParameter", .string(size.parameter))]
            sizeParameters = [size.parameter]
        }
        let totals = totalMembers(first.json)
        let pairs = Array(zip(pages, pages.dropFirst()))

        let linked = !pairs.isEmpty && pairs.allSatisfy { followsLink($0, $1) }
        if linked || (pages.count == 1 && LinkHeader.url(first.responseHeaders["Link"], relation: "next") != nil) {
            var members: [JSONObject.Member] = [.init("kind", "link")]
            members += sized.isEmpty ? [] : sized
            members += totals.filter { $0.key == "totalCountPath" }
            return RecordingPaginator(
                pagination: JSONObject(members), parameters: sizeParameters,
                note: "link: each request followed the previous answer's Link rel=\"next\"")
        }
        for parameter in first.query.map(\.name) where !sizeParameters.contains(parameter) {
            guard let start = first.value(of: parameter).flatMap({ Int($0) }) else { continue }
            let values = pages.map { $0.value(of: parameter).flatMap { Int($0) } }
            guard values.allSatisfy({ $0 != nil }) else { continue }
            let numbers = values.compactMap { $0 }
            let steps = zip(numbers, numbers.dropFirst()).map { $1 - $0 }
            let pageNamed = ["page", "pagenumber", "pageno", "p", "pageindex"].contains(key(parameter))
            if (!steps.isEmpty && steps.allSatisfy { $0 == 1 }) || (steps.isEmpty && pageNamed) {
                var members: [JSONObject.Member] = [
                    .init("kind", "pageNumber"), .init("parameter", .string(parameter)), .init("firstPage", .int(start)),
                    .init("pageSize", .int(size?.value ?? max(1, firstCount))),
                ]
                if let size { members.append(.init("pageSizeParameter", .string(size.parameter))) }
                members += totals
                if !totals.contains(where: { $0.key == "totalPagesPath" }) { members.append(.init("maxPages", .int(max(10, pages.count)))) }
                return RecordingPaginator(
                    pagination: JSONObject(members), parameters: sizeParameters.union([parameter]),
                    note: "pageNumber: '\(parameter)' counted up from \(start) page by page")
            }
            let counts = pages.dropLast().map { records($0).count }
            let offsetNamed = ["offset", "start", "skip", "from", "startindex", "first"].contains(key(parameter))
            if start == 0, (!steps.isEmpty && zip(steps, counts).allSatisfy { $0 == $1 && $0 > 0 }) || (steps.isEmpty && offsetNamed) {
                var members: [JSONObject.Member] = [
                    .init("kind", "offset"), .init("parameter", .string(parameter)), .init("pageSize", .int(size?.value ?? max(1, firstCount))),
                ]
                if let size { members.append(.init("pageSizeParameter", .string(size.parameter))) }
                members += totals.filter { $0.key == "totalCountPath" }
                members.append(.init("maxPages", .int(max(10, pages.count))))
                return RecordingPaginator(
                    pagination: JSONObject(members), parameters: sizeParameters.union([parameter]),
                    note: "offset: '\(parameter)' stepped by each page's record count")
            }
        }
        if let (parameter, path) = cursor(pages) {
            var members: [JSONObject.Member] = [.init("kind", "cursor"), .init("parameter", .string(parameter)), .init("cursorPath", .string(path))]
            members += sized
            members += totals.filter { $0.key == "totalCountPath" }
            return RecordingPaginator(
                pagination: JSONObject(members), parameters: sizeParameters.union([parameter]),
                note: "cursor: the next request sent '\(parameter)' with the value at \(path) of the previous body")
        }
        return RecordingPaginator(
            pagination: nil, parameters: [],
            note: pages.count == 1 ? "none: one page was recorded and it names no next one" : "none: the recorded requests do not follow each other in any known way")
    }

    /// Names compared without case, `_` and `-`.
    static func key(_ name: String) -> String { String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }) }

    /// The page-size parameter: a number parameter named like one, at least as large as the first page.
    static func pageSize(_ first: RecordedExchange, records: Int) -> (parameter: String, value: Int)? {
        let names = ["perpage", "pagesize", "limit", "hitsperpage", "size", "count", "pagelen", "rows", "maxresults", "numresults", "pagelimit", "first"]
        for name in names {
            for item in first.query where key(item.name) == name {
                if let value = Int(item.value), value >= records, value > 0 { return (item.name, value) }
            }
        }
        return nil
    }

    /// `totalCountPath` and `totalPagesPath` when the body has top-level numbers named like them.
    static func totalMembers(_ body: JSONValue) -> [JSONObject.Member] {
        guard let object = body.object else { return [] }
        func find(_ names: [String]) -> String? {
            for name in names {
                if let member = object.members.first(where: { key($0.key) == name && $0.value.int != nil }) { return member.key }
            }
            return nil
        }
        var members: [JSONObject.Member] = []
        if let total = find(["totalcount", "total", "nbhits", "totalresults", "totalhits", "numfound", "totalitems", "totalrecords", "count"]) {
            members.append(.init("totalCountPath", .string(Self.path([.key(total)]))))
        }
        if let pages = find(["nbpages", "totalpages", "pagecount", "numpages", "lastpage", "pages"]) {
            members.append(.init("totalPagesPath", .string(Self.path([.key(pages)]))))
        }
        return members
    }

    static func path(_ segments: [JSONPath.Segment]) -> String { JSONPath(segments).description }

    static func followsLink(_ previous: RecordedExchange, _ next: RecordedExchange) -> Bool {
        guard let link = LinkHeader.url(previous.responseHeaders["Link"], relation: "next"), let url = URLComponents(string: link) else { return false }
        let query = (url.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        let scheme = url.scheme ?? ""
        let origin = "\(scheme)://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
        return origin == next.origin && url.path.split(separator: "/").map(String.init) == next.segments
            && query.count == next.query.count && zip(query, next.query).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// A parameter the later requests sent whose value the previous body held (outside its records), and where.
    static func cursor(_ pages: [RecordedExchange]) -> (String, String)? {
        guard pages.count > 1 else { return nil }
        let first = pages[0]
        for candidate in pages[1].query where first.value(of: candidate.name) != candidate.value {
            var path: String?
            for (previous, next) in zip(pages, pages.dropFirst()) {
                guard let value = next.value(of: candidate.name), !value.isEmpty, let found = locate(value, in: previous.json, at: []) else { return nil }
                if let path, path != found { return nil }
                path = found
            }
            if let path { return (candidate.name, path) }
        }
        return nil
    }

    /// The path to a scalar equal to `value` (not inside an array: a record's field is no cursor), depth-first.
    static func locate(_ value: String, in json: JSONValue, at path: [JSONPath.Segment]) -> String? {
        switch json {
        case .string(let text) where text == value: return path.isEmpty ? nil : Self.path(path)
        case .number(let text) where text == value: return path.isEmpty ? nil : Self.path(path)
        case .object(let object):
            for member in object.members {
                if let found = locate(value, in: member.value, at: path + [.key(member.key)]) { return found }
            }
            return nil
        default: return nil
        }
    }
}
