import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import Testing
@testable import aggregate

/// The issue's done-when, made fast: a shell loop of runs of `kiva newest --api rest` against a sandbox that enforces
/// Kiva REST's limit for real gets no 403: the limiter waits, or says when the limit resets. The sandbox's window is
/// shrunk with its `kiva.rate-limit` setting (`aggregate sandbox --rate-limit kiva=N/WINDOW`), and the client's with
/// `AGGREGATE_KIVA_RATE_LIMIT`, so a minute's budget plays out in a fraction of a second.
@Suite(.serialized) struct RateLimitLoopTests {
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-ratelimit-loop-\(UUID().uuidString)").path
    // --no-cache: the disk cache would answer the repeats with no request at all; these runs test the limiter.
    let arguments = ["kiva", "newest", "--api", "rest", "--limit", "1", "--format", "json", "--no-cache"]

    func loop(_ count: Int, sandbox: LoopbackSandbox, extra: [String: String] = [:], options: [String] = []) throws -> [Binary.Output] {
        var environment = ["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva", "XDG_CACHE_HOME": cache, "TZ": "UTC"]
        environment.merge(extra) { _, new in new }
        return try (0..<count).map { _ in try Binary.run(arguments + options, environment: environment) }
    }

    /// The window is long enough that even a loaded machine runs three within it, so the loop outruns the budget
    /// whatever the speed of a run; a window of milliseconds would be outrun only on an idle machine.
    @Test func runsBeyondTheBudgetWaitAndNeverGetA403() throws {
        let sandbox = try LoopbackSandbox(settings: ["kiva.rate-limit": "3/5s"])
        let runs = try loop(7, sandbox: sandbox, extra: ["AGGREGATE_KIVA_RATE_LIMIT": "3/5s"], options: ["--verbose"])
        let failures = runs.filter { $0.status != 0 }
        #expect(failures.isEmpty, "\(failures.first?.stderr ?? "")")
        #expect(!runs.contains { $0.stderr.contains("403") })
        #expect(sandbox.server.requestCount == 7)
        // The loop outran the budget, so the limiter had to hold requests back (and said so with --verbose).
        #expect(runs[3].stderr.contains("kiva: waiting ") && runs[3].stderr.contains("s for the rate limit (3 requests per 5 s)"), "\(runs[3].stderr)")
    }

    @Test func withoutTheOverrideTheLimiterLearnsFromTheHeadersAndSaysWhenTheLimitResets() throws {
        // The client still believes in 60 a minute; the sandbox allows 5 per 10 s and says what is left.
        let sandbox = try LoopbackSandbox(settings: ["kiva.rate-limit": "5/10s"])
        let runs = try loop(8, sandbox: sandbox)
        #expect(!runs.contains { $0.stderr.contains("403") })
        #expect(runs.prefix(5).allSatisfy { $0.status == 0 })
        for run in runs.dropFirst(5) {
            #expect(run.status == 1)
            #expect(run.stderr.range(of: #"^Error: kiva: the rate limit \(60 requests a minute\) is spent; the limit resets at \d\d:\d\d local time \(in \d+ min\)\. Nothing was sent: try again then, or pass --no-rate-limit\n$"#, options: .regularExpression) != nil, "\(run.stderr)")
        }
        #expect(sandbox.server.requestCount == 5)
    }

    @Test func withoutTheLimiterTheSandboxLocksTheAddressOut() throws {
        let sandbox = try LoopbackSandbox(settings: ["kiva.rate-limit": "5/10s"])
        let runs = try loop(7, sandbox: sandbox, options: ["--no-rate-limit"])
        #expect(runs.prefix(5).allSatisfy { $0.status == 0 })
        #expect(runs.dropFirst(5).allSatisfy { $0.status == 1 && $0.stderr.contains("refused the request (HTTP 403") })
    }

    @Test func theSandboxCountsKivaRESTPerWindowAndAppID() throws {
        let router = SandboxRouter(catalog: try SandboxCatalog(allProviders, sandboxes: allSandboxes))
        let counter = SandboxRequestCounter()
        let server = URL(string: "http://127.0.0.1:8787")!
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func get(_ target: String, at offset: TimeInterval) -> SandboxResponse {
            router.respond(
                to: SandboxRequest(method: "GET", url: URL(string: "http://127.0.0.1:8787" + target)!), serverURL: server,
                now: start + offset, store: nil, requestCounter: counter
            ).response
        }
        let answers = (0..<61).map { get("/kiva/v1/loans/newest.json", at: Double($0) / 10) }
        #expect(answers.prefix(60).allSatisfy { $0.status == 200 })
        #expect(answers[0].headers["X-RateLimit-Overall-Remaining"] == "59" && answers[59].headers["X-RateLimit-Overall-Remaining"] == "0")
        #expect(answers[60].status == 403 && answers[60].headers["X-RateLimit-Overall-Remaining"] == "0")
        // GraphQL is not counted; with app_id the budget is 500 and separate; a new window starts afresh.
        #expect(get("/kiva/graphql?query=%7Blend%7Bsector(id:1)%7Bname%7D%7D%7D", at: 7).status != 403)
        #expect(get("/kiva/v1/loans/newest.json?app_id=org.example", at: 7).headers["X-RateLimit-Overall-Remaining"] == "499")
        #expect(get("/kiva/v1/loans/newest.json", at: 60).headers["X-RateLimit-Overall-Remaining"] == "59")
    }

    @Test func offlineDemosAreNeverThrottled() async throws {
        for _ in 0..<70 {
            let output = await CLIHarness().run(["kiva", "newest", "--api", "rest", "--limit", "1", "--offline", "--quiet"])
            #expect(output.code == .success, "\(output.stderr)")
        }
    }
}

/// One budget for everything a run sends: every `compare` invocation of a provider spends from the same bucket.
@Suite struct RateLimitCompareTests {
    @Test func compareInvocationsShareOneBudgetAndSayWhenItResets() async throws {
        let sandbox = try LoopbackSandbox()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-ratelimit-compare-\(UUID().uuidString)").path
        let environment = ["AGGREGATE_KIVA_BASE_URL": sandbox.url + "/kiva", "AGGREGATE_KIVA_RATE_LIMIT": "2/1h", "XDG_CACHE_HOME": cache, "TZ": "UTC"]
        let invocation = "kiva newest --api rest --limit 1"
        let output = await CLIHarness(environment: environment).run(["compare", invocation, invocation, invocation, invocation, "--format", "json"])
        #expect(output.code == .partial)
        #expect(sandbox.server.requestCount == 2)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("Error: kiva: the rate limit (2 requests an hour) is spent; the limit resets at ") })

        // --no-rate-limit after 'compare' turns it off for every invocation.
        let unlimited = await CLIHarness(environment: environment).run(["compare", invocation, invocation, "--no-rate-limit", "--format", "json"])
        #expect(unlimited.code == .success, "\(unlimited.stderr)")
        #expect(sandbox.server.requestCount == 4)
    }

    @Test func waitsAreShownInTheProgressLines() {
        let text = "waiting 1.4 s for the rate limit (5 requests per 2 s)"
        #expect(ProgressDisplay.status(for: .waitingForRateLimit(seconds: 1.44, budget: "5 requests per 2 s")) == text)
        let written = Buffer()
        let line = ProgressLine(label: "kiva", isEnabled: true, width: 120, delay: 0, clock: { 0 }, write: { written.append($0) })
        line.handle(FetchEvent(provider: "kiva", kind: .waitingForRateLimit(seconds: 1.44, budget: "5 requests per 2 s")))
        #expect(written.text.contains("kiva: \(text)"))
    }
}
