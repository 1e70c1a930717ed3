import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateTestSupport
import AggregateText
import Foundation
import Testing

@Suite struct ItemFieldTests {
    func item(_ id: String, title: String, stars: Decimal? = nil, created: TimeInterval? = nil) -> Item {
        var item = Item(provider: "demo", kind: "group", id: id, title: title)
        if let stars { item.metrics["stars"] = stars }
        item.createdAt = created.map(Date.init(timeIntervalSince1970:))
        item.location = Location(city: "Oslo")
        return item
    }

    @Test func parsesFieldsPartsAndRejectsUnknownNamesListingTheValidOnes() throws {
        #expect(try ItemFieldPath.list("title, url,metrics.stars,location.city,title").map(\.description) == ["title", "url", "metrics.stars", "location.city"])
        for bad in ["titel", "location.town", "metrics.", "", "title.x"] {
            #expect {
                try ItemFieldPath.list(bad)
            } throws: { error in
                let error = error as? AggregateError
                return error?.kind == .usage && error?.message.contains("Valid fields: provider, kind, id, title,") == true
            }
        }
        #expect(ItemFieldPath.validNames.contains("metrics.<name>"))
        #expect(Item.Field.allCases.map(\.rawValue) == ["provider", "kind", "id", "title", "subtitle", "summary", "url", "imageUrl", "author", "createdAt", "location", "metrics", "tags", "extra"])
    }

    @Test func theFieldListMatchesTheJSONContract() {
        var full = item("1", title: "t", stars: 1, created: 0)
        full.subtitle = "s"; full.summary = "m"; full.url = "u"; full.imageUrl = "i"; full.author = "a"
        #expect(full.jsonValue.object?.keys == Item.Field.allCases.map(\.rawValue), "Item.Field is the JSON order")
    }

    @Test func selectionKeepsOnlyTheNamedFieldsNestingParts() {
        let selected = item("1", title: "Jazz", stars: 5).jsonValue(selecting: try! ItemFieldPath.list("metrics.stars,title,location.city,url"))
        #expect(JSONWriter().string(selected) == #"{"metrics":{"stars":5},"title":"Jazz","location":{"city":"Oslo"}}"#)
    }

    @Test func sortIsStableAndPutsItemsWithoutTheFieldLast() throws {
        let items = [
            item("a", title: "b", stars: 3), item("b", title: "A", stars: nil), item("c", title: "c", stars: 10),
            item("d", title: "a", stars: 3),
        ]
        #expect(try ItemSort(parsing: "metrics.stars").sorted(items).map(\.id) == ["a", "d", "c", "b"])
        #expect(try ItemSort(parsing: "-metrics.stars").sorted(items).map(\.id) == ["c", "a", "d", "b"], "equal stars keep the API's order")
        #expect(try ItemSort(parsing: "title").sorted(items).map(\.id) == ["b", "d", "a", "c"], "case-insensitive, stable")
        let dated = [item("old", title: "x", created: 100), item("none", title: "y"), item("new", title: "z", created: 200)]
        #expect(try ItemSort(parsing: "-createdAt").sorted(dated).map(\.id) == ["new", "old", "none"])
        #expect(try ItemSort(parsing: "createdAt").sorted(dated).map(\.id) == ["old", "new", "none"])
        #expect(throws: AggregateError.self) { try ItemSort(parsing: "tags") }
        #expect(throws: AggregateError.self) { try ItemSort(parsing: "-nope") }
    }

    @Test func sortedAndSelectedResultsSaySoInMeta() throws {
        let result = ProviderResult(provider: "demo", operation: "x", items: [item("1", title: "b"), item("2", title: "a")], meta: ResultMeta(source: .offline))
        let shaped = result.sorted(by: try ItemSort(parsing: "-title")).selecting(try ItemFieldPath.list("id"))
        let meta = shaped.jsonValue["meta"]
        #expect(meta?["sortedLocally"]?.string == "-title")
        #expect(meta?["fields"]?.array?.compactMap(\.string) == ["id"])
        #expect(result.jsonValue["meta"]?["sortedLocally"] == nil, "absent unless --sort was given")
        #expect(ItemTable([shaped]).csv == "id\r\n1\r\n2\r\n")
        #expect(ItemTable([shaped]).text(width: 80) == "id\n1\n2\n")
    }

    @Test func textTableFitsTheWidth() throws {
        var long = item("1", title: String(repeating: "word ", count: 30))
        long.url = "https://example.com/" + String(repeating: "x", count: 80)
        let table = ItemTable([ProviderResult(provider: "demo", operation: "x", items: [long], meta: ResultMeta(source: .offline))], fields: try ItemFieldPath.list("title,url,location.city"))
        let lines = table.text(width: 60).split(separator: "\n")
        #expect(lines.first?.hasPrefix("title") == true)
        #expect(lines.allSatisfy { TextLayout.width(String($0)) <= 60 })
        #expect(lines[1].hasSuffix("Oslo"))
    }
}

/// The JSON Schema of results lists exactly the fields of ``Item/Field``, in order.
@Suite struct ItemFieldSchemaTests {
    @Test func theResultSchemaHasExactlyTheItemFields() throws {
        let url = TestPaths.packageRoot.appendingPathComponent("Schemas/aggregate-result.schema.json")
        let schema = try JSONParser().parse(Data(contentsOf: url))
        let properties = try #require(schema["$defs"]?["itemFields"]?["properties"]?.object)
        #expect(properties.keys == Item.Field.allCases.map(\.rawValue))
    }
}
