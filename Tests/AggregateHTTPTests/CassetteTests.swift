import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

@Suite struct CassetteTests {
    let secret = "MARKER-SECRET-4242"
    let origin = URL(string: "https://api.example.com")!

    func folder() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cassette-\(UUID().uuidString)") }

    /// Sends `requests` through a recorder whose transport echoes the secret everywhere it can.
    func record(_ requests: [HTTPRequest], into directory: URL) async throws -> CassetteRecorder {
        let recorder = CassetteRecorder(directory: directory)
        let exchange = FetchExchange(provider: "demo", origin: origin, redactor: Redactor(secrets: [secret]))
        let chain = FetchChain([recorder.middleware], transport: FakeTransport { request in
            if request.url.path == "/drop" { throw AggregateError(.network, "the connection to api.example.com was lost") }
            return HTTPResponse(
                status: request.url.path == "/busy" ? 503 : 200,
                headers: ["Content-Type": "application/json", "X-Echo": "token \(secret)", "Set-Cookie": "session=\(secret)"],
                body: Data(#"{"echo": "\#(request.url.absoluteString)", "again": "\#(secret)"}"#.utf8), url: request.url)
        })
        for request in requests { _ = try? await chain.send(request, exchange: exchange) }
        try recorder.save()
        return recorder
    }

    func get(_ path: String, query: String = "") -> HTTPRequest {
        HTTPRequest(
            method: "GET", url: URL(string: "https://api.example.com\(path)\(query)")!, headers: ["Authorization": "Bearer \(secret)"],
            timeout: 15, maxResponseBytes: 1 << 20)
    }

    @Test func noSecretReachesTheFileInAnyPlace() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        var post = get("/search", query: "?api_key=\(secret)")
        post.method = "POST"
        post.body = Data(#"{"password": "\#(secret)", "q": "x"}"#.utf8)
        _ = try await record([get("/items", query: "?key=\(secret)&page=1"), post, get("/drop", query: "?token=\(secret)")], into: directory)
        let text = try String(contentsOf: Cassette.file(in: directory), encoding: .utf8)
        #expect(!text.contains(secret))
        #expect(!text.contains(Data(secret.utf8).base64EncodedString()))
        #expect(text.contains("Bearer ***") && text.contains("key=***") && text.contains("\"kind\": \"network\""))
    }

    /// A body that is not UTF-8 is stored as base64; the secret inside it is masked byte for byte first.
    @Test func aSecretInsideABodyThatIsNotUTF8IsMaskedToo() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = CassetteRecorder(directory: directory)
        let exchange = FetchExchange(provider: "demo", origin: origin, redactor: Redactor(secrets: [secret]))
        let binary = Data([0xFF, 0xFE, 0x00]) + Data(secret.utf8) + Data([0xC3, 0x28, 0x01])
        let chain = FetchChain([recorder.middleware], transport: FakeTransport { request in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: binary, url: request.url)
        })
        _ = try await chain.send(get("/blob"), exchange: exchange)
        try recorder.save()
        let text = try String(contentsOf: Cassette.file(in: directory), encoding: .utf8)
        #expect(text.contains("\"bodyEncoding\": \"base64\""))
        #expect(!text.contains(Data(secret.utf8).base64EncodedString()))
        guard case .response(_, _, let body) = try Cassette.load(from: directory).exchanges[0].outcome else {
            Issue.record("expected a response")
            return
        }
        // Everything around the secret is kept as it was.
        #expect(body == Data([0xFF, 0xFE, 0x00]) + Data("***".utf8) + Data([0xC3, 0x28, 0x01]))
    }

    @Test func aCassetteReadsBackAsItWasWritten() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = try await record([get("/items"), get("/busy"), get("/drop")], into: directory)
        let loaded = try Cassette.load(from: directory)
        #expect(loaded.exchanges.count == 3)
        #expect(abs(loaded.recordedAt.timeIntervalSince(recorder.recorded.recordedAt)) < 0.001)
        #expect(loaded.exchanges.map(\.request) == recorder.recorded.exchanges.map(\.request))
        #expect(loaded.exchanges.map(\.outcome) == recorder.recorded.exchanges.map(\.outcome))
        guard case .failure(let kind, let message) = loaded.exchanges[2].outcome else {
            Issue.record("the dropped connection was not recorded as a failure")
            return
        }
        #expect(kind == .network && message == "the connection to api.example.com was lost")
    }

    @Test func replayAnswersInOrderTheSameFaultsAndNamesWhatItLacks() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await record([get("/items", query: "?page=1"), get("/items", query: "?page=1"), get("/busy"), get("/drop")], into: directory)
        let replayer = try CassetteReplayer(directory: directory)
        // Another credential, or a stand-in, matches the recorded ***.
        let exchange = FetchExchange(provider: "demo", origin: origin, redactor: Redactor(secrets: ["other-credential"]))
        let chain = FetchChain([replayer.middleware], transport: FakeTransport { _ in
            Issue.record("a replay reached the transport")
            throw AggregateError(.network, "no network in a replay")
        })
        let first = try await chain.send(get("/items", query: "?page=1"), exchange: exchange)
        let second = try await chain.send(get("/items", query: "?page=1"), exchange: exchange)
        #expect(first.status == 200 && second.status == 200)
        #expect((try await chain.send(get("/busy"), exchange: exchange)).status == 503)
        await #expect(throws: AggregateError(.network, "the connection to api.example.com was lost")) {
            try await chain.send(get("/drop"), exchange: exchange)
        }
        let path = Cassette.file(in: directory).path
        await #expect(throws: AggregateError(
            .config,
            "the cassette \(path) has no recorded answer for GET https://api.example.com/items?page=1 (or no more of them): replay the same command, or record it again with --record"
        )) { try await chain.send(get("/items", query: "?page=1"), exchange: exchange) }
        await #expect(throws: AggregateError.self) { try await chain.send(get("/items", query: "?page=2"), exchange: exchange) }
    }

    @Test func bodiesMustMatch() throws {
        let request = Cassette.Request(method: "POST", url: "https://api.example.com/graphql", body: Data(#"{"q":1}"#.utf8))
        let cassette = Cassette(recordedAt: Date(), exchanges: [
            Cassette.Exchange(provider: "demo", startedAt: Date(), durationMs: 1, request: request, outcome: .response(status: 200, headers: [:], body: Data()))
        ])
        let replayer = CassetteReplayer(cassette: cassette, file: URL(fileURLWithPath: "/tmp/c.json"))
        let url = URL(string: "https://api.example.com/graphql")!
        #expect(replayer.take(method: "POST", url: url, body: Data(#"{"q":2}"#.utf8), redactor: Redactor()) == nil)
        #expect(replayer.take(method: "GET", url: url, body: Data(#"{"q":1}"#.utf8), redactor: Redactor()) == nil)
        #expect(replayer.take(method: "POST", url: url, body: Data(#"{"q":1}"#.utf8), redactor: Redactor()) != nil)
    }

    @Test(arguments: [
        ("{\"format\":", "is not valid JSON"),
        ("[]", "is not valid: the top level is not an object"),
        (#"{"format": "other"}"#, #"is not valid: "format" is not "aggregate-cassette""#),
        (#"{"format": "aggregate-cassette", "version": 2, "recordedAt": "2026-01-01T00:00:00Z", "exchanges": []}"#, "is not valid: version 2 is not one this build reads (1)"),
        (#"{"format": "aggregate-cassette", "version": 1, "recordedAt": "2026-01-01T00:00:00Z", "exchanges": [{"provider": "x", "startedAt": "2026-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://a.example/"}}]}"#,
         #"is not valid: exchange 1: it has neither "response" nor "error""#),
        (#"{"format": "aggregate-cassette", "version": 1, "recordedAt": "2026-01-01T00:00:00Z", "exchanges": [{"provider": "x", "startedAt": "2026-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://a.example/"}, "response": {"status": 200, "headers": [["A"]], "body": ""}}]}"#,
         "is not valid: exchange 1: a header is not a [name, value] pair"),
    ])
    func aCorruptCassetteIsOneClearLine(text: String, problem: String) throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: Cassette.file(in: directory))
        do {
            _ = try Cassette.load(from: directory)
            Issue.record("a corrupt cassette loaded")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message.hasPrefix("the cassette \(Cassette.file(in: directory).path) \(problem)"), "\(error.message)")
            #expect(error.message.hasSuffix("; record it again with --record") && !error.message.contains("\n"))
        }
    }

    @Test func aBodyThatIsNotUTF8TravelsAsBase64() throws {
        let bytes = Data([0xFF, 0xFE, 0x00, 0x41])
        let cassette = Cassette(recordedAt: Date(timeIntervalSince1970: 0), exchanges: [
            Cassette.Exchange(
                provider: "demo", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
                request: Cassette.Request(method: "GET", url: "https://a.example/"), outcome: .response(status: 200, headers: [:], body: bytes))
        ])
        #expect(cassette.jsonValue["exchanges"]?[0]?["response"]?["bodyEncoding"] == "base64")
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try cassette.save(to: directory)
        #expect(try Cassette.load(from: directory) == cassette)
    }

    /// A recording killed while it wrote the cassette left a partial copy beside it that nothing removed; the
    /// copy and the cassette were made under the umask (0644). Now both are 0600 from their creation and the next
    /// save removes what a gone writer left (a live writer's temporary and other files stay).
    @Test func savingIsPrivateAndRemovesWhatAKilledRecordingLeft() throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let abandoned = ".cassette.json.\(process.processIdentifier).0000000000c0ffee.tmp"
        let live = ".cassette.json.\(getpid()).00000000000000aa.tmp"
        for name in [abandoned, live, "notes.txt"] {
            try Data("{\"format\"".utf8).write(to: directory.appendingPathComponent(name))
        }
        try Cassette(recordedAt: Date(timeIntervalSince1970: 0)).save(to: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == [live, "cassette.json", "notes.txt"].sorted())
        let mode = try FileManager.default.attributesOfItem(atPath: Cassette.file(in: directory).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// The cassette the recorder writes validates against Schemas/cassette.schema.json with a real validator
    /// (Python's jsonschema, as CI's .ci/cassettes.sh uses; skipped where it is not installed).
    @Test(.requires(OptionalTool.jsonschema))
    func writtenCassettesValidateAgainstTheSchema() async throws {
        let python = try #require(OptionalTool.jsonschema.path)
        let directory = folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await record([get("/items"), get("/busy"), get("/drop")], into: directory)
        let schema = TestPaths.packageRoot.appendingPathComponent("Schemas/cassette.schema.json").path
        let problems = try JSONSchemaValidator.problems(python: python, schema: schema, files: [Cassette.file(in: directory).path], checkFormats: true)
        #expect(problems == nil, "\(problems ?? "")")
    }

}
