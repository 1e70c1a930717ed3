import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import AggregateTestSupport
import Foundation
import MeetupProvider
import Testing

/// GitHub's and Hacker News's declared budgets, cache times and validators, through the binary and the emulator.
@Suite(.serialized) struct DefinitionLimitsCLITests {
    static func temporaryFolder(_ label: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs of `github search` against a loopback emulator keep to the definition's search budget: ten a minute
    /// without a token (the eleventh stops before sending), thirty with `GITHUB_TOKEN`: the token's tier is counted
    /// apart, so the address's spent quota (which the emulator's headers reported as 0 left) does not stop it.
    @Test func githubRunsKeepToTheDefinitionsSearchBudget() throws {
        let sandbox = try LoopbackSandbox()
        let cache = try Self.temporaryFolder("github-budget")
        defer { try? FileManager.default.removeItem(at: cache) }
        var environment = ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github", "XDG_CACHE_HOME": cache.path, "TZ": "UTC"]
        // --no-cache: the disk cache would answer the repeats with no request at all; these runs test the limiter.
        let arguments = ["github", "search", "swift", "--limit", "1", "--format", "json", "--no-cache"]
        let runs = try (0..<11).map { _ in try Binary.run(arguments, environment: environment) }
        #expect(runs.prefix(10).allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }?.stderr ?? "")")
        let refused = try #require(runs.last)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: github: the rate limit (10 requests a minute) is spent;"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Nothing was sent"))
        #expect(sandbox.server.requestCount == 10)

        environment["GITHUB_TOKEN"] = "sandbox-github-token"
        let withToken = try Binary.run(arguments, environment: environment)
        #expect(withToken.status == 0, "\(withToken.stderr)")
        #expect(sandbox.server.requestCount == 11)
    }

    /// The emulator enforces the definition's budget for real, shrunk with `github.rate-limit` (`aggregate sandbox
    /// --rate-limit github=N/WINDOW`): the client, given the same budget, waits instead of getting a 403; without its
    /// limiter the sandbox refuses the request over the budget.
    @Test func againstAShrunkSandboxLimitTheLimiterWaitsAndNeverGetsA403() throws {
        let cache = try Self.temporaryFolder("github-shrunk")
        defer { try? FileManager.default.removeItem(at: cache) }
        let arguments = ["github", "search", "swift", "--limit", "1", "--format", "json", "--no-cache"]
        // A window long enough that even a loaded machine runs the first two within it, so the third must wait.
        let sandbox = try LoopbackSandbox(settings: ["github.rate-limit": "2/6s"])
        let environment = [
            "AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github", "XDG_CACHE_HOME": cache.path, "TZ": "UTC", "AGGREGATE_GITHUB_RATE_LIMIT": "2/6s",
        ]
        let runs = try (0..<3).map { _ in try Binary.run(arguments + ["--verbose"], environment: environment) }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.first { $0.status != 0 }?.stderr ?? "")")
        #expect(!runs.contains { $0.stderr.contains("403") })
        #expect(sandbox.server.requestCount == 3)
        #expect(runs[2].stderr.contains("github: waiting ") && runs[2].stderr.contains("s for the rate limit (2 requests per 6 s)"), "\(runs[2].stderr)")

        let strict = try LoopbackSandbox(settings: ["github.rate-limit": "3/1h"])
        let unlimited = try (0..<4).map { _ in
            try Binary.run(arguments + ["--no-rate-limit"], environment: ["AGGREGATE_GITHUB_BASE_URL": strict.url + "/github", "XDG_CACHE_HOME": cache.path, "TZ": "UTC"])
        }
        #expect(unlimited.prefix(3).allSatisfy { $0.status == 0 })
        #expect(unlimited[3].status == 1 && unlimited[3].stderr.contains("HTTP 403"), "\(unlimited[3].stderr)")
    }

    /// A counting emulator tells the real window in the declared headers, as GitHub does: the requests left in it
    /// and when it closes (epoch seconds). The token's tier is counted apart from the address's.
    @Test func theEmulatorsRateLimitHeadersTellTheCountedWindow() async throws {
        let sandbox = try LoopbackSandbox()
        let url = URL(string: sandbox.url + "/github/search/repositories?q=swift")!
        func remaining(token: String? = nil) async throws -> (String?, Int?) {
            let headers = token.map { HTTPHeaders([(name: "Authorization", value: "Bearer \($0)")]) } ?? [:]
            let response = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url, headers: headers))
            #expect(response.status == 200)
            return (response.headers["x-ratelimit-remaining"], response.headers["x-ratelimit-reset"].flatMap { Int($0) })
        }
        let start = Date()
        let first = try await remaining()
        let afterFirst = Date()
        let answers = [first, try await remaining(), try await remaining()]
        #expect(answers.map(\.0) == ["9", "8", "7"])
        let reset = try #require(answers[0].1)
        #expect(answers.allSatisfy { $0.1 == reset }, "one window, one reset")
        // The window opened with the first request and lasts a minute (the header rounds up to whole seconds).
        #expect(Double(reset) >= start.addingTimeInterval(60).timeIntervalSince1970.rounded(.down), "\(reset)")
        #expect(Double(reset) <= afterFirst.addingTimeInterval(61).timeIntervalSince1970, "\(reset)")
        #expect(try await remaining(token: "sandbox-github-token").0 == "29")
    }

    /// The override shrinks the definition's budget like a Swift provider's: 2 per 30 s lets two runs through.
    @Test func theOverrideVariableShrinksTheDefinitionsBudget() throws {
        let sandbox = try LoopbackSandbox()
        let cache = try Self.temporaryFolder("hn-budget")
        defer { try? FileManager.default.removeItem(at: cache) }
        let environment = [
            "AGGREGATE_HACKERNEWS_BASE_URL": sandbox.url + "/hackernews", "XDG_CACHE_HOME": cache.path, "TZ": "UTC",
            "AGGREGATE_HACKERNEWS_RATE_LIMIT": "2/1h",
        ]
        let runs = try (0..<3).map { _ in try Binary.run(["hackernews", "search", "swift", "--limit", "1", "--no-cache"], environment: environment) }
        #expect(runs.prefix(2).allSatisfy { $0.status == 0 }, "\(runs[0].stderr)")
        #expect(runs[2].status == 1)
        #expect(runs[2].stderr.hasPrefix("Error: hackernews: the rate limit (2 requests an hour) is spent;"), "\(runs[2].stderr)")
        #expect(sandbox.server.requestCount == 2)
    }

    @Test func describeShowsTheBudgetAndTheCacheTimes() throws {
        let text = try Binary.run(["describe", "github"]).stdout
        let flat = text.replacingOccurrences(of: #"\n {24}"#, with: " ", options: .regularExpression)
        #expect(flat.contains("Rate limit              search: 30 requests a minute with GITHUB_TOKEN, else 10 requests a minute (/search/**)\n"), "\(text)")
        #expect(flat.contains("Cache                   GET answers stay fresh for 5 min; search: 3 min (or the API's shorter max-age)\n"), "\(text)")
        let json = try JSONParser().parse(try Binary.run(["describe", "github", "--format", "json"]).stdout)
        #expect(json["rateBudgets"] == [
            ["name": "search", "requests": 30, "window": 60, "paths": ["/search/**"], "whenSet": "GITHUB_TOKEN", "perEndpoint": false],
            ["name": "search", "requests": 10, "window": 60, "paths": ["/search/**"], "whenSet": nil, "perEndpoint": false],
        ])
        #expect(json["cacheFreshness"] == ["defaultSeconds": 300, "operations": ["search": 180], "endpoints": []])
        let hackernews = try JSONParser().parse(try Binary.run(["describe", "hackernews", "--format", "json"]).stdout)
        #expect(hackernews["rateBudgets"]?[0]?["requests"] == 10_000 && hackernews["rateBudgets"]?[0]?["window"] == 3600)
        #expect(hackernews["cacheFreshness"]?["endpoints"] == [["pathPrefix": "/search_by_date", "seconds": 60]])
    }

    /// The definitions' emulators answer caching as the real APIs do: GitHub's search says `no-cache` and carries no
    /// validator (as captured), so a conditional request gets the whole answer again; Hacker News sends neither.
    @Test func theDefinitionsEmulatorsDeclareTheRealAPIsCaching() throws {
        let registry = SandboxRouter(catalog: try TestRegistry.builtIn())
        let server = URL(string: "http://127.0.0.1:8787")!
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func get(_ target: String, _ headers: HTTPHeaders = [:]) -> SandboxResponse {
            registry.respond(to: SandboxRequest(method: "GET", url: URL(string: server.absoluteString + target)!, headers: headers), serverURL: server, now: now, store: nil).response
        }
        let first = get("/github/search/repositories?q=swift")
        #expect(first.status == 200)
        #expect(first.headers["Cache-Control"] == "no-cache")
        #expect(first.headers["ETag"] == nil && first.headers["Last-Modified"] == nil)
        #expect(get("/github/search/repositories?q=swift", ["If-None-Match": "W/\"anything\""]).status == 200)

        let hackernews = get("/hackernews/search?query=swift")
        #expect(hackernews.status == 200)
        #expect(hackernews.headers["ETag"] == nil && hackernews.headers["Last-Modified"] == nil)
    }

    /// A run-time definition's own kind (`record`, from `new-provider`) is in the result schema's pattern.
    @Test func aRunTimeDefinitionsKindKeepsToTheResultSchema() throws {
        let schema = try JSONParser().parse(Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("Schemas/aggregate-result.schema.json")))
        let pattern = try #require(schema["$defs"]?["itemFields"]?["properties"]?["kind"]?["pattern"]?.string)
        let config = try Self.temporaryFolder("record-kind")
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = ["XDG_CONFIG_HOME": config.path, "HOME": config.path]
        #expect(try Binary.run(["new-provider", "bookish"], environment: environment).status == 0)
        let run = try Binary.run(["bookish", "search", "swift", "--offline", "--format", "json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let kinds = try #require(try JSONParser().parse(run.stdout)["results"]?[0]?["items"]?.array).compactMap { $0["kind"]?.string }
        #expect(!kinds.isEmpty && kinds.allSatisfy { $0 == "record" })
        #expect(kinds.allSatisfy { $0.range(of: pattern, options: .regularExpression) != nil })
        for builtIn in ["group", "loan", "movie", "tweet", "message", "repository", "story", "comment"] {
            #expect(builtIn.range(of: pattern, options: .regularExpression) != nil)
        }
        #expect("Record".range(of: pattern, options: .regularExpression) == nil)
    }
}
