import AggregateImport
import AggregateJSON
import Testing

@Suite struct ItemMappingGuessTests {
    func mapping(_ record: JSONValue) throws -> ItemMapping {
        try #require(ItemMappingGuess.guess(RecordField.fields(of: record, pointer: "/r"), pointer: "/r"))
    }

    @Test func aRepositoryMapsByNames() throws {
        let record: JSONValue = [
            "id": 42, "full_name": "octo/cat", "name": "cat", "html_url": "https://github.com/octo/cat", "url": "https://api.github.com/repos/octo/cat",
            "owner": ["login": "octo", "avatar_url": "https://avatars/x.png"], "description": "A cat.", "created_at": "2020-01-02T03:04:05Z",
            "stargazers_count": 7, "owner_id": 9,
        ]
        let item = try mapping(record).item
        #expect(item["id"] == "id")
        // The full name first: it is unique, as GitHub's own definition reads it.
        #expect(item["title"] == ["full_name", "name"])
        #expect(item["url"] == "html_url")
        #expect(item["author"] == "owner.login")
        #expect(item["createdAt"] == "created_at")
        #expect(item["summary"] == "description")
        #expect(item["imageUrl"] == "owner.avatar_url")
        #expect(item["metrics"] == ["stargazersCount": "stargazers_count"])
    }

    @Test func nestedTitlesAndEpochTimes() throws {
        let record: JSONValue = ["_id": "nyt://a/1", "headline": ["main": "Moon landing", "kicker": "x"], "web_url": "https://nyt.com/a", "created_at_i": 1_700_000_000]
        let mapping = try mapping(record)
        #expect(mapping.item["title"] == "headline.main")
        #expect(mapping.item["createdAt"] == ["path": "created_at_i", "dateFormat": "epoch-seconds"])
        #expect(mapping.item["id"] == "_id")
        #expect(mapping.report.notes.contains { $0.message.hasPrefix("author: no field") })
        // Without a field named like an id, the page's address stands in for one.
        let withoutID = try self.mapping(["headline": "Moon", "web_url": "https://nyt.com/a"])
        #expect(withoutID.item["id"] == "web_url")
        #expect(mapping.report.notes.contains { $0.message.hasPrefix("author: no field") })
    }

    @Test func keysThatAreNotPlainNamesAreQuoted() {
        #expect(RecordField(path: ["a.b", "c"], type: .string, pointer: "").jsonPath == #"["a.b"].c"#)
    }

    @Test func noTitleMeansNoMapping() {
        #expect(ItemMappingGuess.guess(RecordField.fields(of: ["id": 1, "count": 2], pointer: ""), pointer: "") == nil)
    }
}
