import AggregateJSON
import Foundation

/// The paging an operation's parameters and response suggest (OpenAPI cannot state it), or the one its
/// `x-pagination` extension states: the definition's `pagination`, the query parameters it sends, and what the
/// samples must say so that the emulator's single page is the last.
struct OpenAPIPagination {
    /// The definition's `pagination`, or `nil` for one request.
    var pagination: JSONObject?
    /// The query parameters the engine sends for the paging, so they are not options too.
    var handled: Set<String> = []
    /// Values the samples get at these paths (from the body): one page of results, no next cursor.
    var samplePatches: [(path: [String], value: JSONValue)] = []
    var report = ImportReport()

    /// A few words for the summary: `pageNumber page`, `cursor cursor ← nextCursor`, `none`.
    var summary: String {
        guard let pagination, let kind = pagination["kind"]?.string else { return "none" }
        return [kind, pagination["parameter"]?.string, pagination["cursorPath"]?.string.map { "← " + $0 }].compactMap(\.self).joined(separator: " ")
    }

    static let pageNames = ["page", "pagenumber", "pageno", "pagenum"]
    static let offsetNames = ["offset", "start", "skip"]
    static let cursorNames = ["cursor", "after", "nexttoken", "paginationtoken", "pagetoken", "nextpagetoken", "startingafter", "continuation", "continuationtoken", "nextcursor", "starttoken"]
    static let pageSizeNames = ["perpage", "limit", "pagesize", "size", "count", "maxresults", "pagelimit", "itemsperpage", "max"]
    static let nextCursorFields = ["nextcursor", "nexttoken", "nextpagetoken", "cursor", "after", "endcursor", "continuation", "nextpage", "continuationtoken"]
    static let totalPagesFields = ["totalpages", "lastvisiblepage", "lastpage", "pagecount", "numpages", "pages"]
    static let totalCountFields = ["totalcount", "total", "totalresults", "totalitems", "hits", "numfound", "totalhits", "count"]

    /// `scalars`: the response's fields outside the records (``scalarPaths(in:skipping:document:)``).
    init(query: [OpenAPIParameter], records: OpenAPIRecords, scalars: [(path: [String], type: String, pointer: String)], responseHeaders: [String], operation: JSONObject, pointer: String) {
        func field(_ names: [String], types: Set<String>) -> (path: [String], pointer: String)? {
            for name in names {
                // Nearest the records first: beside them, then anywhere in the body.
                let matches = scalars.filter { FieldWords.key($0.path.last ?? "") == name && types.contains($0.type) }
                if let best = matches.min(by: { $0.path.count < $1.path.count }) { return (best.path, best.pointer) }
            }
            return nil
        }
        func parameter(_ names: [String]) -> OpenAPIParameter? {
            for name in names { if let found = query.first(where: { FieldWords.key($0.name) == name }) { return found } }
            return nil
        }
        func jsonPath(_ path: [String]) -> String { RecordField(path: path, type: .null, pointer: "").jsonPath }

        var object: [JSONObject.Member] = []
        let total = field(Self.totalCountFields, types: ["integer", "number"])
        let size = parameter(Self.pageSizeNames)
        func addPageSize() {
            let described = Self.describedPageSize(operation["description"]?.string) ?? query.lazy.compactMap { Self.describedPageSize($0.description) }.first
            let declared = (size?.schema?.defaultValue?.int ?? size?.example?.int).flatMap { $0 > 0 ? $0 : nil }
            // Without a size parameter the API's own page size is unknown: a guess too large would end the paging
            // after the first page (which then looks short), one too small only costs a last empty request.
            let pageSize = declared ?? described ?? size?.schema?.maximum.map { min(Int($0), 50) } ?? (size == nil ? 10 : 20)
            object.append(.init("pageSize", .int(max(1, pageSize))))
            if let size {
                object.append(.init("pageSizeParameter", .string(size.name)))
                handled.insert(size.name)
            }
            let why = declared != nil ? "the default of '\(size?.name ?? "")'" : described != nil ? "the number of results a page the description gives" : size == nil ? "no page size declared: a small guess, check the API's" : "no default declared, sent as '\(size?.name ?? "")'"
            report.add(.guessed, size?.pointer ?? pointer, "page size \(max(1, pageSize)) (\(why))")
        }
        func addTotal() {
            guard let total else { return }
            object.append(.init("totalCountPath", .string(jsonPath(total.path))))
            report.add(.guessed, total.pointer, "the count of all results is at \(jsonPath(total.path))")
            samplePatches.append((total.path, .int(3)))
        }

        if let stated = operation["x-pagination"]?.object, let read = Self.extensionPagination(stated) {
            object = read.members
            for key in ["parameter", "pageSizeParameter"] { if let name = read[key]?.string { handled.insert(name) } }
            if let cursor = read["cursorPath"]?.string { samplePatches.append((cursor.split(separator: ".").map(String.init), .null)) }
            if let pages = read["totalPagesPath"]?.string { samplePatches.append((pages.split(separator: ".").map(String.init), .int(1))) }
            report.add(.mapped, pointer + "/x-pagination", "paging \(read["kind"]?.string ?? "") as the x-pagination extension states it")
        } else if let cursor = parameter(Self.cursorNames), let next = field(Self.nextCursorFields, types: ["string", "integer"]) {
            object = [.init("kind", "cursor"), .init("parameter", .string(cursor.name)), .init("cursorPath", .string(jsonPath(next.path)))]
            handled.insert(cursor.name)
            if size != nil { addPageSize() }
            samplePatches.append((next.path, .null))
            report.add(.guessed, cursor.pointer, "cursor paging: sends '\(cursor.name)' with the value at \(jsonPath(next.path)) of the last page")
            addTotal()
        } else if let offset = parameter(Self.offsetNames) {
            object = [.init("kind", "offset"), .init("parameter", .string(offset.name))]
            handled.insert(offset.name)
            addPageSize()
            report.add(.guessed, offset.pointer, "offset paging by '\(offset.name)'")
            addTotal()
        } else if let page = parameter(Self.pageNames) {
            let first = (page.schema?.minimum == 0 || page.schema?.defaultValue?.int == 0) ? 0 : 1
            object = [.init("kind", "pageNumber"), .init("parameter", .string(page.name)), .init("firstPage", .int(first))]
            handled.insert(page.name)
            addPageSize()
            if let pages = field(Self.totalPagesFields, types: ["integer", "number"]) {
                object.append(.init("totalPagesPath", .string(jsonPath(pages.path))))
                samplePatches.append((pages.path, .int(1)))
                report.add(.guessed, pages.pointer, "the number of pages is at \(jsonPath(pages.path))")
            } else {
                let most = page.schema?.maximum.map { Int($0) - first + 1 }.flatMap { $0 >= 1 ? $0 : nil }
                object.append(.init("maxPages", .int(most ?? 10)))
                report.add(.guessed, page.pointer, "no field gives the number of pages: at most \(most ?? 10) pages (\(most == nil ? "a guess" : "the parameter's maximum")), while they come back full")
            }
            report.add(.guessed, page.pointer, "page-number paging by '\(page.name)' from \(first)")
            addTotal()
        } else if responseHeaders.contains(where: { $0.lowercased() == "link" }) {
            object = [.init("kind", "link")]
            if size != nil { addPageSize() }
            report.add(.guessed, pointer, "Link header paging (the response declares a Link header)")
            addTotal()
        } else {
            report.add(.guessed, pointer, "no paging: no page, offset or cursor parameter with a matching response field")
        }
        pagination = object.isEmpty ? nil : JSONObject(object)
    }

    /// A page size a description states: "each page will contain `30` articles", "10 results per page".
    static func describedPageSize(_ text: String?) -> Int? {
        guard let text = text?.lowercased().replacingOccurrences(of: "`", with: ""), text.contains("page"), text.contains(where: \.isNumber) else { return nil }
        let patterns = [#"(\d+)\s+(?:[a-z]+\s+){0,2}(?:per|a|each)\s+page"#, #"page (?:will )?(?:contains?|holds?|returns?|has) (\d+)"#]
        for pattern in patterns {
            guard let expression = try? NSRegularExpression(pattern: pattern),
                  let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text), let number = Int(text[range]), number > 0, number <= 1000
            else { continue }
            return number
        }
        return nil
    }

    /// The definition's paging from an `x-pagination` object that names it in this format's words or in common
    /// synonyms (`type: page`, `pageParam`, `limitParam`, `cursorParam`, `nextCursorPath`).
    static func extensionPagination(_ stated: JSONObject) -> JSONObject? {
        let kinds = ["page": "pageNumber", "pagenumber": "pageNumber", "offset": "offset", "cursor": "cursor", "link": "link", "none": "none"]
        guard let word = (stated["kind"] ?? stated["type"] ?? stated["style"])?.string, let kind = kinds[FieldWords.key(word)] else { return nil }
        func text(_ keys: [String]) -> String? {
            keys.lazy.compactMap { stated[$0]?.string }.first.map { $0.hasPrefix("$.") ? String($0.dropFirst(2)) : $0 }
        }
        var object: JSONObject = ["kind": .string(kind)]
        object.set("parameter", text(["parameter", "param", "pageParam", "offsetParam", "cursorParam"]).map(JSONValue.string))
        object.set("pageSizeParameter", text(["pageSizeParameter", "limitParam", "pageSizeParam", "sizeParam"]).map(JSONValue.string))
        object.set("pageSize", (stated["pageSize"] ?? stated["defaultPageSize"] ?? stated["limit"]).flatMap(\.int).map(JSONValue.int))
        object.set("cursorPath", text(["cursorPath", "nextCursorPath", "cursor"]).map(JSONValue.string))
        object.set("totalPagesPath", text(["totalPagesPath"]).map(JSONValue.string))
        object.set("totalCountPath", text(["totalCountPath", "totalPath"]).map(JSONValue.string))
        if kind == "pageNumber" {
            object.set("firstPage", .int(stated["firstPage"]?.int == 0 ? 0 : 1))
            if object["totalPagesPath"] == nil { object.set("maxPages", .int(stated["maxPages"]?.int ?? 10)) }
        }
        let needs: [String: [String]] = ["pageNumber": ["parameter", "pageSize"], "offset": ["parameter", "pageSize"], "cursor": ["parameter", "cursorPath"]]
        guard (needs[kind] ?? []).allSatisfy({ object[$0] != nil }) else { return nil }
        return object
    }

    /// The scalar fields of a response, three objects down, leaving out the records.
    static func scalarPaths(in response: OpenAPISchema, skipping records: [String], document: OpenAPIDocument) -> [(path: [String], type: String, pointer: String)] {
        var found: [(path: [String], type: String, pointer: String)] = []
        func walk(_ schema: OpenAPISchema, _ path: [String]) {
            guard path.count < 3 else { return }
            for (name, child) in schema.resolvedProperties(in: document) {
                let here = path + [name]
                guard here != records else { continue }
                switch child.type {
                case "object": walk(child, here)
                case let type?: if type != "array" { found.append((here, type, child.pointer)) }
                case nil: break
                }
            }
        }
        if response.type == "object" { walk(response, []) }
        return found
    }
}
