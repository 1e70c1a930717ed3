import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// The message board through the real command line: offline store, standard input, usage and config errors.
@Suite struct MessageBoardCLITests {
    @Test func postOfflineThenListOfflineShowsTheNewMessageFirst() async throws {
        let harness = CLIHarness()
        let post = await harness.run(["messageboard", "post", "--offline", "--name", "Joe", "--message", "Learning about JSON 🎓"])
        #expect(post.code == .success, "stderr: \(post.stderr)")
        #expect(post.stdout.hasPrefix("Saved message 10: \"Learning about JSON 🎓\" — by Joe on "))
        #expect(post.stdout.contains("Location: http://sandbox.localhost/messageboard/messages/10\n"))

        let list = await harness.run(["messageboard", "list", "--offline", "--limit", "2"])
        #expect(list.code == .success)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("\"Learning about JSON 🎓\" — by Joe on ") == true)

        let stored = harness.dataDirectory.appendingPathComponent("messageboard-messages.json")
        #expect(FileManager.default.fileExists(atPath: stored.path), "--offline writes to the sandbox data directory")
    }

    @Test func messageDashReadsMultiLineUTF8FromStandardInput() async throws {
        var harness = CLIHarness()
        harness.stdin = "Grüße aus Köln 🍺\nzweite Zeile\n"
        let post = await harness.run(["messageboard", "post", "--offline", "--name", "Jörg", "--message", "-", "--format", "json"])
        #expect(post.code == .success, "stderr: \(post.stderr)")
        let item = try #require(JSONParser().parse(post.stdout)["results"]?[0]?["items"]?[0])
        #expect(item["title"] == "Grüße aus Köln 🍺\nzweite Zeile")
        #expect(item["author"] == "Jörg")
        #expect(item["extra"]?["location"] == "http://sandbox.localhost/messageboard/messages/10")
    }

    @Test(arguments: [
        (["--name", "   ", "--message", "hi"], nil as String?, "Error: messageboard: --name must not be empty\n"),
        (["--name", "Joe", "--message", ""], nil, "Error: messageboard: --message must not be empty\n"),
        (["--name", "Joe", "--message", " \t\n "], nil, "Error: messageboard: --message must not be empty\n"),
        (["--name", "Joe", "--message", "-"], "  \n\n", "Error: messageboard: --message must not be empty\n"),
        (["--name", "Joe"], nil, "Error: messageboard: missing --message <TEXT> for 'messageboard post'\n"),
    ])
    func blankNameOrMessageIsAUsageErrorBeforeAnyRequest(arguments: [String], stdin: String?, line: String) async {
        let requests = RequestLog()
        var harness = CLIHarness()
        harness.environment = ["MESSAGEBOARD_URL": "http://127.0.0.1:9"]
        harness.stdin = stdin
        harness.makeTransport = { FakeTransport { request in requests.append(request); return HTTPResponse(status: 201) } }
        let output = await harness.run(["messageboard", "post"] + arguments)
        #expect(output.code == .usage)
        #expect(output.stderr.hasPrefix(line))
        #expect(requests.requests.isEmpty)
        #expect(output.stdout.isEmpty)
    }

    @Test(arguments: [["messageboard", "list"], ["messageboard", "post", "--name", "Joe", "--message", "hi"]])
    func withoutAnAddressItExits78NamingTheVariable(arguments: [String]) async {
        let harness = CLIHarness()
        let output = await harness.run(arguments)
        #expect(output.code == .config)
        #expect(output.stderr == "Error: messageboard: no server address: set MESSAGEBOARD_URL or AGGREGATE_MESSAGEBOARD_BASE_URL, pass --base-url URL, or use --offline\n")
    }

    @Test func theAddressComesFromMessageboardURLOrBaseURL() async throws {
        let requests = RequestLog()
        var harness = CLIHarness()
        harness.environment = ["MESSAGEBOARD_URL": "http://localhost:3000"]
        harness.makeTransport = { FakeTransport { request in requests.append(request); return HTTPResponse(status: 200, body: Data("[]".utf8)) } }
        _ = await harness.run(["messageboard", "list"])
        _ = await harness.run(["messageboard", "list", "--base-url", "http://127.0.0.1:4000/board"])
        #expect(requests.requests.map(\.url.absoluteString) == ["http://localhost:3000/messages.json", "http://127.0.0.1:4000/board/messages.json"])
    }

    @Test func aValidationErrorIsOneLineWithExit1() async {
        var harness = CLIHarness()
        harness.environment = ["MESSAGEBOARD_URL": "http://localhost:3000"]
        harness.makeTransport = {
            FakeTransport { request in
                HTTPResponse(status: 422, headers: ["Content-Type": "application/json; charset=utf-8"], body: Data(#"{"message":["can't be blank"]}"#.utf8), url: request.url)
            }
        }
        let output = await harness.run(["messageboard", "post", "--name", "Joe", "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: messageboard: not saved: message can't be blank (HTTP 422)\n")
        #expect(output.stdout.isEmpty)
    }

    @Test func aCorruptOfflineStoreFailsClearlyAndIsKept() async throws {
        let harness = CLIHarness()
        try FileManager.default.createDirectory(at: harness.dataDirectory, withIntermediateDirectories: true)
        let file = harness.dataDirectory.appendingPathComponent("messageboard-messages.json")
        try Data("[{\"id\": 1, \"name\": \"trunc".utf8).write(to: file)
        let post = await harness.run(["messageboard", "post", "--offline", "--name", "Joe", "--message", "hi"])
        #expect(post.code == .failure)
        #expect(post.stderr.contains("Error: messageboard: the board failed while saving (HTTP 500 Internal Server Error: the sandbox store \(file.path) is corrupt"))
        let list = await harness.run(["messageboard", "list", "--offline"])
        #expect(list.code == .failure)
        #expect(list.stderr.contains("repair or remove it"))
        #expect(try Data(contentsOf: file) == Data("[{\"id\": 1, \"name\": \"trunc".utf8))
    }

    @Test func describeDocumentsBothOperations() async {
        let output = await CLIHarness().run(["describe", "messageboard"])
        #expect(output.code == .success)
        for expected in [
            "list (default)", "post —", "--name <NAME>", "--message <TEXT>", "standard input", "MESSAGEBOARD_URL",
            "aggregate messageboard list --offline",
        ] {
            #expect(output.stdout.contains(expected), "describe mentions \(expected)")
        }
        let json = await CLIHarness().run(["describe", "messageboard", "--format", "json"])
        #expect(json.stdout.contains("\"writes\": true"))
    }
}
