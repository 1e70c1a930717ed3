import AggregateCore
import AggregateJSON
import AggregateTestSupport
import AggregateText
import Foundation
import MeetupProvider
@testable import MessageBoardProvider
import Testing

/// Reading both list shapes, the saved message of a post, and the order of the text view.
@Suite struct MessageBoardNormalizerTests {
    /// Rails 3 with include_root_in_json: every record wrapped under "message"; timestamps without fractions.
    static let rootWrapped = #"""
        [
          {"message":{"id":11,"name":"Joe","message":"JSON is fun!","message_date":"2012-04-29","created_at":"2012-04-29T16:40:02Z","updated_at":"2012-04-30T08:00:00Z"}},
          {"message":{"id":12,"name":"\u003cem\u003eAda\u003c/em\u003e","message":"1 \u003c 2 \u0026\u0026 \"yes\"\nnext line \ud83d\ude00","message_date":null,"created_at":"2012-05-01T23:59:59Z","updated_at":"2012-05-01T23:59:59Z"}},
          {"message":{"id":10,"name":"","message":"older, anonymous","message_date":"2012-04-28","created_at":"2012-04-28T10:00:00Z","updated_at":"2012-04-28T10:00:00Z"}}
        ]
        """#

    /// jbuilder scaffold: flat records with url, timestamps with milliseconds and offsets.
    static let flat = #"""
        [
          {"id":1,"name":"Bo","message":"first","message_date":"2024-05-01","created_at":"2024-05-01T10:15:30.123Z","updated_at":"2024-05-01T10:15:30.123Z","url":"http://localhost:3000/messages/1.json"},
          {"id":2,"name":"Cy","message":"same day, later","message_date":"2024-05-01","created_at":"2024-05-01T14:00:00.000+02:00","updated_at":"2024-05-01T14:00:00.000+02:00","url":"http://localhost:3000/messages/2.json"},
          {"name":"no id","message":"skipped"}
        ]
        """#

    @Test func readsRootWrappedRecordsNewestFirst() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(Self.rootWrapped))
        #expect(page.items.map(\.id) == ["12", "11", "10"])
        #expect(page.next == nil)
        #expect(page.totalCount == 3)
        let joe = try #require(page.items.first { $0.id == "11" })
        #expect(joe.kind == "message")
        #expect(joe.title == "JSON is fun!")
        #expect(joe.author == "Joe")
        #expect(joe.createdAt == ISO8601.date(from: "2012-04-29"))
        #expect(joe.url == nil, "root-wrapped boards send no url, and none is invented")
        #expect(joe.extra == JSONObject(pairs: ["createdAt": "2012-04-29T16:40:02Z", "updatedAt": "2012-04-30T08:00:00Z"]))
    }

    @Test func escapedHTMLCharactersAreTextNotMarkup() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(Self.rootWrapped))
        let ada = try #require(page.items.first { $0.id == "12" })
        #expect(ada.author == "<em>Ada</em>")
        #expect(ada.title == "1 < 2 && \"yes\"\nnext line 😀")
    }

    @Test func aNullMessageDateFallsBackToCreatedAtAndAnEmptyNameIsOmitted() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(Self.rootWrapped))
        let ada = try #require(page.items.first { $0.id == "12" })
        #expect(ada.createdAt == ISO8601.date(from: "2012-05-01T23:59:59Z"))
        let anonymous = try #require(page.items.first { $0.id == "10" })
        #expect(anonymous.author == nil)
        #expect(anonymous.jsonValue["author"] == nil)
    }

    @Test func readsFlatJbuilderRecordsWithURLAndConvertsTimestampsToUTC() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(Self.flat))
        #expect(page.items.map(\.id) == ["2", "1"], "same message_date: the later created_at comes first; the record without id is skipped")
        let bo = try #require(page.items.last)
        #expect(bo.url == "http://localhost:3000/messages/1.json")
        #expect(bo.extra["createdAt"] == "2024-05-01T10:15:30.123Z", "the milliseconds the board sent are kept")
        #expect(bo.extra["updatedAt"] == "2024-05-01T10:15:30.123Z")
        let cy = try #require(page.items.first)
        #expect(cy.extra["createdAt"] == "2024-05-01T12:00:00.000Z", "+02:00 converted to UTC, at the precision given")
    }

    @Test func aFlatRecordsMessageStringIsNotMistakenForTheRootWrapper() throws {
        let element = try JSONParser().parse(#"{"id":5,"name":"N","message":"text"}"#)
        #expect(MessageBoardNormalizer.fields(element) == element)
        let wrapped = try JSONParser().parse(#"{"message":{"id":5,"name":"N","message":"text"}}"#)
        #expect(MessageBoardNormalizer.fields(wrapped) == element)
    }

    @Test func equalDatesFallBackToTheHigherId() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(#"[{"id":9,"message":"a"},{"id":10,"message":"b"},{"id":2,"message":"c"}]"#))
        #expect(page.items.map(\.id) == ["10", "9", "2"])
        #expect(page.items.allSatisfy { $0.createdAt == nil && $0.extra.isEmpty })
    }

    @Test func anEmptyBoardIsAnEmptyPage() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse("[]"))
        #expect(page.items.isEmpty)
        #expect(page.totalCount == 0)
    }

    @Test func aBodyThatIsNotAListIsADecodingError() throws {
        #expect(throws: AggregateError(.decoding, "/messages.json sent an object where a JSON array of messages was expected")) {
            try MessageBoardNormalizer.list(JSONParser().parse(#"{"messages":[]}"#))
        }
    }

    @Test func anHTMLPageInsteadOfJSONIsReportedAsSuch() async {
        let log = RequestLog()
        let transport = MessageBoardTesting.answering(200, "<!DOCTYPE html><html><body>Messages</body></html>", headers: ["Content-Type": "text/html"], log: log)
        let result = await MessageBoardTesting.run("list", transport: transport)
        #expect(result.error?.kind == .decoding)
        #expect(result.error?.message == "the API sent an HTML page instead of JSON (HTTP 200)")
    }

    // MARK: Saved message

    @Test(arguments: [
        (#"{"message":{"id":4,"name":"Alice","message":"Hello board!","message_date":"2012-05-01","created_at":"2012-05-04T12:00:00Z","updated_at":"2012-05-04T12:00:00Z"}}"#, nil as String?),
        (#"{"id":4,"name":"Alice","message":"Hello board!","message_date":"2012-05-01","created_at":"2012-05-04T12:00:00.000Z","updated_at":"2012-05-04T12:00:00.000Z","url":"http://localhost:3000/messages/4.json"}"#, "http://localhost:3000/messages/4.json"),
    ])
    func readsTheSavedMessageInEitherShapeWithItsLocation(body: String, url: String?) throws {
        let response = HTTPResponse(
            status: 201, headers: ["Location": "http://localhost:3000/messages/4", "Content-Type": "application/json"],
            body: Data(body.utf8), url: URL(string: "http://localhost:3000/messages.json"))
        let page = try MessageBoardNormalizer.saved(response, query: MessageBoardTesting.query("post", name: "Alice", message: "Hello board!"))
        let item = try #require(page.items.first)
        #expect(page.items.count == 1)
        #expect(item.id == "4")
        #expect(item.title == "Hello board!")
        #expect(item.author == "Alice")
        #expect(item.createdAt == ISO8601.date(from: "2012-05-01"))
        #expect(item.url == url)
        #expect(item.extra["location"] == "http://localhost:3000/messages/4")
        #expect(item.extra["createdAt"] == (url == nil ? "2012-05-04T12:00:00Z" : "2012-05-04T12:00:00.000Z"), "at the precision sent")
    }

    @Test func aRelativeLocationIsResolvedAgainstTheBoard() throws {
        let response = HTTPResponse(
            status: 200, headers: ["Location": "/messages/7"], body: Data(#"{"id":7,"name":"A","message":"B"}"#.utf8),
            url: URL(string: "http://127.0.0.1:3000/messages.json"))
        let page = try MessageBoardNormalizer.saved(response, query: MessageBoardTesting.query("post", name: "A", message: "B"))
        #expect(page.items.first?.extra["location"] == "http://127.0.0.1:3000/messages/7")
    }

    @Test func aCreatedAnswerWithoutBodyIsReadFromLocationAndThePost() throws {
        let response = HTTPResponse(status: 201, headers: ["Location": "http://127.0.0.1:3000/messages/31"], url: URL(string: "http://127.0.0.1:3000/messages.json"))
        var query = MessageBoardTesting.query("post", name: "Joe", message: "hi")
        query.now = MessageBoardTesting.now
        let item = try #require(MessageBoardNormalizer.saved(response, query: query).items.first)
        #expect(item.id == "31")
        #expect(item.title == "hi")
        #expect(item.author == "Joe")
        #expect(item.createdAt == MessageBoardTesting.now)
    }

    @Test func aSuccessThatCannotBeReadSaysTheMessageWasProbablySaved() {
        let query = MessageBoardTesting.query("post", name: "Joe", message: "hi")
        let noLocation = HTTPResponse(status: 201)
        #expect(throws: AggregateError(
            .decoding,
            "the board accepted the post (HTTP 201) but sent back neither the message nor its Location; the message was probably saved: check with 'aggregate messageboard list' before posting it again",
            httpStatus: 201)) { try MessageBoardNormalizer.saved(noLocation, query: query) }
        let html = HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html><body>Message was successfully created.</body></html>".utf8))
        #expect(throws: AggregateError(
            .decoding,
            "the API sent an HTML page instead of JSON (HTTP 200); the message was probably saved: check with 'aggregate messageboard list' before posting it again",
            httpStatus: 200)) { try MessageBoardNormalizer.saved(html, query: query) }
        let noID = HTTPResponse(status: 201, body: Data(#"{"name":"Joe"}"#.utf8))
        #expect(throws: AggregateError(
            .decoding,
            "the board's answer (HTTP 201) is not a saved message with an id; the message was probably saved: check with 'aggregate messageboard list' before posting it again",
            httpStatus: 201)) { try MessageBoardNormalizer.saved(noID, query: query) }
    }

    // MARK: Text view

    @Test func textViewShowsByNameOnDateNewestFirst() throws {
        let page = try MessageBoardNormalizer.list(JSONParser().parse(Self.rootWrapped))
        let result = ProviderResult(provider: "messageboard", operation: "list", items: page.items, meta: ResultMeta(source: .offline))
        let text = MessageBoardProvider().renderText(result, style: TextStyle(width: 80))
        #expect(text == """
            "1 < 2 && "yes"
             next line 😀" — by <em>Ada</em> on 2012-05-01
            "JSON is fun!" — by Joe on 2012-04-29
            "older, anonymous" — on 2012-04-28

            """)
    }

    @Test func textViewWrapsLongMessagesToTheWidth() {
        let item = Item(provider: "messageboard", kind: "message", id: "1", title: "one two three four five six seven", author: "Joe")
        let result = ProviderResult(provider: "messageboard", operation: "list", items: [item], meta: ResultMeta(source: .offline))
        let text = MessageBoardProvider().renderText(result, style: TextStyle(width: 20))
        #expect(text == "\"one two three four\n five six seven\" —\n by Joe\n")
        #expect(text.split(separator: "\n").allSatisfy { TextLayout.width(String($0)) <= 20 })
    }

    @Test func textViewOfAPostShowsIdAndLocation() {
        var item = Item(provider: "messageboard", kind: "message", id: "4", title: "Hello board!", author: "Alice", createdAt: ISO8601.date(from: "2012-05-01"))
        item.extra["location"] = "http://localhost:3000/messages/4"
        let result = ProviderResult(provider: "messageboard", operation: "post", items: [item], meta: ResultMeta(source: .live))
        #expect(MessageBoardProvider().renderText(result, style: TextStyle(width: 80)) == """
            Saved message 4: "Hello board!" — by Alice on 2012-05-01
            Location: http://localhost:3000/messages/4

            """)
    }
}
