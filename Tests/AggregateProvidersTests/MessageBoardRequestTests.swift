import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import MessageBoardProvider
import Testing

/// The exact requests the client sends, and that posts are never retried.
@Suite struct MessageBoardRequestTests {
    static let created = #"{"message":{"id":4,"name":"x","message":"y","message_date":"2026-11-29","created_at":"2026-11-29T14:03:00Z","updated_at":"2026-11-29T14:03:00Z"}}"#

    @Test func postSendsTheWrappedJSONBodyByteForByte() async throws {
        let log = RequestLog()
        let transport = MessageBoardTesting.answering(201, Self.created, log: log)
        let result = await MessageBoardTesting.run(
            "post", name: "Zoë \"Z\" O'Neil", message: "Line one\nLine \"two\" 🎉\ttab \\ back\u{7}", transport: transport)
        #expect(result.error == nil)
        let request = try #require(log.requests.first)
        #expect(log.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://127.0.0.1:3000/messages.json")
        #expect(request.headers.fields.map { "\($0.name): \($0.value)" } == ["Accept: application/json", "Content-Type: application/json"])
        let expected = #"{"message":{"name":"Zoë \"Z\" O'Neil","message":"Line one\nLine \"two\" 🎉\ttab \\ back\u0007","message_date":"2026-11-29T14:03:00Z"}}"#
        #expect(request.body == Data(expected.utf8))
        // UTF-8 on the wire: ë is two bytes, the emoji four, never \u escapes.
        #expect(request.body?.contains(Data([0xC3, 0xAB])) == true)
        #expect(request.body?.contains(Data([0xF0, 0x9F, 0x8E, 0x89])) == true)
    }

    @Test func theDateIsTheRunsClockInUTCWithSecondsAndZ() throws {
        // 23:59:59.9 on 31 December in UTC: no rounding into the next year, no local time zone.
        let spec = try MessageBoardTesting.postRequest(
            baseURL: URL(string: "https://board.example/")!, name: "a", message: "b", date: Date(timeIntervalSince1970: 1_924_991_999.9))
        #expect(spec.url.absoluteString == "https://board.example/messages.json")
        #expect(String(decoding: spec.body ?? Data(), as: UTF8.self) == #"{"message":{"name":"a","message":"b","message_date":"2030-12-31T23:59:59Z"}}"#)
        #expect(spec.isIdempotent == false)
    }

    @Test func trailingLineBreaksFromStandardInputAreDropped() async throws {
        let log = RequestLog()
        let result = await MessageBoardTesting.run("post", name: "Joe", message: "  two\nlines  \r\n\n", transport: MessageBoardTesting.answering(201, Self.created, log: log))
        #expect(result.query["message"] == "  two\nlines  ")
        let body = try JSONParser().parse(try #require(log.requests.first?.body))
        #expect(body["message"]?["message"] == "  two\nlines  ")
    }

    @Test func listIsAGetOfMessagesJSONBelowTheBaseURL() async throws {
        let log = RequestLog()
        let result = await MessageBoardTesting.run(
            "list", transport: MessageBoardTesting.answering(200, "[]", log: log), baseURL: URL(string: "http://localhost:3000/board/")!)
        #expect(result.error == nil)
        let request = try #require(log.requests.first)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "http://localhost:3000/board/messages.json")
        #expect(request.headers.fields.map { "\($0.name): \($0.value)" } == ["Accept: application/json"])
        #expect(request.body == nil)
    }

    @Test func limitKeepsTheNewestMessages() async throws {
        let body = #"[{"id":1,"message":"old","message_date":"2012-01-01"},{"id":2,"message":"new","message_date":"2013-01-01"},{"id":3,"message":"mid","message_date":"2012-06-01"}]"#
        let result = await MessageBoardTesting.run("list", limit: 2, transport: MessageBoardTesting.answering(200, body, log: RequestLog()))
        #expect(result.items.map(\.title) == ["new", "mid"])
        #expect(result.meta.totalCount == 3)
    }

    // MARK: Never retried

    @Test func aPostAnswered503IsNotRetriedWhileAListIs() async {
        let postLog = RequestLog()
        let post = await MessageBoardTesting.run(
            "post", name: "Joe", message: "hi",
            transport: MessageBoardTesting.answering(503, #"{"status":503,"error":"Service Unavailable"}"#, headers: ["Retry-After": "1"], log: postLog))
        #expect(postLog.requests.count == 1)
        #expect(post.error?.message == "the board failed while saving (HTTP 503 Service Unavailable), so the message may or may not have been saved; check with 'aggregate messageboard list'")

        let listLog = RequestLog()
        _ = await MessageBoardTesting.run(
            "list", transport: MessageBoardTesting.answering(503, #"{"status":503,"error":"Service Unavailable"}"#, headers: ["Retry-After": "1"], log: listLog))
        #expect(listLog.requests.count > 1, "the shared layer retries idempotent requests")
    }

    @Test func aConnectionLostAfterSendingSaysItMayHaveBeenSavedAndHowToCheck() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            throw AggregateError(.network, "the connection to 127.0.0.1 closed before the whole response arrived", requestMayHaveBeenSent: true)
        }
        let result = await MessageBoardTesting.run("post", name: "Joe", message: "hi", transport: transport)
        #expect(log.requests.count == 1)
        #expect(ExitCode(for: [result]) == .failure)
        #expect(result.error?.description == "messageboard: the connection failed after the request was sent (the connection to 127.0.0.1 closed before the whole response arrived), so the message may or may not have been saved; it was not retried. Check with 'aggregate messageboard list'.")
    }

    @Test func aConnectionRefusedBeforeSendingIsAPlainNetworkError() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            throw AggregateError(.network, "cannot connect to 127.0.0.1:3000: connection refused")
        }
        let result = await MessageBoardTesting.run("post", name: "Joe", message: "hi", transport: transport)
        #expect(log.requests.count == 1, "a post is not retried even when it surely did not arrive")
        #expect(result.error?.message == "cannot connect to 127.0.0.1:3000: connection refused; nothing was sent")
    }
}
