import AggregateCore
import AggregateDefinitions
import AggregateJSON
import Foundation
import Testing

/// The mapping of a record to the unified item: paths, fallbacks, templates, `oneOf` and every named transform,
/// run through a definition's provider on a response.
@Suite struct DefinitionMappingTests {
    /// The items a one-operation definition with `item` maps from `body`.
    static func items(_ item: JSONValue, _ body: String, records: String = "hits") throws -> [Item] {
        let definition: JSONValue = [
            "name": "demo", "summary": "Demo.", "docsURL": "https://demo.example", "baseURL": "https://api.demo.example",
            "operations": [["name": "search", "summary": "Search.", "kind": "story", "request": ["path": "/s"], "records": .string(records), "item": item]],
        ]
        let provider = DeclarativeProvider(try ProviderDefinition(json: JSONWriter().data(definition)))
        var query = Query(provider: "demo", operation: "search", baseURL: URL(string: "https://api.demo.example")!)
        try provider.configure(&query)
        return try provider.normalize(HTTPResponse(status: 200, body: Data(body.utf8)), for: query).items
    }

    @Test func fallbacksSkipMissingNullAndBlankValues() throws {
        let body = #"{"hits": [{"id": 7, "story_title": "S", "url": ""}, {"id": "8", "title": null, "story_title": "T", "url": "https://x"}, {"id": 9, "title": "  "}]}"#
        let items = try Self.items(["id": "id", "title": ["title", "story_title"], "url": ["url", ["template": "https://news.example/item?id={id}"]]], body)
        #expect(items.map(\.id) == ["7", "8"], "a record whose title is empty everywhere is skipped; numeric ids become text")
        #expect(items.map(\.title) == ["S", "T"])
        #expect(items.map(\.url) == ["https://news.example/item?id=7", "https://x"])
    }

    @Test func aTemplateWithAnEmptyPlaceholderFallsThrough() throws {
        let body = #"{"hits": [{"id": 1, "t": "A", "message": "Validation Failed", "errors": [{"field": "q"}]}, {"id": 2, "t": "B", "message": "Gone"}]}"#
        let items = try Self.items(["id": "id", "title": "t", "summary": ["{message}: {errors[0].field}", "message"]], body)
        #expect(items.map(\.summary) == ["Validation Failed: q", "Gone"])
    }

    @Test func kindFromTheFirstTagInAList() throws {
        let body = #"{"hits": [{"id": 1, "t": "A", "_tags": ["comment", "author_x", "story_1"]}, {"id": 2, "t": "B", "_tags": ["author_y", "story"]}, {"id": 3, "t": "C", "_tags": []}]}"#
        let items = try Self.items(["id": "id", "title": "t", "kind": ["path": "_tags", "oneOf": ["story", "comment"]]], body)
        #expect(items.map(\.kind) == ["comment", "story", "story"], "no match falls back to the operation's kind")
    }

    @Test(arguments: [
        ("iso8601", #""2006-10-09T21:52:45.120+02:00""#, "2006-10-09T19:52:45.120Z"),
        ("iso8601", #""2025-07-16T13:54:55Z""#, "2025-07-16T13:54:55Z"),
        ("epoch-seconds", "1160423565", "2006-10-09T19:52:45Z"),
        ("epoch-seconds", #""1160423565""#, "2006-10-09T19:52:45Z"),
        ("epoch-milliseconds", "1160423565000", "2006-10-09T19:52:45Z"),
        ("rfc2822", #""Mon, 09 Oct 2006 21:52:45 +0200""#, "2006-10-09T19:52:45Z"),
        ("rfc2822", #""Mon, 09 Oct 2006 19:52:45 GMT""#, "2006-10-09T19:52:45Z"),
        ("twitter", #""Mon Oct 09 19:52:45 +0000 2006""#, "2006-10-09T19:52:45Z"),
    ])
    func datesInEveryNamedFormat(_ format: String, _ value: String, _ expected: String) throws {
        let items = try Self.items(
            ["id": "id", "title": "t", "createdAt": ["path": "d", "transform": "date", "dateFormat": .string(format)], "extra": ["when": ["path": "d", "transform": "date", "dateFormat": .string(format)]]],
            #"{"hits": [{"id": 1, "t": "A", "d": \#(value)}]}"#)
        #expect(items.first?.createdAt == ISO8601.date(from: expected))
        #expect(items.first?.extra["when"] == .string(expected), "a date in extra is ISO 8601 text in UTC, keeping ISO input's precision")
    }

    @Test func createdAtReadsISOTextAndEpochNumbersWithoutAFormat() throws {
        let items = try Self.items(["id": "id", "title": "t", "createdAt": "d"], #"{"hits": [{"id": 1, "t": "A", "d": 1160423565}, {"id": 2, "t": "B", "d": "2006-10-09T19:52:45Z"}, {"id": 3, "t": "C", "d": "soon"}]}"#)
        #expect(items.map { $0.createdAt.map(ISO8601.string(from:)) } == ["2006-10-09T19:52:45Z", "2006-10-09T19:52:45Z", nil])
    }

    @Test func htmlNumbersJoinAndCase() throws {
        let body = #"""
            {"hits": [{"id": 1, "t": "A", "html": "<p>It&#x27;s <i>fine</i> &amp; done\\nnext<p>para &quot;two&quot;", "n": "42", "bad": "many",
             "topics": ["swift", "ios"], "lang": "Swift", "points": 3}]}
            """#
        let items = try Self.items([
            "id": "id", "title": "t", "summary": ["path": "html", "transform": "html-text"],
            "metrics": ["n": ["path": "n", "transform": "number"], "bad": ["path": "bad", "transform": "number"], "points": "points", "text": "n"],
            "tags": "topics", "subtitle": ["path": "lang", "transform": ["lowercase"]], "author": ["path": "lang", "transform": "uppercase"],
            "extra": ["joined": ["path": "topics", "transform": "join", "separator": " + "], "trimmed": ["constant": "  x  ", "transform": "trim"]],
        ], body)
        let item = try #require(items.first)
        #expect(item.summary == "It's fine & done next para \"two\"")
        #expect(item.metrics == ["n": 42, "points": 3, "text": 42], "numeric text is a number; text that is not a number is left out")
        #expect(item.tags == ["swift", "ios"])
        #expect(item.subtitle == "swift")
        #expect(item.author == "SWIFT")
        #expect(item.extra["joined"] == "swift + ios")
        #expect(item.extra["trimmed"] == "x")
    }

    @Test func nestedPathsThroughNullAndABareTopLevelArray() throws {
        let body = #"[{"id": 1, "t": "A", "license": null, "owner": {"login": "ada"}, "geo": {"lat": "51.5", "lon": -0.12, "city": "London"}}]"#
        let items = try Self.items([
            "id": "id", "title": "t", "author": "owner.login", "extra": ["license": "license.spdx_id"],
            "location": ["city": "geo.city", "latitude": "geo.lat", "longitude": "geo.lon"],
        ], body, records: ".")
        let item = try #require(items.first)
        #expect(item.author == "ada")
        #expect(item.extra["license"] == nil, "a path through null is empty, so the key is left out")
        #expect(item.location == Location(city: "London", latitude: 51.5, longitude: -0.12))
    }

    @Test func aResponseWithoutTheRecordsIsADecodingError() throws {
        #expect(throws: AggregateError.self) { try Self.items(["id": "id", "title": "t"], #"{"message": "x"}"#) }
    }

    @Test func templatesRenderConditionalPartsAndLiteralBraces() throws {
        let template = try Template(parsing: "{query}{language? language:{language}} {{x}}")
        #expect(template.names == ["query", "language", "language"])
        #expect(template.render { ["query": "swift", "language": "Go"][$0] } == "swift language:Go {x}")
        #expect(template.render { ["query": "swift"][$0] } == "swift {x}")
        #expect(template.render { ["language": "Go"][$0] } == nil, "a missing plain placeholder empties the whole template")
        #expect(try Template(parsing: "/search{by-date?_by_date}").render { ["by-date": "false"][$0] } == "/search")
        #expect(throws: TemplateSyntaxError.self) { try Template(parsing: "a}b") }
        #expect(throws: TemplateSyntaxError.self) { try Template(parsing: "{}") }
    }
}
