import AggregateJSON
import AggregateSandbox
import AggregateTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `aggregate serve` as a real process over loopback: the same documents as the command line, and a clean stop.
@Suite struct ServeCommandTests {
    /// A started `aggregate serve --offline --port 0`, its URL and its stderr.
    struct Running {
        let process: Process
        let reader: LineReader
        let url: String
    }

    static func start(_ extra: [String] = ["--offline"], environment extraEnvironment: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = ["serve", "--port", "0"] + extra
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { _, given in given }
        environment["XDG_CACHE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-serve-\(UUID().uuidString)").path
        environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-serve-config-\(UUID().uuidString)").path
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        let reader = LineReader(err.fileHandleForReading)
        let banner = try #require(reader.line(containing: "listening on", timeout: 30))
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        return Running(process: process, reader: reader, url: url)
    }

    /// A session that opens as many connections as asked (URLSession.shared keeps to 6 per host, which would queue
    /// concurrent requests in waves).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    static func get(_ url: String) async throws -> (status: Int, body: Data) {
        let (data, response) = try await session.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A result document without its timings, which differ from run to run.
    static func withoutTimings(_ data: Data) throws -> String {
        let text = String(decoding: data, as: UTF8.self)
        return text.replacing(/"elapsedMs": [0-9.]+/, with: "\"elapsedMs\": 0")
    }

    @Test func anOperationAnswersTheDocumentOfFormatJSONAndSIGTERMStopsWithZero() async throws {
        let running = try Self.start()
        defer { if running.process.isRunning { running.process.terminate() } }

        let cli = try Binary.run(["hackernews", "search", "swift", "--limit", "3", "--offline", "--format", "json"])
        #expect(cli.status == 0)
        let served = try await Self.get("\(running.url)/v1/hackernews/search?query=swift&limit=3")
        #expect(served.status == 200)
        #expect(try Self.withoutTimings(served.body) == Self.withoutTimings(Data(cli.stdout.utf8)))

        let described = try await Self.get("\(running.url)/v1/providers/hackernews")
        let describe = try Binary.run(["describe", "hackernews", "--format", "json"])
        #expect(try JSONParser().parse(described.body) == JSONParser().parse(describe.stdout))

        let unknown = try await Self.get("\(running.url)/v1/hackernews/search?qeury=swift")
        #expect(unknown.status == 400)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("did you mean 'query'?"))

        let logged = try #require(running.reader.line(containing: "\"path\":\"/v1/hackernews/search\"", timeout: 10))
        #expect(!logged.contains("swift"), "the query is not logged")

        running.process.terminate()
        #expect(running.reader.line(containing: "aggregate serve stopped", timeout: 30) != nil)
        running.process.waitUntilExit()
        #expect(running.process.terminationStatus == 0)
    }

    @Test func twentyConcurrentIdenticalRequestsSendOneUpstream() async throws {
        // The sandbox holds its answer for a while, so the twenty arrive while the first is in flight (its answers are
        // not cacheable, so a request arriving after the flight would be sent again); the count is checked, not a time.
        let sandbox = try LoopbackSandbox(faults: ["delay=3"])
        let running = try Self.start([], environment: ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github"])
        defer { if running.process.isRunning { running.process.terminate() } }
        let url = "\(running.url)/v1/github/search?query=swift&limit=3"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await Self.get(url).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(sandbox.server.requestCount == 1)
        running.process.terminate()
        running.process.waitUntilExit()
    }

    @Test func mistakesAreOneLineWithTheirExitCode() throws {
        let bind = try Binary.run(["serve", "--bind", "0.0.0.0", "--port", "0"])
        #expect(bind.status == 64)
        #expect(bind.stderr.contains("--token-file"))
        #expect(try Binary.run(["serve", "--client-budget", "lots"]).status == 64)
        #expect(try Binary.run(["serve", "--port", "70000"]).status == 64)
        let missing = try Binary.run(["serve", "--token-file", "/nonexistent/tokens"])
        #expect(missing.status == 78)
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    // MARK: - The web page, POST /v1/compare

    /// The titles of a page's result table, in order, unescaped.
    static func tableTitles(_ html: String) -> [String] {
        guard let body = html.firstRange(of: "<tbody>").map({ html[$0.upperBound...] }) else { return [] }
        let rows = String(body).components(separatedBy: "</tbody>")[0]
        return rows.matches(of: /<div class="title">(?:<a [^>]*>)?([^<]*)/).map { match in
            String(match.1).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    static func post(_ url: String, _ body: String) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func theWebPageShowsTheTitlesTheCommandLinePrintsAndPostCompareAnswersCompareJSON() async throws {
        let running = try await onOwnThread { try Self.start() }
        defer { if running.process.isRunning { running.process.terminate() } }

        let cli = try await onOwnThread { try Binary.run(["tmdb", "search", "batman", "--limit", "3", "--offline", "--format", "json"]) }
        #expect(cli.status == 0)
        let expected = try #require(JSONParser().parse(cli.stdout)["results"]?[0]?["items"]?.array).compactMap { $0["title"]?.string }
        #expect(expected.count == 3)
        let page = try await Self.get("\(running.url)/?provider=tmdb&operation=search&query=batman&limit=3")
        #expect(page.status == 200)
        #expect(Self.tableTitles(String(decoding: page.body, as: UTF8.self)) == expected)

        let mistake = try await Self.get("\(running.url)/?provider=tmdb&operation=search&query=batman&yeer=1989")
        #expect(mistake.status == 400)
        #expect(String(decoding: mistake.body, as: UTF8.self).contains("did you mean &#39;year&#39;?"))

        let compareCLI = try await onOwnThread {
            try Binary.run(["compare", "tmdb search batman", "kiva newest", "--limit", "5", "--offline", "--format", "json"])
        }
        #expect(compareCLI.status == 0)
        let compared = try await Self.post("\(running.url)/v1/compare", #"{"invocations": ["tmdb search batman", "kiva newest"], "limit": 5}"#)
        #expect(compared.status == 200)
        #expect(try Self.withoutTimings(compared.body) == Self.withoutTimings(Data(compareCLI.stdout.utf8)))

        let comparePage = try await Self.get("\(running.url)/compare?i=tmdb+search+batman&i=kiva+newest&limit=5")
        #expect(comparePage.status == 200)
        let refused = try await Self.post("\(running.url)/v1/compare", #"{"invocations": ["tmdb search batman --yeer 1989"]}"#)
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("invocation 1"))
        for invocation in ["tmdb search batman --base-url http://127.0.0.1:9/", "kiva newest --timeout=1", "tmdb search batman --profile work"] {
            let serverOwn = try await Self.post("\(running.url)/v1/compare", #"{"invocations": ["\#(invocation)"]}"#)
            #expect(serverOwn.status == 400, "\(invocation)")
            #expect(String(decoding: serverOwn.body, as: UTF8.self).contains("is the server's own"), "\(invocation)")
        }
        let withOwnOptions = try await Self.post("\(running.url)/v1/compare", #"{"invocations": ["tmdb search batman --year 1989 --limit 2"]}"#)
        #expect(withOwnOptions.status == 200)
        running.process.terminate()
        try await onOwnThread { running.process.waitUntilExit() }
    }

    @Test func getSQLAnswersTheDocumentOfSQLFormatJSON() async throws {
        let running = try await onOwnThread { try Self.start() }
        defer { if running.process.isRunning { running.process.terminate() } }
        let statement = "SELECT title, year FROM tmdb_search('batman') ORDER BY title LIMIT 3"
        let cli = try await onOwnThread { try Binary.run(["sql", statement, "--offline", "--format", "json"]) }
        #expect(cli.status == 0)
        let query = try #require(statement.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let served = try await Self.get("\(running.url)/v1/sql?q=\(query)")
        #expect(served.status == 200)
        #expect(try Self.withoutTimings(served.body) == Self.withoutTimings(Data(cli.stdout.utf8)))
        for statement in ["SELEKT", "SELECT+title+FROM+no_such_table", "ATTACH+DATABASE+%27x.db%27+AS+x"] {
            let refused = try await Self.get("\(running.url)/v1/sql?q=\(statement)")
            #expect(refused.status == 400, "\(statement)")
            #expect(String(decoding: refused.body, as: UTF8.self).split(separator: "\n").count == 1, "\(statement)")
            #expect(try JSONParser().parse(refused.body)["error"]?["kind"] == "usage", "\(statement)")
        }
        running.process.terminate()
        try await onOwnThread { running.process.waitUntilExit() }
    }
}
