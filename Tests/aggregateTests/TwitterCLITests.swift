import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateText
import Foundation
import MeetupProvider
import Testing
@testable import aggregate

/// `aggregate twitter ...` through the real command-line code path.
@Suite struct TwitterCLITests {
    /// A transport that must not be used: the command should fail before any request.
    static let noRequests: @Sendable () -> any HTTPTransport = {
        FakeTransport { request in
            Issue.record("no request should be sent, but \(request.url) was")
            throw AggregateError(.network, "unexpected request")
        }
    }

    @Test func theDefaultOperationTakesTheUsernameAsItsFirstWord() async throws {
        let harness = CLIHarness()
        let short = await harness.run(["twitter", "orbitalnotes", "--limit", "5", "--offline", "--format", "json", "--quiet"])
        let long = await harness.run(["twitter", "timeline", "@orbitalnotes", "--limit", "5", "--offline", "--format", "json", "--quiet"])
        #expect(short.code == .success)
        let result = try #require(try JSONParser().parse(short.stdout)["results"]?[0])
        #expect(result["operation"] == "timeline")
        #expect(result["query"] == ["api": "v2", "username": "orbitalnotes"])
        #expect(result["items"]?.array?.count == 5)
        #expect(try stabilized(short.stdout) == (try stabilized(long.stdout)))
    }

    @Test func textViewWrapsWithoutCutting() async throws {
        let harness = CLIHarness(width: 40)
        let text = await harness.run(["twitter", "orbitalnotes", "--limit", "6", "--offline", "--quiet"])
        let json = await harness.run(["twitter", "orbitalnotes", "--limit", "6", "--offline", "--quiet", "--format", "json"])
        #expect(text.code == .success)
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { TextLayout.width(String($0)) <= 40 }, "\(text.stdout)")
        #expect(lines.filter { $0.hasPrefix("@orbitalnotes · ") }.count == 6, "one entry per post")
        #expect(lines.allSatisfy { $0.hasPrefix("@orbitalnotes · ") || $0.hasPrefix("  ") })
        // Every character of every title is there, in order: wrapped (long links split across lines), never cut.
        let titles = try JSONParser().parse(json.stdout)["results"]?[0]?["items"]?.array?.compactMap { $0["title"]?.string } ?? []
        #expect(titles.count == 6)
        let shown = String(text.stdout.filter { !$0.isWhitespace })
        for title in titles {
            #expect(shown.contains(String(title.filter { !$0.isWhitespace })), "\(title)")
        }
        #expect(!text.stdout.contains("…"), "nothing is cut with an ellipsis")
        #expect(lines.first == "@orbitalnotes · 2025-11-28 21:40 —")
    }

    @Test func aBadUsernameIsAUsageErrorBeforeAnyRequest() async {
        let harness = CLIHarness(environment: ["X_BEARER_TOKEN": "some-token"], makeTransport: Self.noRequests)
        let output = await harness.run(["twitter", "not a name!"])
        #expect(output.code == .usage)
        #expect(output.stderr.hasPrefix("Error: twitter: 'not a name!' is not a valid username: use 1–15 letters, digits or underscores (a leading @ is fine)\n"))
        #expect(output.stdout.isEmpty)
    }

    @Test func badOptionsAreUsageErrors() async {
        let harness = CLIHarness(environment: ["X_BEARER_TOKEN": "some-token"], makeTransport: Self.noRequests)
        #expect(await harness.run(["twitter", "timeline"]).code == .usage)
        #expect(await harness.run(["twitter", "nasa", "--exclude", "quotes"]).code == .usage)
        #expect(await harness.run(["twitter", "nasa", "--api", "v3"]).code == .usage)
        #expect(await harness.run(["twitter", "nasa", "extra"]).code == .usage)
    }

    @Test func missingTokenIsAConfigError() async {
        let harness = CLIHarness(environment: [:], makeTransport: Self.noRequests)
        let output = await harness.run(["twitter", "nasa"])
        #expect(output.code == .config)
        #expect(output.stderr == "Error: twitter: no API token: set X_BEARER_TOKEN (or TWITTER_BEARER_TOKEN), or use --offline to see sample data\n")
    }

    @Test(arguments: ["v2", "v1.1"])
    func unknownUserIsOneLineAndExit1(_ api: String) async {
        let output = await CLIHarness().run(["twitter", "@nobody_here", "--api", api, "--offline", "--quiet"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: twitter: no user named @nobody_here\n")
        #expect(output.stdout.isEmpty)
    }

    @Test func theTokenNeverAppearsInAnyOutput() async throws {
        let marker = "MARKER-7f3a9c-do-not-print"
        let sandbox = SandboxTransport(catalog: try SandboxCatalog(allProviders, sandboxes: allSandboxes))
        let sandboxToken = "Bearer " + (allSandboxes.first { $0.providerName == "twitter" }?.sandboxEnvironment["X_BEARER_TOKEN"] ?? "")
        // A server that checks the marker arrived, then answers as the sandbox would; for one user it echoes the header back.
        let transport: @Sendable () -> any HTTPTransport = {
            FakeTransport { request in
                #expect(request.headers["Authorization"] == "Bearer \(marker)")
                var forwarded = request
                forwarded.headers["Authorization"] = sandboxToken
                if request.url.path.contains("nobody_echo") {
                    let body = #"{"title":"Invalid Request","type":"about:blank","status":400,"detail":"the header was Bearer \#(marker)"}"#
                    return HTTPResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(body.utf8), url: request.url)
                }
                return try await sandbox.send(forwarded)
            }
        }
        let harness = CLIHarness(environment: ["X_BEARER_TOKEN": marker], makeTransport: transport)
        var outputs: [CLIHarness.Output] = []
        for api in ["v2", "v1.1"] {
            for extra in [[], ["--format", "json"], ["--format", "ndjson"], ["--raw"]] {
                let output = await harness.run(["twitter", "orbitalnotes", "--api", api, "--limit", "3", "--verbose", "--base-url", "http://127.0.0.1:1"] + extra)
                #expect(output.code == .success, "\(output.stderr)")
                outputs.append(output)
            }
        }
        let failed = await harness.run(["twitter", "nobody_echo", "--verbose", "--base-url", "http://127.0.0.1:1", "--format", "json"])
        #expect(failed.code == .failure)
        #expect(failed.stderr.contains("Error: twitter: the API rejected the request (HTTP 400: the header was Bearer ***"), "\(failed.stderr)")
        outputs.append(failed)
        for output in outputs {
            #expect(!output.stdout.contains(marker))
            #expect(!output.stderr.contains(marker))
        }
        #expect(outputs[0].stderr.contains("→ GET http://127.0.0.1:1/2/users/by/username/orbitalnotes"), "the trace is there, without the token")
    }

    @Test func describeDocumentsTheProvider() async {
        let output = await CLIHarness().run(["describe", "twitter"])
        #expect(output.code == .success)
        for expected in [
            "timeline (default)", "<username>", "--exclude <KINDS>", "replies,retweets", "--api <VERSION>", "v2|v1.1",
            "X_BEARER_TOKEN", "TWITTER_BEARER_TOKEN", "https://api.x.com", "aggregate twitter orbitalnotes --limit 5 --offline",
            "pagination_token", "max_id",
        ] {
            #expect(output.stdout.contains(expected), "describe should mention \(expected)")
        }
    }
}

/// The provider's type without importing its module here (the CLI target sees providers only through the registry).
let TwitterProviderType: any Provider.Type = allProviders.first { $0.descriptor.name == "twitter" }!
