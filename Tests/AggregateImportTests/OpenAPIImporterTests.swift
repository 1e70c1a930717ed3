import AggregateCore
@testable import AggregateImport
import AggregateJSON
import AggregateScaffold
import AggregateTestSupport
import Foundation
import Testing

/// The OpenAPI importer's rules, each on a small inline document.
@Suite struct OpenAPIImporterTests {
    /// A 3.0 document with `paths` and `components` as given.
    static func document(_ paths: JSONValue, components: JSONValue = [:], extra: JSONObject = [:]) -> OpenAPIDocument {
        var root: JSONObject = ["openapi": "3.0.3", "info": ["title": "Book Shelf API", "version": "1"], "servers": [["url": "https://api.example.com/v1/"]], "paths": paths, "components": components]
        for member in extra.members { root[member.key] = member.value }
        return OpenAPIDocument(root: .object(root))
    }

    /// A GET answering `schema` as JSON.
    static func get(_ schema: JSONValue, parameters: JSONValue = [], extra: JSONObject = [:]) -> JSONValue {
        var operation: JSONObject = ["parameters": parameters, "responses": ["200": ["description": "ok", "content": ["application/json": ["schema": schema]]]]]
        for member in extra.members { operation[member.key] = member.value }
        return ["get": .object(operation)]
    }

    static let book: JSONValue = ["type": "object", "properties": [
        "id": ["type": "integer"], "title": ["type": "string"], "html_url": ["type": "string", "format": "uri"],
        "published_at": ["type": "string", "format": "date-time"],
    ]]

    static func run(_ document: OpenAPIDocument, _ options: OpenAPIImporter.Options = .init()) throws -> (definition: ImportedDefinition, operations: [OpenAPIImporter.Imported]) {
        try OpenAPIImporter.run(document, file: "doc.json", options: options)
    }

    static func operation(_ imported: ImportedDefinition, _ index: Int = 0) -> JSONValue? { imported.definition["operations"]?[index] }

    @Test func aListOfBooksBecomesAnOperationWithItsMappingSampleAndExample() throws {
        let doc = Self.document(["/books": Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Book"]], extra: ["operationId": "getBooks", "summary": "All books."])],
                                components: ["schemas": ["Book": Self.book]])
        let (imported, operations) = try Self.run(doc)
        #expect(imported.name.name == "book-shelf")
        #expect(imported.definition["baseURL"] == "https://api.example.com/v1")
        #expect(operations.map(\.name) == ["books"])
        let operation = try #require(Self.operation(imported))
        #expect(operation["records"] == ".")
        #expect(operation["kind"] == "book")
        #expect(operation["item"]?["title"] == "title")
        #expect(operation["item"]?["url"] == "html_url")
        #expect(operation["item"]?["createdAt"] == "published_at")
        #expect(imported.definition["examples"] == [["arguments": ["book-shelf", "books"], "summary": "All books."]])
        let sample = try JSONParser().parse(try #require(imported.samples.first?.pages.first))
        let records = try #require(sample.array)
        #expect(records.count == 3)
        #expect(Set(records.compactMap { $0["id"]?.int }).count == 3)
        #expect(records[0]["published_at"]?.string.flatMap(ISO8601.date(from:)) != nil)
        #expect(records[0]["html_url"]?.string?.hasPrefix("https://") == true)
    }

    /// `/authors/{id}/books`: the id is the author's, so the positional is `<author-id>`, not `<id>`.
    @Test func aPathIdIsNamedAfterTheSegmentBeforeIt() throws {
        let doc = Self.document(["/authors/{id}/books": Self.get(
            ["type": "array", "items": Self.book], parameters: [["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]]],
            extra: ["operationId": "authorBooks"])])
        let operation = try #require(Self.operation(try Self.run(doc).definition))
        #expect(operation["request"]?["path"] == "/authors/{author-id}/books")
        #expect(operation["parameters"]?[0]?["name"] == "author-id")
    }

    /// Forem's server is `https://dev.to/api` and every path starts with `/api/` too.
    @Test func aBasePathThatEveryPathRepeatsIsSentOnce() throws {
        let doc = Self.document(["/v1/books": Self.get(["type": "array", "items": Self.book]), "/v1/shelves": Self.get(["type": "array", "items": Self.book])])
        let (imported, _) = try Self.run(doc)
        #expect(imported.definition["baseURL"] == "https://api.example.com")
        #expect(imported.report.notes.contains { $0.kind == .guessed && $0.message.hasPrefix("every path starts with /v1/") })
        let other = Self.document(["/books": Self.get(["type": "array", "items": Self.book])])
        #expect(try Self.run(other).definition.definition["baseURL"] == "https://api.example.com/v1")
    }

    /// A schema that requires a property it does not declare (Forem's `comments_count`) still gets it in the
    /// samples; one an `allOf` member declares keeps its declared schema (Spotify's paging objects).
    @Test func requiredPropertiesAreInTheSamplesAndAllOfMembersDeclareThem() throws {
        let page: JSONValue = ["allOf": [
            ["type": "object", "required": ["items", "total"], "properties": ["total": ["type": "integer"]]],
            ["type": "object", "properties": ["items": ["type": "array", "items": Self.book]]],
        ]]
        var declared = Self.book.object ?? [:]
        declared["required"] = ["id", "comments_count"]
        let book = JSONValue.object(declared)
        let doc = Self.document(["/books": Self.get(page), "/shelf": Self.get(["type": "array", "items": book])])
        let (imported, operations) = try Self.run(doc)
        #expect(operations.map(\.name) == ["books", "shelf"], "the allOf page is a list, not one record")
        #expect(Self.operation(imported, 0)?["records"] == "items")
        let shelf = try JSONParser().parse(try #require(imported.samples.last?.pages.first))
        #expect(shelf[0]?["comments_count"] != nil)
    }

    @Test func recursiveSchemasAndReferenceLoopsEndInsteadOfHanging() throws {
        let doc = Self.document([
            "/comments": Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Comment"]], extra: ["operationId": "listComments"]),
            "/loop": Self.get(["$ref": "#/components/schemas/A"], extra: ["operationId": "loop"]),
        ], components: ["schemas": [
            "Comment": ["type": "object", "properties": ["id": ["type": "string"], "text": ["type": "string"], "replies": ["type": "array", "items": ["$ref": "#/components/schemas/Comment"]]]],
            "A": ["$ref": "#/components/schemas/B"], "B": ["$ref": "#/components/schemas/A"],
        ]])
        let (imported, operations) = try Self.run(doc)
        #expect(operations.map(\.name) == ["list-comments"])
        #expect(imported.report.notes.contains { $0.kind == .skipped && $0.pointer == "/paths/~1loop/get" && $0.message.contains("cannot be read") })
        // The recursion is cut where the schema names itself again: a record's replies are an empty list.
        let sample = try JSONParser().parse(try #require(imported.samples.first?.pages.first))
        #expect(sample[0]?["text"]?.string?.isEmpty == false)
        #expect(sample[0]?["replies"] == [])
    }

    @Test func recordsAreFoundInWrappersButOneRecordIsSkipped() throws {
        let doc = Self.document([
            "/search": Self.get(["type": "object", "properties": ["tracks": ["type": "object", "properties": [
                "total": ["type": "integer"], "items": ["type": "array", "items": ["$ref": "#/components/schemas/Book"]]]]]]),
            "/books/{id}": Self.get(["type": "object", "properties": ["id": ["type": "integer"], "title": ["type": "string"], "tags": ["type": "array", "items": ["type": "object", "properties": ["name": ["type": "string"]]]]]],
                                   parameters: [["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]]]),
            "/seeds": Self.get(["type": "object", "properties": [
                "seeds": ["type": "array", "items": ["type": "object", "properties": ["size": ["type": "integer"]]]],
                "tracks": ["type": "array", "items": ["$ref": "#/components/schemas/Book"]]]]),
        ], components: ["schemas": ["Book": Self.book]])
        let (imported, operations) = try Self.run(doc)
        #expect(operations.map(\.name) == ["search", "seeds"])
        #expect(Self.operation(imported, 0)?["records"] == "tracks.items")
        #expect(Self.operation(imported, 1)?["records"] == "tracks")
        #expect(imported.report.notes.contains { $0.kind == .skipped && $0.pointer == "/paths/~1books~1{id}/get" && $0.message.contains("one record") })
    }

    @Test func namesComeFromTheCLINameTheOperationIDOrThePath() {
        #expect(OpenAPINames.operationName(cliName: "top", operationID: "getTopAnime", path: "/top/anime") == "top")
        #expect(OpenAPINames.operationName(cliName: nil, operationID: "getAnimeSearch", path: "/anime") == "anime-search")
        #expect(OpenAPINames.operationName(cliName: nil, operationID: "get-an-albums-tracks", path: "/albums/{id}/tracks") == "albums-tracks")
        #expect(OpenAPINames.operationName(cliName: nil, operationID: "list_HTMLPages", path: "/") == "list-html-pages")
        #expect(OpenAPINames.operationName(cliName: nil, operationID: nil, path: "/users/{id}/repos") == "users-id-repos")
        #expect(OpenAPINames.operationName(cliName: nil, operationID: nil, path: "/articlesearch.json") == "articlesearch")
        #expect(OpenAPINames.providerName(title: "Jikan REST API") == "jikan")
        #expect(OpenAPINames.providerName(title: "Forem API V1") == "forem")
        #expect(OpenAPINames.kind(referenceName: nil, path: "/users/{id}/categories") == "category")
        #expect(OpenAPINames.kind(referenceName: "TrackObject", path: "/tracks") == "track")
    }

    @Test func repeatedNamesKeepTheirVerbOrGetANumberInDocumentOrder() throws {
        let list: JSONValue = ["type": "array", "items": ["$ref": "#/components/schemas/Book"]]
        let doc = Self.document([
            "/bookmarks": Self.get(list, extra: ["operationId": "listBookmarks"]),
            "/lists/{id}/bookmarks": Self.get(list, parameters: [["name": "id", "in": "path", "required": true, "schema": ["type": "string"]]], extra: ["operationId": "getListBookmarks"]),
            "/a": Self.get(list, extra: ["x-cli-name": "same"]),
            "/b": Self.get(list, extra: ["x-cli-name": "same"]),
        ], components: ["schemas": ["Book": Self.book]])
        let (imported, operations) = try Self.run(doc)
        #expect(operations.map(\.name) == ["list-bookmarks", "get-list-bookmarks", "same", "same-2"])
        // They answer the same schema, so their sample is one file, listed for each.
        let plan = imported.folderPlan(at: URL(fileURLWithPath: "/nowhere"))
        #expect(plan.created.map(\.path).filter { $0.hasPrefix("SampleData/") } == ["SampleData/list-bookmarks-1.json"])
        #expect(imported.definitionWithSamples["samples"]?["same-2"] == ["SampleData/list-bookmarks-1.json"])
    }

    @Test func parametersBecomePositionalsOptionsAndHeaders() throws {
        let doc = Self.document(["/shelves/{shelf}/books/{year}": Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Book"]], parameters: [
            ["name": "year", "in": "path", "required": true, "schema": ["type": "integer"], "example": 1999],
            ["name": "shelf", "in": "path", "required": true, "schema": ["type": "string"]],
            ["name": "order_by", "in": "query", "description": "How to order.\nMore words.", "schema": ["type": "string", "enum": ["title", "year"], "default": "title"]],
            ["name": "min_pages", "in": "query", "schema": ["type": "integer", "minimum": 1, "maximum": 900]],
            ["name": "format", "in": "query", "schema": ["type": "string"]],
            ["name": "X-Reader", "in": "header", "required": true, "schema": ["type": "string"]],
            ["name": "X-Trace", "in": "header", "schema": ["type": "string"]],
            ["name": "ids", "in": "query", "schema": ["type": "array", "items": ["type": "string"]]],
            ["name": "tags", "in": "query", "explode": false, "schema": ["type": "array", "items": ["type": "string"]]],
        ])], components: ["schemas": ["Book": Self.book]])
        let (imported, _) = try Self.run(doc)
        let operation = try #require(Self.operation(imported))
        let names = operation["parameters"]?.array?.compactMap { $0["name"]?.string }
        #expect(names == ["shelf", "year", "order-by", "min-pages", "query-format", "x-reader", "tags"])
        #expect(operation["parameters"]?[1] == ["name": "year", "type": "integer", "required": true, "positional": true, "help": "The API's 'year' path parameter."])
        #expect(operation["parameters"]?[2] == ["name": "order-by", "type": "enum", "values": ["title", "year"], "default": "title", "help": "How to order."])
        #expect(operation["parameters"]?[3]?["maximum"] == 900)
        #expect(operation["request"]?["path"] == "/shelves/{shelf}/books/{year}")
        #expect(operation["request"]?["query"]?["format"] == "{query-format}")
        #expect(operation["request"]?["headers"] == ["X-Reader": "{x-reader}"])
        #expect(imported.definition["examples"]?[0]?["arguments"] == ["book-shelf", "shelves-shelf-books-year", "1", "1999", "--x-reader", "example"])
        #expect(imported.report.notes.contains { $0.kind == .skipped && $0.message.contains("'ids' is array") })
        #expect(imported.report.notes.contains { $0.kind == .skipped && $0.message.contains("header 'X-Trace' left out") })
    }

    @Test func aRequiredParameterThatCannotBeSentSkipsTheOperation() throws {
        let doc = Self.document([
            "/a": Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Book"]], parameters: [["name": "session", "in": "cookie", "required": true]], extra: ["operationId": "a"]),
            "/b": Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Book"]], extra: ["operationId": "b"]),
        ], components: ["schemas": ["Book": Self.book]])
        let (imported, operations) = try Self.run(doc)
        #expect(operations.map(\.name) == ["b"])
        #expect(imported.report.notes.contains { $0.kind == .skipped && $0.pointer == "/paths/~1a/get" && $0.message.contains("cookie parameter 'session' cannot be sent") })
    }

    @Test func nonGetAndNonJSONOperationsAreReportedSkipped() throws {
        var paths = Self.get(["type": "array", "items": ["$ref": "#/components/schemas/Book"]]).object ?? JSONObject()
        paths["post"] = ["operationId": "addBook", "responses": ["201": ["description": "made"]]]
        let doc = Self.document(["/books": .object(paths), "/cover": ["get": ["operationId": "cover", "responses": ["200": ["description": "png", "content": ["image/png": ["schema": ["type": "string"]]]]]]]],
                                components: ["schemas": ["Book": Self.book]])
        let (imported, _) = try Self.run(doc)
        let skipped = imported.report.notes.filter { $0.kind == .skipped }.map(\.message)
        #expect(skipped.contains { $0.hasPrefix("POST /books (addBook): not a GET") })
        #expect(skipped.contains { $0.hasPrefix("GET /cover (cover): no 2xx response with a JSON schema") })
    }

    @Test func serversAndSwaggerHostsGiveTheBaseURL() throws {
        var report = ImportReport()
        let variables = OpenAPIDocument(root: ["openapi": "3.0.0", "paths": [:], "servers": [["url": "{address}/api/v1", "variables": ["address": ["default": "https://try.example.app"]]]]])
        #expect(OpenAPIServer.baseURL(variables, report: &report) == "https://try.example.app/api/v1")
        let swagger = OpenAPIDocument(root: ["swagger": "2.0", "paths": [:], "host": "api.example.com", "basePath": "/svc/v2", "schemes": ["http", "https"]])
        #expect(OpenAPIServer.baseURL(swagger, report: &report) == "https://api.example.com/svc/v2")
        let relative = OpenAPIDocument(root: ["openapi": "3.1.0", "paths": [:], "servers": [["url": "/api"]]])
        #expect(OpenAPIServer.baseURL(relative, report: &report) == nil)
        #expect(report.notes.last?.kind == .skipped)
    }

    @Test func securitySchemesBecomeCredentials() {
        let doc = OpenAPIDocument(root: ["openapi": "3.0.0", "paths": [:], "components": ["securitySchemes": [
            "key": ["type": "apiKey", "in": "header", "name": "api-key"],
            "bearer": ["type": "http", "scheme": "bearer"],
            "basic": ["type": "http", "scheme": "basic"],
            "client": ["type": "oauth2", "flows": ["clientCredentials": ["tokenUrl": "https://auth.example.com/token", "scopes": ["read": "Read."]]]],
            "user": ["type": "oauth2", "flows": ["authorizationCode": ["authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": [:]]]],
        ]]])
        let security = OpenAPISecurity(doc, requirements: [["key", "bearer", "basic", "client", "user"], ["key"]], prefix: "SHELF")
        #expect(security.auth.map { $0["variable"]?.string ?? "" } == ["SHELF_API_KEY", "SHELF_TOKEN", "SHELF_BASIC_AUTH", "SHELF_CLIENT_ID", "SHELF_CLIENT_SECRET", "SHELF_TOKEN_2"])
        #expect(security.auth[0] == ["variable": "SHELF_API_KEY", "in": "header", "parameter": "api-key", "required": true])
        #expect(security.auth[1]["required"] == nil)
        #expect(security.oauth2 == ["tokenURL": "https://auth.example.com/token", "scope": "read"])
        #expect(security.report.notes.contains { $0.kind == .guessed && $0.message.contains("authorizationCode") })
        let none = OpenAPIDocument(root: ["openapi": "3.0.0", "paths": [:], "security": [["key": []]]])
        #expect(OpenAPISecurity.requirement(of: ["security": []], document: none) == [])
        #expect(OpenAPISecurity.requirement(of: [:], document: none) == ["key"])
    }

    static func paging(_ parameters: JSONValue, response: JSONValue, headers: JSONValue? = nil, extra: JSONObject = [:]) throws -> JSONValue? {
        var operation: JSONObject = ["operationId": "list", "parameters": parameters, "responses": ["200": ["description": "ok", "content": ["application/json": ["schema": response]]]]]
        if let headers { operation["responses"] = ["200": ["description": "ok", "headers": headers, "content": ["application/json": ["schema": response]]]] }
        for member in extra.members { operation[member.key] = member.value }
        let doc = Self.document(["/books": ["get": .object(operation)]], components: ["schemas": ["Book": Self.book]])
        let (imported, _) = try Self.run(doc)
        return Self.operation(imported)?["pagination"]
    }

    static let books: JSONValue = ["type": "array", "items": ["$ref": "#/components/schemas/Book"]]
    static func query(_ name: String, _ schema: JSONValue = ["type": "integer"]) -> JSONValue { ["name": .string(name), "in": "query", "schema": schema] }

    @Test func pagingIsGuessedFromParametersAndResponseFields() throws {
        let pages = try Self.paging([Self.query("page"), Self.query("per_page", ["type": "integer", "default": 30])],
                                    response: ["type": "object", "properties": ["results": Self.books, "total_pages": ["type": "integer"], "total_results": ["type": "integer"]]])
        #expect(pages == ["kind": "pageNumber", "parameter": "page", "firstPage": 1, "pageSize": 30, "pageSizeParameter": "per_page", "totalPagesPath": "total_pages", "totalCountPath": "total_results"])
        let offsets = try Self.paging([Self.query("offset"), Self.query("limit", ["type": "integer", "maximum": 50])],
                                      response: ["type": "object", "properties": ["items": Self.books, "total": ["type": "integer"], "next": ["type": "string"]]])
        #expect(offsets == ["kind": "offset", "parameter": "offset", "pageSize": 50, "pageSizeParameter": "limit", "totalCountPath": "total"])
        let cursor = try Self.paging([Self.query("cursor", ["type": "string"]), Self.query("limit")],
                                     response: ["type": "object", "properties": ["bookmarks": Self.books, "nextCursor": ["type": "string", "nullable": true]]])
        #expect(cursor == ["kind": "cursor", "parameter": "cursor", "cursorPath": "nextCursor", "pageSize": 20, "pageSizeParameter": "limit"])
        let after = try Self.paging([Self.query("after", ["type": "string"])],
                                    response: ["type": "object", "properties": ["artists": ["type": "object", "properties": ["items": Self.books, "cursors": ["type": "object", "properties": ["after": ["type": "string"]]]]]]])
        #expect(after == ["kind": "cursor", "parameter": "after", "cursorPath": "artists.cursors.after"])
        let link = try Self.paging([Self.query("per_page")], response: Self.books, headers: ["Link": ["schema": ["type": "string"]]])
        #expect(link?["kind"] == "link")
        let none = try Self.paging([], response: Self.books)
        #expect(none == nil)
        let zeroBased = try Self.paging([Self.query("page", ["type": "integer", "minimum": 0, "maximum": 100])], response: ["type": "object", "properties": ["docs": Self.books]])
        #expect(zeroBased == ["kind": "pageNumber", "parameter": "page", "firstPage": 0, "pageSize": 10, "maxPages": 101])
    }

    @Test func theXPaginationExtensionIsHonoured() throws {
        let stated = try Self.paging([Self.query("p"), Self.query("n")], response: ["type": "object", "properties": ["data": Self.books]],
                                     extra: ["x-pagination": ["type": "page", "pageParam": "p", "limitParam": "n", "pageSize": 15]])
        #expect(stated == ["kind": "pageNumber", "parameter": "p", "pageSizeParameter": "n", "pageSize": 15, "firstPage": 1, "maxPages": 10])
    }

    @Test func theCursorAndTotalsOfTheSampleSayItIsTheLastPage() throws {
        let doc = Self.document(["/books": Self.get(["type": "object", "properties": ["books": Self.books, "next_token": ["type": "string"], "total_pages": ["type": "integer"]]],
                                                    parameters: [Self.query("next_token", ["type": "string"])])],
                                components: ["schemas": ["Book": Self.book]])
        let (imported, _) = try Self.run(doc)
        let sample = try JSONParser().parse(try #require(imported.samples.first?.pages.first))
        #expect(sample["next_token"] == .null)
        #expect(sample["books"]?.array?.count == 3)
    }

    @Test func aTitledExampleIsTheSampleAndAnUntitledOneIsNot() throws {
        func sample(_ example: JSONValue) throws -> JSONValue {
            let doc = Self.document(["/books": ["get": ["responses": ["200": ["description": "ok", "content": ["application/json": ["schema": Self.books, "example": example]]]]]]],
                                    components: ["schemas": ["Book": Self.book]])
            let (imported, _) = try Self.run(doc)
            return try JSONParser().parse(try #require(imported.samples.first?.pages.first))
        }
        let real: JSONValue = [["id": 7, "title": "Dune"]]
        #expect(try sample(real) == real)
        #expect(try sample([["id": 7]]).array?.count == 3)
    }

    @Test func unknownOperationsAreAUsageErrorWithCloseNames() throws {
        let doc = Self.document(["/books": Self.get(Self.books, extra: ["operationId": "getBooks"])], components: ["schemas": ["Book": Self.book]])
        #expect(try Self.run(doc, .init(operations: ["getBooks"])).operations.map(\.name) == ["books"])
        #expect(try Self.run(doc, .init(operations: ["books"])).operations.map(\.name) == ["books"])
        let error = #expect(throws: AggregateError.self) { try Self.run(doc, .init(operations: ["getBook"])) }
        #expect(error?.kind == .usage)
        #expect(error?.message.contains("did you mean") == true || error?.message.contains("getBooks") == true)
    }

    @Test func malformedDocumentsNameTheLineAndColumn() {
        let json = #expect(throws: AggregateError.self) { try OpenAPIDocument.parse(Data("{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {,}\n}".utf8), name: "bad.json") }
        #expect(error(json, contains: "bad.json: invalid JSON"))
        #expect(error(json, contains: "line 3"))
        let yaml = #expect(throws: AggregateError.self) { try OpenAPIDocument.parse(Data("openapi: 3.0.0\npaths:\n  /a: [1, 2\n".utf8), name: "bad.yaml") }
        #expect(error(yaml, contains: "bad.yaml: invalid YAML"))
        #expect(error(yaml, contains: "line "))
        let other = #expect(throws: AggregateError.self) { try OpenAPIDocument.parse(Data("{\"name\": 1}".utf8), name: "x.json") }
        #expect(error(other, contains: "not an OpenAPI or Swagger document"))
        #expect(other?.kind == .invalidInput && yaml?.kind == .invalidInput && json?.kind == .invalidInput)
    }

    func error(_ error: AggregateError?, contains text: String) -> Bool { error?.message.contains(text) == true }

    @Test func aYAMLSwaggerDocumentImports() throws {
        let yaml = """
            swagger: "2.0"
            info: {title: Quotes API, version: "1"}
            host: quotes.example.com
            securityDefinitions:
              key: {type: apiKey, in: query, name: api_key}
            security:
              - key: []
            paths:
              /quotes:
                get:
                  operationId: getQuotes
                  produces: [application/json]
                  parameters:
                    - {name: page, in: query, type: integer}
                  responses:
                    "200":
                      description: ok
                      schema:
                        type: object
                        properties:
                          quotes:
                            type: array
                            items: {$ref: "#/definitions/Quote"}
            definitions:
              Quote:
                type: object
                properties:
                  id: {type: string}
                  text: {type: string}
                  author: {type: string}
            """
        let document = try OpenAPIDocument.parse(Data(yaml.utf8), name: "quotes.yaml")
        let (imported, operations) = try Self.run(document)
        #expect(imported.name.name == "quotes")
        #expect(operations.map(\.name) == ["quotes"])
        #expect(imported.definition["auth"] == [["variable": "QUOTES_API_KEY", "in": "query", "parameter": "api_key", "required": true]])
        #expect(Self.operation(imported)?["records"] == "quotes")
        #expect(Self.operation(imported)?["item"]?["author"] == "author")
    }

    /// A document of tens of megabytes (a real one's paths repeated) imports: parsed once, its `$ref`s looked up
    /// once each. The time is measured by hand (see the import docs), not asserted.
    @Test func aLargeDocumentImports() throws {
        guard let shared = TestPaths.sharedSamples?.deletingLastPathComponent().appendingPathComponent("specs/openapi/jikan.moe-api-docs.json"),
              let data = try? Data(contentsOf: shared)
        else { return }  // /work/shared is not there: nothing to grow the document from
        let jikan = try JSONParser().parse(data)
        var paths: [JSONObject.Member] = []
        for copy in 0..<190 {
            for member in jikan["paths"]?.object?.members ?? [] { paths.append(.init("/v\(copy)" + member.key, member.value)) }
        }
        var root = jikan.object ?? JSONObject()
        root["paths"] = .object(JSONObject(paths))
        let text = JSONWriter().data(.object(root))
        #expect(text.count > 10_000_000)
        let document = try OpenAPIDocument.parse(text, name: "large.json")
        let (_, operations) = try Self.run(document)
        #expect(operations.count == 61 * 190)
    }
}
