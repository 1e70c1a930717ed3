import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandboxKit
import Foundation
@testable import MessageBoardProvider
@testable import MessageBoardSandbox
import Testing

/// The sandbox board's routes: both shapes, Rails-like create and validation, CSRF mode, and the store.
@Suite struct MessageBoardSandboxTests {
    let store = SandboxStore(directory: MessageBoardTesting.temporaryDirectory())
    var storeFile: URL { store.directory.appendingPathComponent("messageboard-messages.json") }

    @Test func listsTheBundledMessagesRootWrappedByDefault() throws {
        let response = try #require(MessageBoardTesting.sandbox("GET", "/messages.json", store: store))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let elements = try #require(response.json?.array)
        #expect(elements.count == MessageBoardSandbox.seedMessages.count)
        #expect(elements.count == 9)
        let first = try #require(elements.first?["message"])
        #expect(first["id"] == 1)
        #expect(first["created_at"] == "2012-04-27T09:12:44Z", "Rails 3 timestamps have no fraction")
        #expect(first["url"] == nil)
        #expect(!FileManager.default.fileExists(atPath: storeFile.path), "reading does not create the store")
    }

    @Test func listsFlatJbuilderRecordsWithURLOnRequest() throws {
        let response = try #require(MessageBoardTesting.sandbox("GET", "/messages.json?shape=flat", store: store))
        let first = try #require(response.json?[0])
        #expect(first["message"] == "First! Is this board thing on?")
        #expect(first["created_at"] == "2012-04-27T09:12:44.000Z")
        #expect(first["url"] == "http://127.0.0.1:3000/messages/1.json")
        #expect(first.object?.keys == ["id", "name", "message", "message_date", "created_at", "updated_at", "url"])
        #expect(MessageBoardTesting.sandbox("GET", "/messages.json?shape=square", store: store)?.status == 400)
    }

    @Test func bothShapesNormalizeToTheSameItemsApartFromURLAndPrecision() throws {
        let root = try MessageBoardNormalizer.list(#require(MessageBoardTesting.sandbox("GET", "/messages.json", store: store)?.json))
        let flat = try MessageBoardNormalizer.list(#require(MessageBoardTesting.sandbox("GET", "/messages.json?shape=flat", store: store)?.json))
        #expect(root.items.map(\.id) == flat.items.map(\.id))
        // Timestamps keep the precision each shape sends: whole seconds (root) or milliseconds (flat).
        func comparable(_ item: Item) -> Item {
            var item = item
            item.url = nil
            for key in ["createdAt", "updatedAt"] {
                item.extra[key] = item.extra[key]?.string.flatMap(ISO8601.date(from:)).map { .string(ISO8601.string(from: $0)) }
            }
            return item
        }
        #expect(root.items.map(comparable) == flat.items.map(comparable))
        #expect(flat.items.allSatisfy { $0.extra["createdAt"]?.string?.hasSuffix(".000Z") == true })
        #expect(root.items.allSatisfy { $0.extra["createdAt"]?.string?.contains(".") == false })
    }

    @Test func createAnswers201WithLocationAndKeepsTheMessage() throws {
        let body = #"{"message":{"name":"Joe","message":"JSON is still fun!","message_date":"2026-11-29T14:03:00Z"}}"#
        let response = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: body, store: store))
        #expect(response.status == 201)
        #expect(response.headers["Location"] == "http://127.0.0.1:3000/messages/10")
        #expect(response.text == #"{"message":{"id":10,"name":"Joe","message":"JSON is still fun!","message_date":"2026-11-29","created_at":"2026-11-29T14:03:00Z","updated_at":"2026-11-29T14:03:00Z"}}"#)

        let flat = try #require(MessageBoardTesting.sandbox("POST", "/messages.json?shape=flat", body: body, store: store))
        #expect(flat.json?["id"] == 11)
        #expect(flat.json?["url"] == "http://127.0.0.1:3000/messages/11.json")
        #expect(flat.json?["created_at"] == "2026-11-29T14:03:00.000Z")

        let list = try #require(MessageBoardTesting.sandbox("GET", "/messages.json", store: store)?.json?.array)
        #expect(list.count == 11)
        #expect(list.last?["message"]?["id"] == 11)
        let stored = try #require(try store.read("messageboard-messages.json")?.array)
        #expect(stored.count == 11, "the bundled messages are kept and the new ones added")
        #expect(MessageBoardTesting.sandbox("GET", "/messages/10.json", store: store)?.json?["message"]?["message"] == "JSON is still fun!")
        #expect(MessageBoardTesting.sandbox("GET", "/messages/10", store: store)?.status == 200, "Location (no .json) works with Accept: application/json")
    }

    @Test func validationErrorsAreTheRailsErrorHash() throws {
        let long = String(repeating: "é", count: 1001)
        let body = #"{"message":{"name":"  \n ","message":"\#(long)"}}"#
        let response = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: body, store: store))
        #expect(response.status == 422)
        #expect(response.text == #"{"name":["can't be blank"],"message":["is too long (maximum is 1000 characters)"]}"#)
        #expect(!FileManager.default.fileExists(atPath: storeFile.path), "nothing saved")
        let exactlyLongEnough = #"{"message":{"name":"Ann","message":"\#(String(repeating: "é", count: 1000))"}}"#
        #expect(MessageBoardTesting.sandbox("POST", "/messages.json", body: exactlyLongEnough, store: store)?.status == 201)
    }

    @Test func parameterWrappingBehavesLikeRails() throws {
        // No top-level "message": the body is wrapped, so {"name": ...} reaches validation.
        let wrapped = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: #"{"name":"Joe"}"#, store: store))
        #expect(wrapped.status == 422)
        #expect(wrapped.text == #"{"message":["can't be blank"]}"#)
        // A top-level "message" string is not wrapped: params[:message] is a string, and require/permit fails.
        let unwrapped = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: #"{"name":"Joe","message":"hi"}"#, store: store))
        #expect(unwrapped.status == 400)
        #expect(unwrapped.text == #"{"status":400,"error":"Bad Request"}"#)
    }

    @Test(arguments: [
        (#"{"message":{"#, "application/json"),
        ("", "application/json"),
        ("{}", "application/json"),
        (#"{"message":{}}"#, "application/json"),
        ("message[name]=Joe&message[message]=hi", "application/x-www-form-urlencoded"),
    ])
    func unreadableBodiesAreBadRequests(body: String, contentType: String) throws {
        let response = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: body, contentType: contentType, store: store))
        #expect(response.status == 400)
        #expect(response.json?["error"] == "Bad Request")
    }

    @Test func onlyPermittedAttributesAreKeptAndDatesAreCastLikeADateColumn() throws {
        let body = #"{"message":{"name":"Joe","message":"hi","message_date":"2012-02-30","id":999,"admin":true}}"#
        let response = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: body, store: store))
        #expect(response.status == 201)
        #expect(response.json?["message"]?["id"] == 10, "id is not permitted")
        #expect(response.json?["message"]?["message_date"] == .null, "an impossible date is cast to nil")
        #expect(response.json?["message"]?["admin"] == nil)
    }

    @Test func csrfModeRejectsJSONPostsWithAnHTMLPage() throws {
        let body = #"{"message":{"name":"Joe","message":"hi"}}"#
        let response = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: body, store: store, settings: ["messageboard.csrf": "true"]))
        #expect(response.status == 422)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.text.contains("InvalidAuthenticityToken"))
        #expect(!FileManager.default.fileExists(atPath: storeFile.path))
        #expect(MessageBoardTesting.sandbox("GET", "/messages.json", store: store, settings: ["messageboard.csrf": "true"])?.status == 200, "reads are not protected")
    }

    @Test func routesAndFormats() throws {
        #expect(MessageBoardTesting.sandbox("GET", "/2/groups", store: store) == nil, "not the board's path")
        #expect(MessageBoardTesting.sandbox("GET", "/messages/999.json", store: store)?.text == #"{"status":404,"error":"Not Found"}"#)
        #expect(MessageBoardTesting.sandbox("DELETE", "/messages.json", store: store)?.status == 404)
        #expect(MessageBoardTesting.sandbox("GET", "/messages", accept: "text/html", store: store)?.status == 406)
        #expect(MessageBoardTesting.sandbox("GET", "/messages", accept: "application/json", store: store)?.status == 200)
    }

    @Test func withoutAStoreTheBoardIsReadOnly() throws {
        #expect(MessageBoardTesting.sandbox("GET", "/messages.json", store: nil)?.json?.array?.count == 9)
        let post = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: #"{"message":{"name":"a","message":"b"}}"#, store: nil))
        #expect(post.status == 500)
        #expect(post.json?["exception"]?.string?.contains("without a data directory") == true)
    }

    @Test func faultsAnswerLikeRailsDoesForJSONRequests() {
        let request = SandboxRequest(method: "POST", path: "/messages.json")
        let context = SandboxContext(baseURL: MessageBoardTesting.baseURL)
        let response = MessageBoardSandbox.sandboxFaultResponse(status: 503, request: request, context: context)
        #expect(response?.status == 503)
        #expect(response?.json == ["status": 503, "error": "Service Unavailable"])
    }

    // MARK: A store that cannot be read

    @Test(arguments: ["{\"messages\": [", "", "{\"id\": 1}", "[{\"name\": \"no id\"}]"])
    func aCorruptStoreIsReportedAndNeverOverwritten(contents: String) throws {
        try Data(contents.utf8).write(to: storeFile)
        let list = try #require(MessageBoardTesting.sandbox("GET", "/messages.json", store: store))
        #expect(list.status == 500)
        let exception = try #require(list.json?["exception"]?.string)
        #expect(exception.contains(storeFile.path))
        #expect(exception.contains("left untouched: repair or remove it"))
        let post = try #require(MessageBoardTesting.sandbox("POST", "/messages.json", body: #"{"message":{"name":"a","message":"b"}}"#, store: store))
        #expect(post.status == 500)
        #expect(try Data(contentsOf: storeFile) == Data(contents.utf8), "the file is exactly as it was")
    }

    @Test func theClientReportsACorruptStoreClearly() async throws {
        try Data("{\"messages\": [".utf8).write(to: storeFile)
        let transport = SandboxTransport(catalog: try SandboxCatalog([MessageBoardProvider.self], sandboxes: [MessageBoardSandbox.self]), store: store)
        let result = await MessageBoardTesting.run("post", name: "Joe", message: "hi", transport: transport, baseURL: URL(string: "http://sandbox.localhost/messageboard")!)
        let message = try #require(result.error?.message)
        #expect(message.hasPrefix("the board failed while saving (HTTP 500 Internal Server Error: the sandbox store \(storeFile.path) is corrupt"))
        #expect(message.hasSuffix("check with 'aggregate messageboard list'"))
    }

    // MARK: Concurrency

    @Test func twentyConcurrentPostsLoseNothingAndDuplicateNothing() async throws {
        let transport = SandboxTransport(catalog: try SandboxCatalog([MessageBoardProvider.self], sandboxes: [MessageBoardSandbox.self]), store: store)
        let base = URL(string: "http://sandbox.localhost/messageboard")!
        let saved = await withTaskGroup(of: ProviderResult.self) { group in
            for index in 1...20 {
                group.addTask { await MessageBoardTesting.run("post", name: "poster \(index)", message: "concurrent \(index)", transport: transport, baseURL: base) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(saved.allSatisfy { $0.error == nil })
        #expect(Set(saved.compactMap { $0.items.first?.id }) == Set((10...29).map(String.init)), "twenty distinct ids")
        let list = await MessageBoardTesting.run("list", limit: 100, transport: transport, baseURL: base)
        let texts = list.items.map(\.title).filter { $0.hasPrefix("concurrent ") }
        #expect(texts.sorted() == (1...20).map { "concurrent \($0)" }.sorted())
        #expect(list.items.count == 29)
    }
}
