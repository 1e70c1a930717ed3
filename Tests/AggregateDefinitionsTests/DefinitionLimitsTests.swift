@testable import AggregateCore
@testable import AggregateDefinitions
@testable import AggregateJSON
import Foundation
import Testing

/// `rateBudgets`, `cache` and `sandboxCaching` in a definition: read onto ``RateBudget``, ``CacheFreshness`` and
/// ``APICaching``, and every mistake refused with its JSON pointer; item kinds keep to the result schema's pattern.
@Suite struct DefinitionLimitsTests {
    typealias Loader = DefinitionLoaderTests

    /// The loader's valid definition with a token declared and `changes` applied.
    static func definition(_ changes: [(path: [Any], value: JSONValue)]) throws -> ProviderDefinition {
        var document = JSONValue.object(Loader.valid())
        Loader.set(&document, ["auth"], [["variable": "BOOKS_TOKEN", "in": "bearer"]])
        for change in changes { Loader.set(&document, change.path, change.value) }
        return try ProviderDefinition(json: JSONWriter().data(document))
    }

    @Test func theFieldsMapOneToOneOntoTheDescriptorAndTheEmulator() throws {
        let definition = try Self.definition([
            (["rateBudgets"], [
                ["name": "search", "requests": 30, "window": 60, "paths": ["/v1/**"], "whenSet": "BOOKS_TOKEN"],
                ["name": "search", "requests": 10, "window": 0.5, "paths": ["/v1/**"], "perEndpoint": true],
            ]),
            (["cache"], ["defaultSeconds": 600, "operations": ["search": 120], "endpoints": [["pathPrefix": "/v1/config", "seconds": 86_400]]]),
            (["sandboxCaching"], ["validators": "lastModified", "cacheControl": "max-age=60"]),
        ])
        #expect(definition.descriptor.rateBudgets == [
            RateBudget("search", requests: 30, per: 60, paths: ["/v1/**"], whenSet: "BOOKS_TOKEN"),
            RateBudget("search", requests: 10, per: 0.5, paths: ["/v1/**"], perEndpoint: true),
        ])
        #expect(definition.descriptor.cacheFreshness == CacheFreshness(defaultSeconds: 600, operations: ["search": 120], endpoints: [.init("/v1/config", seconds: 86_400)]))
        #expect(definition.sandboxCaching == APICaching(validators: .lastModified, cacheControl: "max-age=60"))
        // The cache shape is the one `describe --format json` prints, so it reads back the same.
        #expect(try Self.definition([(["cache"], definition.descriptor.cacheFreshness.jsonValue)]).descriptor.cacheFreshness == definition.descriptor.cacheFreshness)
    }

    @Test func absentFieldsKeepTheDefaults() throws {
        let definition = try Self.definition([])
        #expect(definition.descriptor.rateBudgets.isEmpty)
        #expect(definition.descriptor.cacheFreshness == .standard)
        #expect(definition.sandboxCaching == .etag)
    }

    @Test(arguments: [
        // (path, value, pointer, words in the message)
        ("rateBudgets", JSONValue.array([["name": "search", "requests": 10, "window": 0]]), "/rateBudgets/0/window", "must be seconds between 0.001 and 86400"),
        ("rateBudgets", [["name": "search", "requests": 10, "window": "1m"]], "/rateBudgets/0/window", "must be a number, not string"),
        ("rateBudgets", [["name": "search", "requests": -1, "window": 60]], "/rateBudgets/0/requests", "must be between 1 and 1000000"),
        ("rateBudgets", [["name": "search", "requests": 2.5, "window": 60]], "/rateBudgets/0/requests", "must be a whole number"),
        ("rateBudgets", [["name": "search", "requests": 10, "window": 60, "whenSet": "GITHUB_TOKEN"]], "/rateBudgets/0/whenSet",
         "'GITHUB_TOKEN' is not a variable this definition declares in auth (declared: BOOKS_TOKEN)"),
        ("rateBudgets", [["name": "search", "requests": 10, "window": 60], ["name": "search", "requests": 30, "window": 60, "whenSet": "BOOKS_TOKEN"]],
         "/rateBudgets/1/name", "an earlier 'search' tier without whenSet always applies"),
        ("rateBudgets", [["name": "search", "requests": 10, "window": 60, "paths": ["search/**"]]], "/rateBudgets/0/paths/0", "must start with '/'"),
        ("rateBudgets", [["name": "search", "requests": 10]], "/rateBudgets/0", "misses the required field 'window'"),
        ("rateBudgets", [["name": "search", "requests": 10, "window": 60, "burst": 3]], "/rateBudgets/0/burst", "is not a field here"),
        ("cache", ["defaultSeconds": -5], "/cache/defaultSeconds", "must be between 0 and 31536000"),
        ("cache", ["operations": ["find": 60]], "/cache/operations/find", "'find' is not an operation of this definition (operations: search)"),
        ("cache", ["endpoints": [["pathPrefix": "config", "seconds": 60]]], "/cache/endpoints/0/pathPrefix", "must start with '/'"),
        ("cache", ["endpoints": [["pathPrefix": "/config"]]], "/cache/endpoints/0", "misses the required field 'seconds'"),
        ("sandboxCaching", ["validators": "etags"], "/sandboxCaching/validators", "must be one of etag, lastModified, etagAndLastModified, none"),
        ("sandboxCaching", ["cacheControl": "no-cache"], "/sandboxCaching", "misses the required field 'validators'"),
        ("operations/0/kind", "Book", "/operations/0/kind", "'Book' must be lower-case letters, digits and '-'"),
        ("operations/0/item/kind", ["constant": "a book"], "/operations/0/item/kind", "must be lower-case letters, digits and '-'"),
    ] as [(String, JSONValue, String, String)])
    func eachMistakeNamesItsPointer(_ path: String, _ value: JSONValue, _ pointer: String, _ words: String) throws {
        let keys = path.split(separator: "/").map { Int($0).map { $0 as Any } ?? String($0) }
        do {
            _ = try Self.definition([(keys, value)])
            Issue.record("expected \(pointer) to be refused")
        } catch let error as DefinitionProblem {
            #expect(error.pointer == pointer)
            #expect(error.message.contains(words), "\(error.message)")
        }
    }

    /// A kind read from a record that is no lower-case identifier gives way to the operation's declared kind.
    @Test func aKindReadFromARecordFallsBackWhenItBreaksThePattern() throws {
        let definition = try Self.definition([(["operations", 0, "item", "kind"], ["path": "type"])])
        let mapper = DefinitionMapper(provider: "bookshelf", operation: try #require(definition.operation(named: "search")))
        func kind(_ type: JSONValue) -> String? { mapper.item(from: ["id": 1, "title": "T", "type": type])?.kind }
        #expect(kind("novel") == "novel")
        #expect(kind("short-story") == "short-story")
        #expect(kind("Short Story") == "book")
        #expect(kind("") == "book")
        #expect(kind(.null) == "book")
    }

    /// A relative link (DEV's `/uploads/...`) is resolved against the definition's base URL; text that is no URL
    /// at all is left out, so the item always fits the result schema's `uri`.
    @Test func relativeLinksResolveAgainstTheBaseURLAndNonLinksAreLeftOut() throws {
        let definition = try Self.definition([(["operations", 0, "item", "url"], "link"), (["operations", 0, "item", "imageUrl"], "image")])
        let operation = try #require(definition.operation(named: "search"))
        let mapper = DefinitionMapper(provider: "bookshelf", operation: operation, linkBase: URL(string: "https://books.example/api/"))
        let item = try #require(mapper.item(from: ["id": 1, "title": "T", "link": "/b/1", "image": "covers/1.png"]))
        #expect(item.url == "https://books.example/b/1")
        #expect(item.imageUrl == "https://books.example/api/covers/1.png")
        #expect(mapper.item(from: ["id": 1, "title": "T", "link": "https://elsewhere.example/b/1"])?.url == "https://elsewhere.example/b/1")
        let unresolved = DefinitionMapper(provider: "bookshelf", operation: operation)
        #expect(unresolved.item(from: ["id": 1, "title": "T", "link": "/b/1"])?.url == nil)
    }
}
