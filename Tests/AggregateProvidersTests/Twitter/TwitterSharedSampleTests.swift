import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing
@testable import TwitterProvider

/// Conformance over the real captured X responses in `../shared/api/samples/twitter/` (when that folder exists):
/// every sample is read by the code path that would meet it, and every error body maps to the right kind.
@Suite struct TwitterSharedSampleTests {
    static let samples = TestPaths.sharedResponseSamples("twitter")

    /// The status and headers recorded beside a sample (`<name>.meta.json`), when there is such a file.
    static func recorded(_ url: URL) -> (status: Int, headers: HTTPHeaders)? {
        let base = url.deletingPathExtension().lastPathComponent.replacingOccurrences(of: ".body", with: "")
        let meta = url.deletingLastPathComponent().appendingPathComponent(base + ".meta.json")
        guard let data = try? Data(contentsOf: meta), let json = try? JSONParser().parse(data), let status = json["status"]?.int else { return nil }
        let headers = HTTPHeaders((json["headers"]?.object?.members ?? []).compactMap { member in
            member.value.string.map { (name: member.key, value: $0) }
        })
        return (status, headers)
    }

    /// Statuses of the error samples that have no `.meta.json` (from their notes in the samples folder).
    static let documentedStatus = [
        "error_429_code_88.json": 429, "v1_1_error_34_not_found.json": 404, "v1_1_error_453_access_level.json": 403,
        "v1_1_error_not_authorized_protected.json": 401,
    ]

    let owner = TwitterAccount(id: "783214", username: "Twitter", name: "Twitter")

    @Test(arguments: samples)
    func sampleIsReadAsTheProviderWouldMeetIt(_ url: URL) throws {
        let name = url.lastPathComponent
        let body = try Data(contentsOf: url)
        let json = try JSONParser().parse(body)
        let status = Self.recorded(url)?.status ?? Self.documentedStatus[name] ?? 200
        let response = HTTPResponse(status: status, headers: Self.recorded(url)?.headers ?? [:], body: body)

        if status >= 400 {
            try checkError(name, response)
        } else if name.hasPrefix("v1_1_user_timeline") {
            try checkV11Timeline(json)
        } else if name.hasPrefix("v2_users_tweets") || name.hasPrefix("v2_search_recent") {
            try checkV2Timeline(json)
        } else if name.hasPrefix("v2_user_by_username") {
            if json["data"] == nil {
                let error = #expect(throws: AggregateError.self) { try TwitterV2.user(from: json, requested: "TwitterDec") }
                #expect(error?.message == "no user named @TwitterDec")
                #expect(error?.kind == .notFound)
            } else {
                let account = try TwitterV2.user(from: json, requested: "x")
                #expect(account.id == json["data"]?["id"]?.string)
                #expect(account.username == json["data"]?["username"]?.string)
            }
        } else if name.hasPrefix("v2_tweet_deleted") {
            let error = #expect(throws: AggregateError.self) { try TwitterV2.timelinePage(json, owner: owner) }
            #expect(error?.kind == .notFound)
        } else if name.hasPrefix("v2_tweet_with") {
            // A single-post lookup: not an endpoint we call, but its post must read like a timeline's.
            let item = try #require(TwitterV2.item(json["data"] ?? .null, users: [:], owner: owner))
            expectReadable(item.title, entities: json["data"]?["entities"]?["urls"]?.array ?? [])
            #expect(item.createdAt != nil)
        } else {
            Issue.record("no expectation for the shared sample \(name): add one")
        }
    }

    func checkV11Timeline(_ json: JSONValue) throws {
        let statuses = try #require(json.array)
        let page = try TwitterV11.timelinePage(json, username: "Twitter")
        #expect(page.items.count == statuses.count)
        #expect(page.items.map(\.id) == statuses.compactMap { $0["id_str"]?.string })
        for (item, status) in zip(page.items, statuses) {
            #expect(item.createdAt != nil)
            #expect(item.author?.hasPrefix("@") == true)
            #expect(item.url == "https://x.com/\(status["user"]?["screen_name"]?.string ?? "")/status/\(item.id)")
            #expect(item.metrics["likes"] == status["favorite_count"]?.decimal)
            let source = status["retweeted_status"] ?? status
            expectReadable(item.title, entities: (source["entities"]?["urls"]?.array ?? []) + (source["entities"]?["media"]?.array ?? []))
        }
        let smallest = try #require(statuses.compactMap { $0["id_str"]?.string }.min { $0.count != $1.count ? $0.count < $1.count : $0 < $1 })
        #expect(page.next == .cursor(decrement(smallest)))
    }

    func checkV2Timeline(_ json: JSONValue) throws {
        let page = try TwitterV2.timelinePage(json, owner: owner)
        let data = json["data"]?.array ?? []
        #expect(page.items.map(\.id) == data.compactMap { $0["id"]?.string })
        #expect(page.next == json["meta"]?["next_token"]?.string.map(Page.Next.cursor))
        for (item, tweet) in zip(page.items, data) {
            expectReadable(item.title, entities: tweet["entities"]?["urls"]?.array ?? [])
            #expect(item.author != nil)
            #expect(item.createdAt == tweet["created_at"]?.string.flatMap(ISO8601.date(from:)))
            if tweet["public_metrics"] == nil { #expect(item.metrics.isEmpty) }
        }
    }

    func checkError(_ name: String, _ response: HTTPResponse) throws {
        let error = TwitterErrors.error(for: response, username: "Twitter", now: twitterTestNow, timeZone: TimeZone(identifier: "UTC")!)
        #expect(!error.message.isEmpty)
        switch response.status {
        case 429: #expect(error.kind == .rateLimited)
        case 404: #expect(error == AggregateError(.notFound, "no user named @Twitter", httpStatus: 404))
        case 401:
            #expect(error.kind == .auth)
            if name.contains("protected") { #expect(error.message.contains("protected")) }
        case 403:
            #expect(error.kind == .auth)
            if name.contains("453") { #expect(error.message.contains("higher access level")) }
            if name.contains("not_enrolled") { #expect(error.message.contains("client-not-enrolled")) }
        case 400:
            #expect(error.kind == .http)
            #expect(error.message.contains("is not between 1 and 100"))
        default:
            Issue.record("unexpected status \(response.status) in \(name)")
        }
    }

    /// No t.co link of the entities is left, and no HTML entity either.
    func expectReadable(_ title: String, entities: [JSONValue]) {
        for entity in entities {
            if let short = entity["url"]?.string, entity["expanded_url"]?.string != nil {
                #expect(!title.contains(short), "\(short) should be expanded in: \(title)")
            }
        }
        #expect(!title.contains("&amp;") && !title.contains("&lt;") && !title.contains("&gt;"))
    }

    /// `digits` minus one, on the decimal text.
    func decrement(_ digits: String) -> String {
        var characters = Array(digits)
        var index = characters.count - 1
        while index >= 0 {
            if characters[index] == "0" {
                characters[index] = "9"
                index -= 1
            } else {
                characters[index] = Character(String(characters[index].wholeNumberValue! - 1))
                break
            }
        }
        let text = String(characters).drop { $0 == "0" }
        return text.isEmpty ? "0" : String(text)
    }

    @Test func thePlainText429ReportsTheRecordedReset() throws {
        guard let folder = TestPaths.sharedSamples?.appendingPathComponent("twitter") else { return }
        let body = folder.appendingPathComponent("v2_user_by_username_429.body.txt")
        let recorded = try #require(Self.recorded(body), "the 429 sample's meta.json")
        let response = HTTPResponse(status: recorded.status, headers: recorded.headers, body: try Data(contentsOf: body))
        let limit = try #require(TwitterRateLimit(headers: recorded.headers, now: Date()))
        #expect(recorded.headers["x-rate-limit-remaining"] == "0")
        let now = limit.reset.addingTimeInterval(-300)
        #expect(TwitterProvider().retryDelay(for: response, now: limit.reset.addingTimeInterval(-20)) == 21)
        #expect(TwitterProvider().retryDelay(for: response, now: now) == 301, "beyond the 30 s budget: the fetch layer gives up")
        let error = TwitterErrors.error(for: response, username: "x", now: now, timeZone: TimeZone(identifier: "UTC")!)
        #expect(error.kind == .rateLimited)
        #expect(error.message == "rate limited (HTTP 429: Rate limit exceeded); the limit resets at 15:24 local time (in 5 min)")
    }

    @Test func recordedRateLimitHeadersAreRead() throws {
        for url in Self.samples {
            guard let recorded = Self.recorded(url), recorded.headers["x-rate-limit-reset"] != nil else { continue }
            let limit = try #require(TwitterRateLimit(headers: recorded.headers, now: Date()), "\(url.lastPathComponent)")
            #expect(limit.reset.timeIntervalSince1970 > 1_500_000_000, "\(url.lastPathComponent)")
        }
    }
}
