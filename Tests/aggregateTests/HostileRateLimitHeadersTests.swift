import AggregateCore
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateText
import Foundation
import Testing

/// A server that answers every request with the status, headers and body its settings give
/// (`answer.status`, `answer.headers` as `Name: value` lines, `answer.body`): the hostile rate-limit headers of issue 27.
struct HostileHeadersServer: Provider, SandboxProviding {
    static let providerName = "hostileheaders"
    static let descriptor = ProviderDescriptor(
        name: "hostileheaders", displayName: "Hostile headers", summary: "Answers the rate-limit headers it is told to.",
        docsURL: "https://example.invalid/docs", defaultBaseURL: "https://api.example.invalid",
        auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "echo", summary: "Echo.", itemKind: "echo")], examples: [])
    static var sandboxEnvironment: [String: String] { [:] }

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        let settings = context.settings
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        for line in (settings["answer.headers"] ?? "").split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { headers[parts[0]] = parts[1] }
        }
        return SandboxResponse(status: Int(settings["answer.status"] ?? "") ?? 429, headers: headers, body: Data((settings["answer.body"] ?? "{}").utf8))
    }

    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }

    /// A started server answering `status` with `headers`.
    static func start(status: Int, headers: [String], body: String = "{}") throws -> SandboxServer {
        var configuration = SandboxServerConfiguration(port: 0, log: { _ in })
        configuration.settings = ["answer.status": String(status), "answer.headers": headers.joined(separator: "\n"), "answer.body": body]
        let server = SandboxServer(catalog: try SandboxCatalog([Self.self], sandboxes: [Self.self]), configuration: configuration)
        try server.start()
        return server
    }
}

/// Issue 27, "Rate-limit and retry headers are untrusted input", through the built binary against a loopback server
/// that answers the hostile headers: no crash, one line, and no lock-out longer than two days.
@Suite(.serialized) struct HostileRateLimitHeadersTests {
    let tmdbBody = #"{"status_code":25,"status_message":"Your request count (41) is over the allowed limit of 40.","success":false}"#

    /// A fresh cache folder (the limiter's state lives under it).
    func freshCache() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-hostile-limits-\(UUID().uuidString)").path
    }

    func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }

    /// Every stored `blockedUntil` and `serverReset` in the state folder.
    func storedTimes(_ cache: String) throws -> [Double] {
        let folder = URL(fileURLWithPath: cache).appendingPathComponent("aggregate/ratelimit")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        return try files.flatMap { name -> [Double] in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("e+308") && !text.contains("inf"), "\(text)")
            let json = try JSONParser().parse(Data(text.utf8))
            return [json["blockedUntil"]?.double, json["serverReset"]?.double].compactMap { $0 }
        }
    }

    @Test func aTMDb429WithRetryAfter1e308IsBoundedAndTheNextRunSaysSoInOneLine() throws {
        let server = try HostileHeadersServer.start(status: 429, headers: ["Retry-After: 1e308"], body: tmdbBody)
        defer { server.stop() }
        let cache = freshCache()
        let environment = ["TMDB_ACCESS_TOKEN": "t0ken", "AGGREGATE_TMDB_BASE_URL": server.baseURL.absoluteString + "/hostileheaders", "XDG_CACHE_HOME": cache, "TZ": "UTC"]
        let first = try Binary.run(["tmdb", "search", "batman", "--no-cache"], environment: environment)
        #expect(first.status == 1, "\(first.stderr)")
        #expect(lines(first.stderr).count == 1, "\(first.stderr)")
        let before = Date().timeIntervalSince1970
        let times = try storedTimes(cache)
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { $0 <= before + RateLimitHeaders.longestWait + 1 }, "\(times)")

        // Before the fix this run died of SIGILL (exit 132) in the reset wording, and every later one too.
        let second = try Binary.run(["tmdb", "search", "batman", "--no-cache"], environment: environment)
        #expect(second.status == 1, "\(second.stderr)")
        #expect(lines(second.stderr).count == 1, "\(second.stderr)")
        #expect(second.stderr.range(of: #"the limit resets at \d{4}-\d\d-\d\d \d\d:\d\d local time \(in about 4[78] h\)"#, options: .regularExpression) != nil, "\(second.stderr)")
        #expect(server.requestCount == 1, "the second run sent nothing")

        // `limits show` tells the block; `limits reset` lifts it, so the next run asks the API again.
        let shown = try Binary.run(["limits", "show", "tmdb"], environment: environment)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("\ntmdb      api     127.0.0.1:"), "\(shown.stdout)")
        #expect(shown.stdout.contains("40 requests a second") && shown.stdout.contains(" local time (in about 4"), "\(shown.stdout)")
        let json = try Binary.run(["limits", "show", "--format", "json"], environment: environment)
        let bucket = try JSONParser().parse(Data(json.stdout.utf8))["buckets"]?[0]
        #expect(bucket?["provider"] == "tmdb" && bucket?["bucket"] == "api")
        #expect(bucket?["budget"]?["requests"] == 40)
        let blockedText = try #require(bucket?["blockedUntil"]?.string, "\(json.stdout)")
        let blocked = try #require(UTCTimestamp.date(fromISO8601: blockedText))
        #expect(blocked.timeIntervalSince1970 <= before + RateLimitHeaders.longestWait + 1)
        let reset = try Binary.run(["limits", "reset", "tmdb"], environment: environment)
        #expect(reset.status == 0 && reset.stdout.hasPrefix("Reset 1 rate-limit bucket of tmdb in "), "\(reset.stdout)\(reset.stderr)")
        let third = try Binary.run(["tmdb", "search", "batman", "--no-cache"], environment: environment)
        #expect(third.status == 1 && lines(third.stderr).count == 1, "\(third.stderr)")
        #expect(server.requestCount == 2, "after the reset the run asked the API again")
        let empty = try Binary.run(["limits", "show"], environment: environment)
        #expect(empty.stdout.contains("127.0.0.1:"), "the third 429 was learned again: \(empty.stdout)")
    }

    @Test func limitsNamesOnlyKnownProviders() throws {
        let output = try Binary.run(["limits", "show", "nosuch"], environment: ["XDG_CACHE_HOME": freshCache()])
        #expect(output.status == 64)
        #expect(output.stderr.hasPrefix("Error: unknown provider 'nosuch'. Valid providers: "), "\(output.stderr)")
        #expect(output.stderr.contains("tmdb") && output.stderr.contains("github"))
        let reset = try Binary.run(["limits", "reset", "nosuch"], environment: ["XDG_CACHE_HOME": freshCache()])
        #expect(reset.status == 64)
        let action = try Binary.run(["limits", "clear"], environment: ["XDG_CACHE_HOME": freshCache()])
        #expect(action.status == 64 && action.stderr.hasPrefix("Error: unknown action 'clear': use show or reset"), "\(action.stderr)")
    }

    /// GitHub (a definition) crashed on the first answer with these; every value now ends in one line, exit 1.
    @Test(arguments: ["inf", "-inf", "1e308", "nan", "-5", "9.3e18", "99999999999999999999", "0x1p70", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func gitHubSurvivesHostileRetryAfterAndResetHeaders(_ value: String) throws {
        for headers in [["Retry-After: \(value)"], ["x-ratelimit-remaining: 0", "x-ratelimit-reset: \(value)"]] {
            let server = try HostileHeadersServer.start(status: 403, headers: headers, body: #"{"message":"API rate limit exceeded"}"#)
            defer { server.stop() }
            let cache = freshCache()
            let environment = ["AGGREGATE_GITHUB_BASE_URL": server.baseURL.absoluteString + "/hostileheaders", "XDG_CACHE_HOME": cache, "TZ": "UTC"]
            for run in 1...2 {
                let output = try Binary.run(["github", "search", "swift", "--no-cache"], environment: environment)
                let context = "\(headers) run \(run)"
                #expect(output.status == 1, "\(context): \(output.stderr)")
                #expect(lines(output.stderr).count == 1, "\(context): \(output.stderr)")
                #expect(output.stderr.hasPrefix("Error: github: "), "\(context): \(output.stderr)")
                #expect(!output.stderr.contains("local time (in about 2562047788015215 h)") && !output.stderr.contains("at  local time"), "\(context): \(output.stderr)")
                #expect(output.stderr.range(of: #"in about (\d+) h"#, options: .regularExpression).map { Int(output.stderr[$0].split(separator: " ")[2])! <= 48 } ?? true, "\(context): \(output.stderr)")
            }
            let before = Date().timeIntervalSince1970
            #expect(try storedTimes(cache).allSatisfy { $0 <= before + RateLimitHeaders.longestWait + 1 }, "\(headers)")
            #expect(server.requestCount >= 1, "the hostile server was asked")
        }
    }

    /// Remaining 0 with a reset far away (or an HTTP date in year 9999) locked TMDb, GitHub, X and Kiva out for good;
    /// now the lock-out ends within two days, and says so with a real clock.
    @Test(arguments: [
        ("tmdb", ["tmdb", "search", "batman"], "TMDB_ACCESS_TOKEN", ["Retry-After: Fri, 31 Dec 9999 23:59:59 GMT"]),
        ("tmdb", ["tmdb", "search", "batman"], "TMDB_ACCESS_TOKEN", ["Retry-After: 9300000000000000000"]),
        ("github", ["github", "search", "swift"], "GITHUB_TOKEN", ["x-ratelimit-remaining: 0", "x-ratelimit-reset: 9223372036854775807"]),
        ("twitter", ["twitter", "nasa"], "X_BEARER_TOKEN", ["x-rate-limit-remaining: 0", "x-rate-limit-reset: 9223372036854775807"]),
        ("kiva", ["kiva", "newest", "--api", "rest"], "KIVA_APP_ID", ["X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1e18"]),
    ])
    func aHugeResetLocksNoProviderOutForGood(_ provider: String, _ arguments: [String], _ credential: String, _ headers: [String]) throws {
        let server = try HostileHeadersServer.start(status: 429, headers: headers)
        defer { server.stop() }
        let cache = freshCache()
        let environment = [
            credential: "t0ken", "AGGREGATE_\(provider.uppercased())_BASE_URL": server.baseURL.absoluteString + "/hostileheaders", "XDG_CACHE_HOME": cache, "TZ": "UTC",
        ]
        for run in 1...2 {
            let output = try Binary.run(arguments + ["--no-cache"], environment: environment)
            #expect(output.status == 1, "\(provider) run \(run): \(output.stderr)")
            #expect(lines(output.stderr).count == 1, "\(provider) run \(run): \(output.stderr)")
            #expect(!output.stderr.contains("2562047788015215") && !output.stderr.contains("at  local time"), "\(provider) run \(run): \(output.stderr)")
        }
        let before = Date().timeIntervalSince1970
        let times = try storedTimes(cache)
        #expect(!times.isEmpty, "\(provider): the block was learned")
        #expect(times.allSatisfy { $0 <= before + RateLimitHeaders.longestWait + 1 }, "\(provider)")
        #expect(server.requestCount == 1, "\(provider): the second run was held back by the bounded block")
    }

    /// A state file written by the old limiter (`"blockedUntil":1e+308`), or one that is not JSON at all, is reset
    /// with one warning line, and the run goes on.
    @Test(arguments: [
        (#"{"version":1,"spent":[],"blockedUntil":1e+308}"#, "implausible (blockedUntil out of range)"),
        (#"{"version":1,"spent":[1e999],"serverRemaining":0,"serverReset":1}"#, "implausible (a spent time out of range)"),
        ("{\"version\":1,\"spent\":[", "damaged"),
        (#"{"version":1,"spent":[],"blockedUntil":"soon"}"#, "damaged"),
    ])
    func aDamagedOrAbsurdStateFileIsResetWithOneWarning(_ stored: String, _ reason: String) throws {
        let sandbox = try LoopbackSandbox()
        let cache = freshCache()
        let port = sandbox.server.baseURL.port ?? 0
        let folder = URL(fileURLWithPath: cache).appendingPathComponent("aggregate/ratelimit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("tmdb_api_127.0.0.1_\(port).json")
        try Data(stored.utf8).write(to: file)
        let environment = ["TMDB_API_KEY": TMDbLoopbackTests.sandboxEnvironment["TMDB_API_KEY"] ?? "", "AGGREGATE_TMDB_BASE_URL": sandbox.url + "/tmdb", "XDG_CACHE_HOME": cache]
        let output = try Binary.run(["tmdb", "search", "batman", "--limit", "1", "--no-cache"], environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr == "warning: tmdb: the rate-limit state \(file.path) was \(reason); it was reset; continuing\n")
        #expect(!output.stdout.isEmpty)
        let again = try Binary.run(["tmdb", "search", "batman", "--limit", "1", "--no-cache"], environment: environment)
        #expect(again.status == 0 && again.stderr.isEmpty, "the reset state is sane: \(again.stderr)")
    }
}
