import AggregateCore
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// `aggregate --server URL <provider> ...` against a real `aggregate serve --offline` over loopback: the same bytes as
/// the local offline run, the token sent and never shown, and one clear line for each way the server can fail.
@Suite struct ServerClientTests {
    static let search = ["tmdb", "search", "batman", "--limit", "3"]

    @Test func theServerGivesTheBytesOfTheLocalRunInEveryFormat() async throws {
        let running = try ServeCommandTests.start()
        defer { if running.process.isRunning { running.process.terminate() } }
        for format in ["text", "json", "csv", "ndjson", "markdown"] {
            let (remote, local) = try await onOwnThread {
                (try Binary.run(["--server", running.url] + Self.search + ["--format", format]),
                 try Binary.run(Self.search + ["--offline", "--quiet", "--format", format]))
            }
            #expect(remote.status == 0, "\(format): \(remote.stderr)")
            #expect(local.status == 0)
            #expect(try ServeCommandTests.withoutTimings(Data(remote.stdout.utf8)) == ServeCommandTests.withoutTimings(Data(local.stdout.utf8)), "\(format)")
        }
        // AGGREGATE_SERVER does the same as --server; --fields and --sort travel with the query.
        let (remote, local) = try await onOwnThread {
            (try Binary.run(Self.search + ["--fields", "title,metrics.voteCount", "--sort", "-metrics.voteCount"], environment: ["AGGREGATE_SERVER": running.url]),
             try Binary.run(Self.search + ["--fields", "title,metrics.voteCount", "--sort", "-metrics.voteCount", "--offline", "--quiet"]))
        }
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(remote.stdout == local.stdout)
    }

    @Test func usageErrorsStayLocalAndServerlessOptionsAreRefused() async throws {
        let (typo, offline, record) = try await onOwnThread {
            (try Binary.run(["--server", "http://127.0.0.1:1"] + Self.search + ["--limt", "3"]),
             try Binary.run(["--server", "http://127.0.0.1:1"] + Self.search + ["--offline"]),
             try Binary.run(["--server", "http://127.0.0.1:1"] + Self.search + ["--record", "/tmp/x", "--no-cache"]))
        }
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("--limt"))
        #expect(offline.status == 64)
        #expect(offline.stderr.hasPrefix("Error: tmdb: --offline cannot be used with --server"))
        #expect(record.status == 64)
        #expect(record.stderr.contains("--no-cache, --record cannot be used with --server"))
    }

    @Test func aTokenIsRequiredSentAndNeverShown() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-server-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokens = folder.appendingPathComponent("tokens")
        let token = "s3cret-token-\(UUID().uuidString)"
        try Data("\(token)\n".utf8).write(to: tokens)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokens.path)
        let running = try ServeCommandTests.start(["--offline", "--token-file", tokens.path])
        defer { if running.process.isRunning { running.process.terminate() } }
        let (missing, wrong, right) = try await onOwnThread {
            (try Binary.run(["--server", running.url] + Self.search),
             try Binary.run(["--server", running.url] + Self.search, environment: ["AGGREGATE_SERVER_TOKEN": "wrong-\(token)"]),
             try Binary.run(["--server", running.url] + Self.search + ["--verbose"], environment: ["AGGREGATE_SERVER_TOKEN": token]))
        }
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: the server \(running.url) requires a valid token (HTTP 401): set AGGREGATE_SERVER_TOKEN to one of the tokens of its --token-file\n")
        #expect(wrong.status == 1)
        #expect(!wrong.stderr.contains(token))
        #expect(wrong.stderr.contains("HTTP 401"))
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.contains("Batman"))
        #expect(right.stderr.contains("→ GET \(running.url)/v1/tmdb/search?"), "\(right.stderr)")
        #expect(!right.stderr.contains(token) && !right.stdout.contains(token))
    }

    @Test func failedResultsKeepTheirExitCodeAndBadServersSaySo() async throws {
        let running = try ServeCommandTests.start()
        defer { if running.process.isRunning { running.process.terminate() } }
        let (failed, failedLocal, unreachable, notServe) = try await onOwnThread {
            (try Binary.run(["--server", running.url, "tmdb", "movie", "999999999", "--format", "json", "--quiet"]),
             try Binary.run(["tmdb", "movie", "999999999", "--format", "json", "--offline", "--quiet"]),
             try Binary.run(["--server", "http://127.0.0.1:1"] + Self.search),
             try Binary.run(["--server", "\(running.url)/healthz"] + Self.search))
        }
        #expect(failed.status == failedLocal.status)
        #expect(failed.stderr == failedLocal.stderr)
        #expect(try ServeCommandTests.withoutTimings(Data(failed.stdout.utf8)) == ServeCommandTests.withoutTimings(Data(failedLocal.stdout.utf8)))
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.hasPrefix("Error: the server http://127.0.0.1:1 could not be reached"))
        #expect(unreachable.stderr.split(separator: "\n").count == 1)
        #expect(notServe.status == 1)
        #expect(notServe.stderr.hasPrefix("Error: the server \(running.url) answered HTTP 404: no route"), "\(notServe.stderr)")
        let plain = try await onOwnThread { try Binary.run(["--server", "http://192.0.2.1:8080"] + Self.search) }
        #expect(plain.status == 78)
        #expect(plain.stderr.contains("--allow-http"), "\(plain.stderr)")
    }

    @Test func anAnswerThatIsNoResultDocumentSaysTheURLIsNoServe() {
        let fetched = ProviderResult(provider: "get", operation: "get", meta: ResultMeta(source: .live), rawBodies: [Data("<html>hello</html>".utf8)])
        let html = ServerClient.outcome(fetched, unsuccessful: nil, server: "http://127.0.0.1:9", provider: "tmdb")
        guard case .failure(let error) = html else { Issue.record("read an HTML page as a result"); return }
        #expect(error.diagnosticLine == "Error: http://127.0.0.1:9 does not look like an aggregate serve: its answer (HTTP 200) is not JSON; check --server or AGGREGATE_SERVER\n")
        let other = ProviderResult(provider: "get", operation: "get", meta: ResultMeta(source: .live), rawBodies: [Data("{\"status\": \"ok\"}".utf8)])
        guard case .failure(let json) = ServerClient.outcome(other, unsuccessful: nil, server: "http://127.0.0.1:9", provider: "tmdb") else {
            Issue.record("read another JSON document as a result"); return
        }
        #expect(json.message.contains("is no aggregate result document"))
        #expect(ExitCode(for: json) == .failure)
    }
}
