#if os(Linux)
import AggregateCore
import AggregateCurl
import AggregateHTTP
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import AggregateURLSession
import Foundation
import Testing

/// Echoes each request back as JSON (method, header fields, body), so a test can see what a transport sent.
struct EchoServer: SandboxProviding {
    static let providerName = "echo"
    static var sandboxEnvironment: [String: String] { [:] }

    static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        let headers = request.headers.map { JSONValue.array([.string($0.name.lowercased()), .string($0.value)]) }
        return .json(.object([
            "method": .string(request.method), "path": .string(request.path), "headers": .array(headers),
            "body": .string(String(decoding: request.body, as: UTF8.self)),
        ]))
    }
}

/// The provider the echo's sandbox stands for (the catalog pairs each emulator with one).
private struct EchoProvider: Provider {
    static let descriptor = ProviderDescriptor(
        name: "echo", displayName: "Echo", summary: "Echoes requests.", docsURL: "https://example.invalid",
        defaultBaseURL: "https://echo.example", auth: [], authStyle: "none", paginationStyle: "none",
        operations: [ProviderOperation(name: "echo", summary: "Echo.", itemKind: "record")], examples: [])
    func operation(named name: String, plan: Void) -> any APIOperation<Void> { NoItemsOperation() }
}

/// A loopback sandbox that serves only the echo, with `faults` (the sandbox's own: delay, size, close, redirect).
final class EchoLoopback: Sendable {
    let server: SandboxServer

    init(faults: [String] = []) throws {
        let registry = try ProviderRegistry(providers: [EchoProvider()])
        var configuration = SandboxServerConfiguration(host: "127.0.0.1", port: 0, log: { _ in })
        configuration.faults = try faults.map(SandboxFault.parse)
        server = SandboxServer(catalog: try SandboxCatalog(registry, sandboxes: [SandboxOfType(EchoServer.self)]), configuration: configuration)
        _ = try server.start()
    }

    deinit { server.stop() }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)/echo\(path)")! }
}

/// The executable's libcurl transport over a real loopback server, side by side with the URLSession transport it
/// stands in for: the same requests on the wire, the same answers and the same one-line errors.
@Suite struct CurlTransportTests {
    /// What the server saw: the header fields (names lower-case, sorted), the method and the body.
    static func echoed(_ response: HTTPResponse) throws -> (method: String, headers: [String], body: String) {
        let value = try JSONParser().parse(response.body)
        let headers = (value["headers"]?.array ?? []).compactMap { field -> String? in
            guard let pair = field.array, pair.count == 2, let name = pair[0].string, let text = pair[1].string else { return nil }
            return "\(name): \(text)"
        }
        return (value["method"]?.string ?? "", headers.sorted(), value["body"]?.string ?? "")
    }

    static func failure(_ transport: any HTTPTransport, _ request: HTTPRequest) async -> AggregateError? {
        do {
            _ = try await transport.send(request)
            return nil
        } catch {
            return error as? AggregateError
        }
    }

    @Test(arguments: ["GET", "POST", "PUT", "DELETE"])
    func sendsWhatURLSessionSends(method: String) async throws {
        let loopback = try EchoLoopback()
        var request = HTTPRequest(method: method, url: loopback.url("/items?q=a%20b"), headers: ["Authorization": "Bearer t0ken", "X-Empty": ""])
        if method != "GET" {
            request.body = Data(#"{"title":"hello"}"#.utf8)
            request.headers.add("Content-Type", "application/json")
        }
        let curl = try await CurlTransport().send(request)
        let session = try await URLSessionTransport().send(request)
        #expect(curl.status == 200)
        let (curlMethod, curlHeaders, curlBody) = try Self.echoed(curl)
        let (sessionMethod, sessionHeaders, sessionBody) = try Self.echoed(session)
        #expect(curlMethod == sessionMethod)
        #expect(curlBody == sessionBody)
        #expect(curlHeaders == sessionHeaders)
        #expect(curlHeaders.contains("user-agent: aggregate/\(AggregateVersion.current)"))
        #expect(curlHeaders.contains("accept: application/json"))
        #expect(curl.url == request.url)
        #expect(curl.headers["Content-Type"] == session.headers["Content-Type"])
    }

    @Test func theCallersHeadersWinOverTheDefaults() async throws {
        let loopback = try EchoLoopback()
        let request = HTTPRequest(method: "GET", url: loopback.url("/"), headers: ["User-Agent": "mine/1", "Accept": "text/plain"])
        let (_, headers, _) = try Self.echoed(try await CurlTransport().send(request))
        #expect(headers.contains("user-agent: mine/1"))
        #expect(headers.contains("accept: text/plain"))
        #expect(!headers.contains { $0.hasPrefix("user-agent: aggregate") })
    }

    @Test func aRedirectIsReturnedNotFollowed() async throws {
        let loopback = try EchoLoopback(faults: ["path=/echo/moved; redirect=/echo/there"])
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: loopback.url("/moved")))
        #expect(response.status == 302)
        #expect(response.headers["Location"]?.hasSuffix("/echo/there") == true)
        #expect(loopback.server.requestCount == 1)
    }

    @Test func aBodyOverTheCapIsRefusedAsURLSessionRefusesIt() async throws {
        let loopback = try EchoLoopback(faults: ["path=/echo/big; size=3MiB"])
        let request = HTTPRequest(method: "GET", url: loopback.url("/big"), maxResponseBytes: 1 << 20)
        let curl = await Self.failure(CurlTransport(), request)
        let session = await Self.failure(URLSessionTransport(), request)
        #expect(curl?.kind == .tooLarge)
        #expect(curl?.message == session?.message)
        // Under the cap, the same bytes arrive whole.
        let whole = try await CurlTransport().send(HTTPRequest(method: "GET", url: loopback.url("/big"), maxResponseBytes: 4 << 20))
        #expect(whole.body.count == 3 << 20)
        #expect(whole.body == (try await URLSessionTransport().send(HTTPRequest(method: "GET", url: loopback.url("/big")))).body)
    }

    @Test func aRefusedConnectionReadsAsURLSessionsDoes() async throws {
        let loopback = try EchoLoopback()
        let url = loopback.url("/")
        loopback.server.stop()
        let curl = await Self.failure(CurlTransport(), HTTPRequest(method: "GET", url: url))
        let session = await Self.failure(URLSessionTransport(), HTTPRequest(method: "GET", url: url))
        #expect(curl?.message == "cannot connect to 127.0.0.1:\(url.port ?? 0): connection refused")
        #expect(curl?.message == session?.message)
        #expect(curl?.kind == .network)
    }

    @Test func aConnectionClosedWithoutAnAnswerReadsAsURLSessionsDoes() async throws {
        let loopback = try EchoLoopback(faults: ["path=/echo/gone; close"])
        let request = HTTPRequest(method: "GET", url: loopback.url("/gone"))
        let curl = await Self.failure(CurlTransport(), request)
        let session = await Self.failure(URLSessionTransport(), request)
        #expect(curl?.message == session?.message)
        #expect(curl?.message.contains("127.0.0.1") == true)
    }

    @Test func theFetchersDeadlineEndsASlowExchange() async throws {
        let loopback = try EchoLoopback(faults: ["path=/echo/slow; delay=5s"])
        var options = FetchOptions(timeout: 0.5)
        options.allowHTTP = true
        options.sleep = { _ in }
        do {
            _ = try await Fetcher(transport: CurlTransport(), options: options).fetchDocument(loopback.url("/slow"))
            Issue.record("a 5 s answer arrived within a 0.5 s timeout")
        } catch {
            #expect(error.kind == .timeout)
        }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        // Not cancelled, the 8 s answer would arrive and be a response; cancelled, libcurl's progress callback stops it.
        let loopback = try EchoLoopback(faults: ["path=/echo/slow; delay=8s"])
        let task = Task { try await CurlTransport().send(HTTPRequest(method: "GET", url: loopback.url("/slow"))) }
        try await Task.sleep(nanoseconds: 300_000_000)
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("a cancelled transfer returned a response")
            return
        }
        #expect((error as? AggregateError)?.message.contains("was cancelled") == true)
    }

    @Test func connectionsAreReusedAcrossRequests() async throws {
        let loopback = try EchoLoopback()
        let transport = CurlTransport()
        for _ in 0..<3 {
            #expect(try await transport.send(HTTPRequest(method: "GET", url: loopback.url("/"))).status == 200)
        }
        let concurrent = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try await transport.send(HTTPRequest(method: "GET", url: loopback.url("/"))).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(concurrent == Array(repeating: 200, count: 6))
    }

    @Test func aMissingLibcurlIsOneLineNamingThePackage() {
        let error = CurlTransport.missingLibraryError("libcurl.so.4: cannot open shared object file: No such file or directory")
        #expect(error.kind == .config)
        #expect(error.message.contains("install the libcurl4 package"))
        #expect(!error.message.contains("\n"))
    }
}

/// A run that sends nothing never maps libcurl (or the TLS library behind it); a live run does, on its first request.
@Suite struct NetworkingLoadsOnDemandTests {
    /// The shared objects the dynamic loader opened for `arguments`, from its own log (`LD_DEBUG=libs`).
    static func loadedLibraries(_ arguments: [String], environment: [String: String] = [:]) throws -> (output: Binary.Output, libraries: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ld-debug-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = environment
        environment["LD_DEBUG"] = "libs"
        // The loader's log goes to files (one per process), not into the output the test reads.
        environment["LD_DEBUG_OUTPUT"] = folder.appendingPathComponent("ld").path
        let output = try Binary.run(arguments, environment: environment)
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let text = try logs.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined()
        return (output, text)
    }

    @Test(arguments: [["--version"], ["tmdb", "popular", "--offline", "--limit", "1"], ["providers"]])
    func aRunThatSendsNothingLoadsNoNetworking(arguments: [String]) throws {
        let (output, libraries) = try Self.loadedLibraries(arguments)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(libraries.contains("libc.so"), "the loader's log was read")
        #expect(!libraries.contains("libcurl"))
        #expect(!libraries.contains("libssl"))
        #expect(!libraries.contains("libFoundationNetworking"))
    }

    @Test func aLiveRunLoadsLibcurlForItsFirstRequest() throws {
        let loopback = try EchoLoopback()
        let (output, libraries) = try Self.loadedLibraries(["get", loopback.url("/").absoluteString])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("\"method\""))
        #expect(libraries.contains("libcurl.so.4"))
    }
}
#endif
