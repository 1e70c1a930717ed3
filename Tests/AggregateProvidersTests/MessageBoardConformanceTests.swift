import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import MessageBoardProvider
import Testing

/// The provider against the shared Rails message board samples (`../shared/api/samples/rails_messages`), when present.
@Suite(.enabled(if: !TestPaths.sharedResponseSamples("rails_messages").isEmpty, "the shared samples are not beside the package"))
struct MessageBoardConformanceTests {
    static var samples: [URL] { TestPaths.sharedResponseSamples("rails_messages") }

    static func sample(_ prefix: String) throws -> URL {
        try #require(samples.first { $0.lastPathComponent.hasPrefix(prefix) }, "no sample named \(prefix)*")
    }

    /// The sample's sidecar `<name>.meta.<...>.json`: status and headers.
    static func response(for body: URL) throws -> HTTPResponse {
        let metaURL = body.deletingLastPathComponent().appendingPathComponent(body.lastPathComponent.replacingOccurrences(of: ".body.", with: ".meta."))
        let meta = try JSONParser().parse(Data(contentsOf: metaURL))
        var headers = HTTPHeaders()
        for member in meta["headers"]?.object?.members ?? [] { headers.add(member.key, member.value.string ?? "") }
        return HTTPResponse(
            status: try #require(meta["status"]?.int), headers: headers, body: try Data(contentsOf: body),
            url: URL(string: "http://localhost:3000/messages.json"))
    }

    @Test func everyIndexSampleNormalizesWithEveryRecord() throws {
        let indexes = Self.samples.filter { $0.lastPathComponent.hasPrefix("index_") }
        #expect(indexes.count >= 3)
        for url in indexes {
            let json = try JSONParser().parse(Data(contentsOf: url))
            let page = try MessageBoardNormalizer.list(json)
            let records = try #require(json.array)
            #expect(page.items.count == records.count, "\(url.lastPathComponent)")
            let ids = records.compactMap { MessageBoardNormalizer.fields($0)?["id"]?.idString }
            #expect(Set(page.items.map(\.id)) == Set(ids), "\(url.lastPathComponent)")
            for item in page.items {
                #expect(item.kind == "message")
                #expect(!item.title.isEmpty)
                #expect(item.createdAt != nil, "message_date or created_at: \(url.lastPathComponent) #\(item.id)")
                #expect(item.extra["createdAt"] != nil)
                _ = try Item(json: item.jsonValue)
            }
            let dates = page.items.compactMap(\.createdAt)
            #expect(dates == dates.sorted(by: >), "newest first: \(url.lastPathComponent)")
            if url.lastPathComponent.contains("jbuilder") {
                #expect(page.items.allSatisfy { $0.url?.hasSuffix("/messages/\($0.id).json") == true })
            }
            if let escaped = page.items.first(where: { $0.title.contains("\n") }) {
                #expect(escaped.title.contains("&&") && escaped.title.contains(">"), "\\u0026 and \\u003e decode to characters")
                #expect(escaped.author?.contains("<") == true)
            }
        }
    }

    @Test(arguments: ["create_201_jbuilder", "create_201_rails3"])
    func createdSamplesGiveTheSavedMessageAndLocation(_ name: String) throws {
        let response = try Self.response(for: Self.sample(name + ".body"))
        #expect(response.isSuccess)
        let page = try MessageBoardNormalizer.saved(response, query: MessageBoardTesting.query("post", name: "x", message: "y"))
        let item = try #require(page.items.first)
        let record = try #require(MessageBoardNormalizer.fields(JSONParser().parse(response.body)))
        #expect(item.id == record["id"]?.idString)
        #expect(item.title == record["message"]?.string)
        #expect(item.author == record["name"]?.string)
        #expect(item.extra["location"] == response.headers["Location"].map(JSONValue.string))
        #expect(item.extra["location"] != nil)
    }

    @Test func theValidationSampleIsOneLineNamingEveryProblem() throws {
        let response = try Self.response(for: Self.sample("create_422_validation.body"))
        let error = MessageBoardErrors.explain(response, posting: true)
        let json = try JSONParser().parse(response.body)
        #expect(error.httpStatus == 422)
        #expect(error.message.hasPrefix("not saved: "))
        #expect(error.message.hasSuffix(" (HTTP 422)"))
        for member in json.object?.members ?? [] {
            for problem in member.value.array?.compactMap(\.string) ?? [] {
                #expect(error.message.contains("\(member.key.replacingOccurrences(of: "_", with: " ")) \(problem)"))
            }
        }
    }

    @Test func ourRequestHasTheSampleRequestsShape() throws {
        let sample = try JSONParser().parse(Data(contentsOf: Self.sample("create_request")))
        let spec = try MessageBoardTesting.postRequest(baseURL: URL(string: "http://localhost:3000")!, name: "Alice", message: "Hello board!", date: MessageBoardTesting.now)
        #expect(spec.method == sample["method"]?.string)
        #expect(spec.url.absoluteString == sample["url"]?.string)
        for member in sample["headers"]?.object?.members ?? [] {
            #expect(spec.headers[member.key] == member.value.string)
        }
        let body = try JSONParser().parse(try #require(spec.body))
        #expect(body.object?.keys == sample["body"]?.object?.keys)
        #expect(body["message"]?.object?.keys == sample["body"]?["message"]?.object?.keys)
        #expect(body["message"]?["name"] == sample["body"]?["message"]?["name"])
        #expect(body["message"]?["message"] == sample["body"]?["message"]?["message"])
    }
}
