import AggregateCore
import AggregateRendering
import Foundation
import Testing

@Suite struct TableRendererTests {
    let result: ProviderResult = {
        var tricky = Item(provider: "demo", kind: "group", id: "1", title: "Commas, \"quotes\"\nand a newline — 東京 ☕")
        tricky.summary = "a | pipe and a \\ backslash"
        tricky.tags = ["x", "y;z"]
        tricky.metrics = ["members": 12, "rating": Decimal(string: "4.5")!]
        tricky.location = Location(city: "Zürich", latitude: 47.37)
        var plain = Item(provider: "demo", kind: "group", id: "2", title: "Plain")
        plain.metrics = ["lenders": 3]
        return ProviderResult(provider: "demo", operation: "x", items: [tricky, plain], meta: ResultMeta(source: .offline))
    }()

    @Test func csvFollowsRFC4180() {
        let lines = ItemTable([result]).csv.components(separatedBy: "\r\n")
        #expect(lines[0] == "provider,kind,id,title,subtitle,summary,url,imageUrl,author,createdAt,city,country,latitude,longitude,tags,metric_lenders,metric_members,metric_rating")
        #expect(lines[1] == "demo,group,1,\"Commas, \"\"quotes\"\"\nand a newline — 東京 ☕\",,a | pipe and a \\ backslash,,,,,Zürich,,47.37,,x;y;z,,12,4.5")
        #expect(lines[2] == "demo,group,2,Plain,,,,,,,,,,,,3,,")
        #expect(lines[3] == "")
    }

    @Test func markdownEscapesPipesAndLineBreaks() {
        let lines = ItemTable([result]).markdown.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("| --- | --- |"))
        #expect(lines[2].contains("Commas, \"quotes\"<br>and a newline — 東京 ☕"))
        #expect(lines[2].contains("a \\| pipe and a \\\\ backslash"))
        #expect(lines[2].split(separator: "|", omittingEmptySubsequences: false).count - 2 == ItemTable([result]).columns.count + 1, "the escaped pipe is not a column border")
    }
}
