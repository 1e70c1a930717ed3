import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateTestSupport
import Foundation
@testable import MessageBoardProvider
import Testing

/// One clear line for every unsuccessful answer, through the fetch layer (kind, status, exit code).
@Suite struct MessageBoardErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var operation: String
        var status: Int
        var contentType: String
        var body: String
        var kind: AggregateError.Kind
        var message: String
        var testDescription: String { "\(operation) HTTP \(status): \(message.prefix(50))" }
    }

    static let json = "application/json; charset=utf-8"
    static let html = "text/html; charset=utf-8"

    static let cases: [Case] = [
        Case(operation: "post", status: 422, contentType: json, body: #"{"message":["can't be blank"]}"#, kind: .http,
             message: "not saved: message can't be blank (HTTP 422)"),
        Case(operation: "post", status: 422, contentType: json,
             body: #"{"name":["can't be blank"],"message":["can't be blank","is too long (maximum is 140 characters)"],"message_date":["is invalid"],"base":["Board is read-only today"]}"#,
             kind: .http,
             message: "not saved: name can't be blank; message can't be blank; message is too long (maximum is 140 characters); message date is invalid; Board is read-only today (HTTP 422)"),
        Case(operation: "post", status: 422, contentType: json, body: #"{"errors":{"name":["is taken"]}}"#, kind: .http,
             message: "not saved: name is taken (HTTP 422)"),
        Case(operation: "post", status: 422, contentType: json, body: #"["Name can't be blank"]"#, kind: .http,
             message: "not saved: Name can't be blank (HTTP 422)"),
        Case(operation: "post", status: 422, contentType: html,
             body: "<!DOCTYPE html>\n<html><head><title>The change you wanted was rejected (422)</title></head><body></body></html>", kind: .http,
             message: "not saved: the board rejected a JSON post without a CSRF token (HTTP 422 with an HTML page); it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)"),
        Case(operation: "post", status: 422, contentType: json, body: #"{"status":"422","error":"ActionController::InvalidAuthenticityToken"}"#, kind: .http,
             message: "not saved: the board rejected a JSON post without a CSRF token (HTTP 422 with no field errors); it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)"),
        Case(operation: "post", status: 422, contentType: json, body: #"{"status":422,"error":"Unprocessable Entity"}"#, kind: .http,
             message: "not saved: the board rejected the post without naming a field (HTTP 422 Unprocessable Entity), as a board in production mode answers a JSON post without a CSRF token; it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)"),
        Case(operation: "post", status: 422, contentType: "text/plain", body: "nope", kind: .http,
             message: "not saved: the board rejected the message (HTTP 422: \"nope\")"),
        Case(operation: "post", status: 400, contentType: json, body: #"{"status":400,"error":"Bad Request"}"#, kind: .http,
             message: "not saved: the board answered HTTP 400 Bad Request"),
        Case(operation: "post", status: 406, contentType: html, body: "<html><body>Not Acceptable</body></html>", kind: .http,
             message: "not saved: the board answered HTTP 406 with an HTML page"),
        Case(operation: "post", status: 404, contentType: html, body: "<html>The page you were looking for doesn't exist.</html>", kind: .notFound,
             message: "not saved: the board has no /messages.json at this address (HTTP 404): set MESSAGEBOARD_URL or --base-url to the board's root, e.g. http://localhost:3000"),
        Case(operation: "post", status: 403, contentType: "text/plain", body: "", kind: .auth,
             message: "not saved: the board refused access (HTTP 403): it wants a login, and aggregate sends no credentials to message boards"),
        Case(operation: "post", status: 500, contentType: json, body: ##"{"status":500,"error":"Internal Server Error","exception":"#<RuntimeError: disk full>"}"##, kind: .http,
             message: "the board failed while saving (HTTP 500 Internal Server Error: #<RuntimeError: disk full>), so the message may or may not have been saved; check with 'aggregate messageboard list'"),
        Case(operation: "list", status: 404, contentType: json, body: #"{"status":404,"error":"Not Found"}"#, kind: .notFound,
             message: "the board has no /messages.json at this address (HTTP 404): set MESSAGEBOARD_URL or --base-url to the board's root, e.g. http://localhost:3000"),
        Case(operation: "list", status: 401, contentType: html, body: "<html>HTTP Basic: Access denied.</html>", kind: .auth,
             message: "the board refused access (HTTP 401 with an HTML page): it wants a login, and aggregate sends no credentials to message boards"),
        Case(operation: "list", status: 500, contentType: html, body: "<!DOCTYPE html><html>We're sorry, but something went wrong.</html>", kind: .http,
             message: "the board answered HTTP 500 with an HTML page"),
    ]

    @Test(arguments: cases)
    func answerIsExplainedInOneLine(_ testCase: Case) async {
        let log = RequestLog()
        let transport = MessageBoardTesting.answering(testCase.status, testCase.body, headers: ["Content-Type": testCase.contentType], log: log)
        let result = await MessageBoardTesting.run(testCase.operation, name: "Joe", message: "hi", transport: transport)
        let error = result.error
        #expect(error?.message == testCase.message)
        #expect(error?.kind == testCase.kind)
        #expect(error?.httpStatus == testCase.status)
        #expect(error?.provider == "messageboard")
        #expect(error.map { !$0.message.contains("\n") } == true)
        #expect(ExitCode(for: [result]) == .failure)
        if testCase.operation == "post" { #expect(log.requests.count == 1, "posts are never retried") }
    }
}
