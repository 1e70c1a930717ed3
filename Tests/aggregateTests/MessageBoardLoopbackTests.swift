import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateURLSession
import AggregateTestSupport
import Foundation
import KivaProvider
import MessageBoardProvider
@testable import MessageBoardSandbox
import TMDbProvider
import Testing
import TwitterProvider
@testable import aggregate

/// The message board over a real socket: the CLI's URLSession transport and fetch layer against a `SandboxServer`
/// on a loopback port, for every response case, with exit codes and messages.
@Suite struct MessageBoardLoopbackTests {
    /// A running sandbox board with its own data directory, and a CLI pointed at it through `MESSAGEBOARD_URL`.
    struct Board {
        let sandbox: LoopbackSandbox
        var server: SandboxServer { sandbox.server }
        var dataDirectory: URL { sandbox.dataDirectory }
        var harness: CLIHarness

        init(settings: [String: String] = [:], sandboxes: [any SandboxProviding.Type] = [MessageBoardSandbox.self]) throws {
            sandbox = try LoopbackSandbox(settings: settings, sandboxes: sandboxes)
            harness = CLIHarness()
            harness.environment = ["MESSAGEBOARD_URL": server.baseURL.appendingEndpoint("/messageboard").absoluteString]
        }

        var url: String { server.baseURL.appendingEndpoint("/messageboard").absoluteString }

        func run(_ arguments: [String]) async -> CLIHarness.Output { await harness.run(["messageboard"] + arguments) }

        /// The messages the board holds now, read through the client.
        func titles() async throws -> [String] {
            let output = await run(["list", "--limit", "1000", "--format", "json"])
            let items = try #require(JSONParser().parse(output.stdout)["results"]?[0]?["items"]?.array)
            return items.compactMap { $0["title"]?.string }
        }
    }

    @Test func listShowsTheBoardNewestFirst() async throws {
        let board = try Board()
        defer { board.server.stop() }
        let output = await board.run(["list", "--limit", "2"])
        #expect(output.code == .success, "stderr: \(output.stderr)")
        #expect(output.stdout == """
            "Bonjour à tous ! Le tableau marche toujours." — by Léa Moreau on 2016-02-11
            "Upgraded the board to Rails 4: the JSON now comes from jbuilder." — by Raj 🚀 on 2016-02-11

            """)
        #expect(output.stderr.isEmpty)
    }

    @Test func createdMessageIsPrintedWithIdAndLocationAndListedAfterwards() async throws {
        let board = try Board()
        defer { board.server.stop() }
        let post = await board.run(["post", "--name", "Joe", "--message", "Learning about JSON"])
        #expect(post.code == .success, "stderr: \(post.stderr)")
        let lines = post.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("Saved message 10: \"Learning about JSON\" — by Joe on ") == true)
        #expect(lines.last == "Location: \(board.url)/messages/10")
        #expect(try await board.titles().first == "Learning about JSON")
    }

    @Test func whatArrivesIsTheExactBodyAndHeaders() async throws {
        let board = try Board(sandboxes: [RecordingBoard.self])
        defer { board.server.stop() }
        var harness = board.harness
        harness.stdin = "Quotes \"here\", a tab\tand 🎉\nsecond line\n"
        let post = await harness.run(["messageboard", "post", "--name", "Zoë", "--message", "-"])
        #expect(post.code == .success, "stderr: \(post.stderr)")
        let received = try #require(RecordingBoard.requests(port: board.server.port).first)
        #expect(received.method == "POST")
        #expect(received.path == "/messages.json")
        #expect(received.headers["Accept"] == "application/json")
        #expect(received.headers["Content-Type"] == "application/json")
        let body = String(decoding: received.body, as: UTF8.self)
        let date = try #require(body.range(of: #""message_date":""#).map { String(body[$0.upperBound...].prefix(20)) })
        #expect(body == #"{"message":{"name":"Zoë","message":"Quotes \"here\", a tab\tand 🎉\nsecond line","message_date":""# + date + #""}}"#)
        #expect(date.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "UTC, seconds, Z: \(date)")
        #expect(try await board.titles().first == "Quotes \"here\", a tab\tand 🎉\nsecond line")
    }

    @Test func validationErrorsAreOneLineWithExit1() async throws {
        let board = try Board()
        defer { board.server.stop() }
        let output = await board.run(["post", "--name", String(repeating: "n", count: 51), "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: messageboard: not saved: name is too long (maximum is 50 characters) (HTTP 422)\n")
        #expect(output.stdout.isEmpty)
        #expect(try await board.titles().count == 9, "nothing saved")
    }

    @Test func aBlankMessageThatReachesTheBoardGetsItsErrorHash() async throws {
        // The CLI refuses blank messages before sending; the fetch layer alone shows how the board's answer reads.
        let board = try Board()
        defer { board.server.stop() }
        let query = Query(
            provider: "messageboard", operation: "post", parameters: JSONObject(pairs: ["name": "Joe", "message": "   "]),
            baseURL: try #require(URL(string: board.url)))
        let result = await Fetcher(transport: URLSessionTransport(), options: testFetchOptions()).run(MessageBoardProvider(), query: query)
        #expect(result.error.map(Diagnostics.line(for:)) == "Error: messageboard: not saved: message can't be blank (HTTP 422)\n")
        #expect(ExitCode(for: [result]) == .failure)
    }

    @Test func aBoardDemandingACSRFTokenIsExplained() async throws {
        let board = try Board(settings: ["messageboard.csrf": "true"])
        defer { board.server.stop() }
        let output = await board.run(["post", "--name", "Joe", "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: messageboard: not saved: the board rejected a JSON post without a CSRF token (HTTP 422 with an HTML page); it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)\n")
        #expect(board.server.requestCount == 1)
    }

    @Test func aBoardInProductionModeDemandingACSRFTokenGetsTheSameFix() async throws {
        let board = try Board(settings: ["messageboard.csrf": "production"])
        defer { board.server.stop() }
        let output = await board.run(["post", "--name", "Joe", "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasSuffix("; it must accept JSON posts without one (Rails: protect_from_forgery with: :null_session)\n"), "\(output.stderr)")
        #expect(output.stderr.contains("HTTP 422 Unprocessable Entity"))
        #expect(board.server.requestCount == 1)
    }

    @Test(arguments: [
        ("status=400; method=POST", "Error: messageboard: not saved: the board answered HTTP 400 Bad Request\n"),
        ("status=404; method=POST", "Error: messageboard: not saved: the board has no /messages.json at this address (HTTP 404): set MESSAGEBOARD_URL or --base-url to the board's root, e.g. http://localhost:3000\n"),
        ("status=500; method=POST", "Error: messageboard: the board failed while saving (HTTP 500 Internal Server Error), so the message may or may not have been saved; check with 'aggregate messageboard list'\n"),
        ("html; status=502; method=POST", "Error: messageboard: the board failed while saving (HTTP 502 with an HTML page), so the message may or may not have been saved; check with 'aggregate messageboard list'\n"),
        ("status=503; retry-after=1; method=POST", "Error: messageboard: the board failed while saving (HTTP 503 Service Unavailable), so the message may or may not have been saved; check with 'aggregate messageboard list'\n"),
    ])
    func otherStatusesAreOneLineWithTheStatusAndAreNotRetried(fault: String, line: String) async throws {
        let board = try Board()
        defer { board.server.stop() }
        board.server.addFault(try SandboxFault.parse(fault))
        let output = await board.run(["post", "--name", "Joe", "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr == line)
        #expect(board.server.requestCount == 1, "a post is sent once")
    }

    @Test func aConnectionClosedAfterThePostSaysItMayOrMayNotHaveBeenSaved() async throws {
        let board = try Board()
        defer { board.server.stop() }
        board.server.addFault(try SandboxFault.parse("close; method=POST"))
        let output = await board.run(["post", "--name", "Joe", "--message", "hi"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasPrefix("Error: messageboard: the connection failed after the request was sent ("))
        #expect(output.stderr.hasSuffix("), so the message may or may not have been saved; it was not retried. Check with 'aggregate messageboard list'.\n"))
        #expect(board.server.requestCount == 1)
        board.server.removeAllFaults()
        #expect(try await board.titles().count == 9)
    }

    @Test func aPostThatTimesOutSaysItMayOrMayNotHaveBeenSaved() async throws {
        let board = try Board()
        defer { board.server.stop() }
        board.server.addFault(try SandboxFault.parse("delay=5s; method=POST"))
        let output = await board.run(["post", "--name", "Joe", "--message", "slow", "--timeout", "0.5"])
        #expect(output.code == .failure)
        #expect(output.stderr == "Error: messageboard: no response within 0.5 s (the --timeout); the server may be slow or unreachable, so the message may or may not have been saved; it was not retried. Check with 'aggregate messageboard list'.\n")
        #expect(board.server.requestCount == 1, "never retried")
    }

    @Test func aListIsRetriedAfterA503() async throws {
        let board = try Board()
        defer { board.server.stop() }
        board.server.addFault(try SandboxFault.parse("status=503; retry-after=1; times=1; method=GET"))
        let output = await board.run(["list", "--limit", "1"])
        #expect(output.code == .success, "stderr: \(output.stderr)")
        #expect(board.server.requestCount == 2)
    }

    @Test func twentyConcurrentPostsLoseNothingAndDuplicateNothing() async throws {
        let board = try Board()
        defer { board.server.stop() }
        let outputs = await withTaskGroup(of: CLIHarness.Output.self) { group in
            for index in 1...20 {
                group.addTask { await board.run(["post", "--name", "poster \(index)", "--message", "concurrent \(index)", "--format", "json"]) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.allSatisfy { $0.code == .success })
        let ids = try outputs.map { try #require(JSONParser().parse($0.stdout)["results"]?[0]?["items"]?[0]?["id"]?.string) }
        #expect(Set(ids) == Set((10...29).map(String.init)))
        let titles = try await board.titles()
        #expect(titles.count == 29)
        #expect(titles.filter { $0.hasPrefix("concurrent ") }.sorted() == (1...20).map { "concurrent \($0)" }.sorted())
    }
}

/// The board's sandbox routes, recording each request as it arrived (per server port) before answering.
struct RecordingBoard: Provider, SandboxProviding {
    static let providerName = "messageboard"
    static let descriptor = MessageBoardProvider.descriptor
    static let sandboxEnvironment: [String: String] = [:]
    static let sandboxPaths = MessageBoardSandbox.sandboxPaths
    private static let recorded = Recorded()

    init() {}

    static func requests(port: Int) -> [SandboxRequest] { recorded.requests(host: "127.0.0.1:\(port)") }

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        recorded.append(request)
        return MessageBoardSandbox.sandboxResponse(for: request, context: context)
    }

    func plan(for query: Query, credentials: Credentials) throws -> MessageBoardProvider.Plan {
        try MessageBoardProvider().plan(for: query, credentials: credentials)
    }

    func operation(named name: String, plan: MessageBoardProvider.Plan) -> any APIOperation<MessageBoardProvider.Plan> {
        MessageBoardProvider().operation(named: name, plan: plan)
    }

    private final class Recorded: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [SandboxRequest] = []
        func append(_ request: SandboxRequest) {
            lock.lock()
            stored.append(request)
            lock.unlock()
        }
        func requests(host: String) -> [SandboxRequest] {
            lock.lock()
            defer { lock.unlock() }
            return stored.filter { $0.headers["Host"] == host }
        }
    }
}
