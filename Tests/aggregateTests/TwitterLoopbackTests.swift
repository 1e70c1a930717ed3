import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateText
import AggregateURLSession
import Foundation
import MeetupProvider
import Testing
@testable import aggregate

/// `aggregate twitter` with the real URLSession transport and fetch layer against the sandbox server on a free
/// loopback port: paging in both APIs, every error answer, rate limits waited out or reported, and the headers.
@Suite(.serialized) struct TwitterLoopbackTests {
    static let token = "sandbox-x-bearer-token"

    /// The sandbox at its root by default; `mounted` uses `/twitter`, where injected faults are answered only in
    /// X's shapes (at the root, the first registered provider's fault shape answers for every path).
    func harness(_ sandbox: LoopbackSandbox, token: String = token, width: Int = 100, mounted: Bool = false) -> CLIHarness {
        let base = mounted ? sandbox.url + "/twitter" : sandbox.url
        return CLIHarness(environment: ["X_BEARER_TOKEN": token, "AGGREGATE_TWITTER_BASE_URL": base, "TZ": "UTC"], width: width)
    }

    func result(_ output: CLIHarness.Output) throws -> JSONValue {
        try #require(try JSONParser().parse(output.stdout)["results"]?[0])
    }

    func ids(_ result: JSONValue) -> [UInt64] {
        result["items"]?.array?.compactMap { $0["id"]?.string.flatMap { UInt64($0) } } ?? []
    }

    @Test func v2PagesWithNextToken() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["twitter", "hourly_chime", "--limit", "230", "--format", "json", "--verbose"])
        #expect(output.code == .success, "\(output.stderr)")
        let result = try result(output)
        let ids = ids(result)
        #expect(ids.count == 230)
        #expect(ids == ids.sorted(by: >) && Set(ids).count == 230, "newest first, no repeats across pages")
        #expect(result["meta"]?["pages"] == 3, "pages of 100, 100 and 30")
        #expect(result["meta"]?["requests"] == 4, "one lookup, three pages")
        #expect(sandbox.server.requestCount == 4)
        #expect(output.stderr.contains("max_results=100"))
        #expect(output.stderr.contains("max_results=30"))
        #expect(output.stderr.contains("pagination_token="))
    }

    @Test func v11PagesWithMaxIdUntilTheTimelineEnds() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["twitter", "hourly_chime", "--api", "v1.1", "--limit", "300", "--format", "json", "--verbose"])
        #expect(output.code == .success, "\(output.stderr)")
        let result = try result(output)
        let ids = ids(result)
        #expect(ids.count == 240)
        #expect(ids == ids.sorted(by: >) && Set(ids).count == 240)
        #expect(result["meta"]?["pages"] == 3, "200, then the last 40, then an empty page")
        #expect(sandbox.server.requestCount == 3, "v1.1 needs no lookup")
        // max_id is the smallest id of the page before, minus one, exactly (these ids are far above 2^53).
        #expect(output.stderr.contains("max_id=\(ids[199] - 1)"))
        #expect(output.stderr.contains("max_id=\(ids[239] - 1)"))
    }

    @Test func bothAPIsGiveTheSameTimeline() async throws {
        let sandbox = try LoopbackSandbox()
        let v2 = await harness(sandbox).run(["twitter", "hourly_chime", "--limit", "240", "--format", "json"])
        let v11 = await harness(sandbox).run(["twitter", "hourly_chime", "--api", "v1.1", "--limit", "240", "--format", "json"])
        #expect(ids(try result(v2)) == ids(try result(v11)))
        let v2Items = try result(v2)["items"]?.array ?? []
        let v11Items = try result(v11)["items"]?.array ?? []
        #expect(v2Items.map { $0["title"] } == v11Items.map { $0["title"] })
        #expect(v2Items.map { $0["createdAt"] } == v11Items.map { $0["createdAt"] })
    }

    @Test(arguments: ["v2", "v1.1"])
    func excludeWorksOverTheWire(_ api: String) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["twitter", "@matcha_mori", "--api", api, "--exclude", "replies,retweets", "--format", "json"])
        #expect(output.code == .success)
        let items = try result(output)["items"]?.array ?? []
        #expect(!items.isEmpty)
        #expect(items.allSatisfy { $0["extra"]?["isReply"] == false && $0["extra"]?["isRetweet"] == false })
    }

    @Test(arguments: ["v2", "v1.1"])
    func unknownUser(_ api: String) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["twitter", "nobody_here", "--api", api])
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: twitter: no user named @nobody_here\n")
    }

    @Test(arguments: [("v2", ""), ("v1.1", ", code 89")])
    func wrongTokenIsRejectedAndNeverPrinted(_ api: String, _ code: String) async throws {
        let sandbox = try LoopbackSandbox()
        let marker = "MARKER-loopback-3b1f-secret"
        let output = await harness(sandbox, token: marker).run(["twitter", "orbitalnotes", "--api", api, "--verbose", "--format", "json"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasSuffix("Error: twitter: the API token was rejected (HTTP 401\(code)). Check X_BEARER_TOKEN or TWITTER_BEARER_TOKEN.\n"))
        #expect(!output.stderr.contains(marker) && !output.stdout.contains(marker))
        #expect(sandbox.server.requestCount == 1, "a 401 is not retried")
    }

    @Test(arguments: ["v2", "v1.1"])
    func protectedAccount(_ api: String) async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run(["twitter", "QuietVault", "--api", api])
        #expect(output.code == .failure)
        #expect(output.stderr.hasPrefix("Error: twitter: @QuietVault's posts are protected: only approved followers can see them"))
    }

    @Test func v11AtTodaysAccessLevels() async throws {
        let sandbox = try LoopbackSandbox(settings: ["twitter.v1-access": "limited"])
        let output = await harness(sandbox).run(["twitter", "orbitalnotes", "--api", "v1.1"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: twitter: API v1.1's user timeline needs a higher access level than this app has (HTTP 403, code 453). Use --api v2 (the default), or change the app's access level in the X developer portal.\n")
    }

    @Test func a429ThatResetsWithinTheBudgetIsWaitedOut() async throws {
        let sandbox = try LoopbackSandbox(
            faults: ["status=429; times=1; path=/twitter/2/users/1587369841290375168/tweets"], settings: ["twitter.rate-limit-reset": "1"])
        let output = await harness(sandbox, mounted: true).run(["twitter", "orbitalnotes", "--limit", "3", "--verbose"])
        #expect(output.code == .success, "\(output.stderr)")
        // The wait comes from x-rate-limit-reset (up to the reset, plus one second), not from the backoff (< 1 s).
        #expect(
            output.stderr.contains("twitter: retrying in 2.0 s after HTTP 429 (retry 1 of 3)")
                || output.stderr.contains("twitter: retrying in 1.0 s after HTTP 429 (retry 1 of 3)"), "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").filter { $0.hasPrefix("@orbitalnotes") }.count == 3)
        #expect(sandbox.server.requestCount == 3, "lookup, the limited page, the retry")
    }

    @Test(arguments: [("v2", "/twitter/2/users/by/username", "Too Many Requests"), ("v1.1", "/twitter/1.1/statuses", "code 88: Rate limit exceeded")])
    func a429BeyondTheBudgetSaysWhenTheLimitResets(_ api: String, _ path: String, _ said: String) async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=429; path=\(path)"], settings: ["twitter.rate-limit-reset": "600"])
        let before = Date()
        let output = await harness(sandbox, mounted: true).run(["twitter", "orbitalnotes", "--api", api])
        let after = Date()
        #expect(output.code == .failure)
        // TZ is UTC in the harness; the date is shown when the reset falls on another day (e.g. just before midnight).
        let day = ISO8601.utcFormatter(format: "yyyy-MM-dd")
        func resetText(_ now: Date) -> String {
            let reset = now.addingTimeInterval(600)
            let format = day.string(from: reset) == day.string(from: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
            return ISO8601.utcFormatter(format: format).string(from: reset)
        }
        // The reset is whole epoch seconds, 600 s after the sandbox's second; seen from the run's start it can be a
        // fraction over 600 s away when a second boundary passes in between, which rounds up to 11 minutes.
        let expected = Set([before, after].flatMap { now in
            ["10", "11"].map { "Error: twitter: rate limited (HTTP 429: \(said)); the limit resets at \(resetText(now)) local time (in \($0) min)\n" }
        })
        #expect(expected.contains(output.stderr), "\(output.stderr)")
        #expect(sandbox.server.requestCount == 1, "a wait beyond the retry budget is not attempted")
    }

    @Test func compareLooksTheSameUserUpOnce() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox).run([
            "compare", "twitter orbitalnotes --limit 3", "twitter @OrbitalNotes --limit 2 --exclude replies", "--format", "json",
        ])
        #expect(output.code == .success, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["status"] } == ["ok", "ok"])
        #expect(sandbox.server.requestCount == 3, "one lookup shared by both invocations, then one page each")
    }

    @Test func textViewOverTheWireWrapsToTheWidth() async throws {
        let sandbox = try LoopbackSandbox()
        let output = await harness(sandbox, width: 50).run(["twitter", "swiftbytes", "--limit", "10"])
        #expect(output.code == .success)
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("@swiftbytes · ") }.count == 10)
        #expect(lines.allSatisfy { TextLayout.width(String($0)) <= 50 })
    }

    @Test func everyAnswerOnTheWireCarriesRateLimitHeaders() async throws {
        let sandbox = try LoopbackSandbox()
        let transport = URLSessionTransport()
        let base = sandbox.url
        let cases: [(String, HTTPHeaders, Int)] = [
            ("/2/users/by/username/orbitalnotes", ["Authorization": "Bearer \(Self.token)"], 200),
            ("/2/users/by/username/nobody_here", ["Authorization": "Bearer \(Self.token)"], 200),
            ("/2/users/by/username/orbitalnotes", [:], 401),
            ("/twitter/2/users/1587369841290375168/tweets?max_results=2", ["Authorization": "Bearer \(Self.token)"], 400),
            ("/twitter/2/users/1587369841290375168/tweets", ["Authorization": "Bearer \(Self.token)", "X-Sandbox-Fault": "status=503"], 503),
            ("/1.1/statuses/user_timeline.json?screen_name=orbitalnotes", ["Authorization": "Bearer \(Self.token)"], 200),
            ("/1.1/statuses/user_timeline.json?screen_name=nobody_here", ["Authorization": "Bearer \(Self.token)"], 404),
            ("/1.1/statuses/user_timeline.json?screen_name=quietvault", ["Authorization": "Bearer \(Self.token)"], 401),
            ("/twitter/1.1/statuses/user_timeline.json", ["Authorization": "Bearer \(Self.token)", "X-Sandbox-Fault": "status=429"], 429),
        ]
        for (path, headers, status) in cases {
            let response = try await transport.send(HTTPRequest(method: "GET", url: try #require(URL(string: base + path)), headers: headers))
            #expect(response.status == status, "\(path)")
            for name in ["x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"] {
                #expect(response.headers[name] != nil, "\(name) on \(path)")
            }
            if path.contains("/1.1/") { #expect(response.headers["x-app-rate-limit-limit"] == "100000", "\(path)") }
        }
    }
}
