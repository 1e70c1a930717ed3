import AggregateCore
import AggregateHTTP
import AggregateJSON
@testable import AggregateServe
import Foundation
import Testing

/// A backend with one provider, `demo`, whose `echo` operation answers its parameters and reports one upstream request.
private struct EchoBackend: ServeBackend {
    let providerNames = ["demo"]
    let secrets = ["demo-secret-credential"]

    func providersDocument() -> JSONValue { [["name": "demo"]] }

    func descriptorDocument(provider: String) -> JSONValue? { provider == "demo" ? ["name": "demo"] : nil }

    func run(_ call: ServeCall, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer {
        // `slow` never answers in time for the time-cap test (the sleep ends early when the task is cancelled).
        if call.operation == "slow" { try? await Task.sleep(nanoseconds: 30_000_000_000) }
        events(FetchEvent(provider: call.provider, kind: .request(method: "GET", url: "https://demo.invalid/?key=demo-secret-credential", attempt: 1)))
        events(FetchEvent(provider: call.provider, kind: .cache("miss: nothing stored for GET https://demo.invalid/")))
        let parameters = JSONValue.object(JSONObject(call.parameters.map { JSONObject.Member($0.name, .string($0.value)) }))
        return ServeAnswer(status: 200, contentType: call.format.contentType, body: JSONWriter().data(["operation": .string(call.operation), "parameters": parameters]))
    }
}

/// A collected access log.
private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// `base` with a path and query appended.
private func at(_ base: URL, _ pathAndQuery: String) throws -> URL { try #require(URL(string: base.absoluteString + pathAndQuery)) }

private func startServer(_ change: (inout ServeConfiguration) -> Void = { _ in }) throws -> (ServeServer, URL, LogLines) {
    var configuration = ServeConfiguration()
    configuration.port = 0
    // The backend's task runs on Swift's cooperative pool, which the whole test run shares (two threads here) and
    // long synchronous tests can hold for minutes: the cap here is about the pool, not about what is tested.
    configuration.requestTimeout = 900
    let log = LogLines()
    configuration.log = { log.add($0) }
    change(&configuration)
    let server = try ServeServer(backend: EchoBackend(), configuration: configuration)
    let port = try server.start()
    return (server, try #require(URL(string: "http://127.0.0.1:\(port)")), log)
}

@Suite struct ServeRoutesTests {
    @Test func aRequestPastTheTimeCapGets504() async throws {
        let (server, base, _) = try startServer { $0.requestTimeout = 0.5 }
        defer { server.stop() }
        let answer = try #require(await loopbackGET(try at(base, "/v1/demo/slow")))
        #expect(answer.status == 504)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("request time cap"))
    }

    @Test func routesAnswerAndUnknownOnesAre404() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        #expect(await loopbackGET(base.appendingPathComponent("healthz"))?.status == 200)
        #expect(await loopbackGET(base.appendingPathComponent("v1/providers"))?.status == 200)
        #expect(await loopbackGET(base.appendingPathComponent("v1/providers/demo"))?.status == 200)
        let unknown = try #require(await loopbackGET(base.appendingPathComponent("v1/providers/dmeo")))
        #expect(unknown.status == 404)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("did you mean 'demo'?"))
        #expect(await loopbackGET(base.appendingPathComponent("nowhere"))?.status == 404)
        let badFormat = try #require(await loopbackGET(try at(base, "/v1/demo/echo?format=xml")))
        #expect(badFormat.status == 400)
    }

    @Test func theOpenAPIDocumentNamesEveryRouteAndProvider() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let answer = try #require(await loopbackGET(base.appendingPathComponent("openapi.json")))
        #expect(answer.status == 200)
        let document = try JSONParser().parse(answer.body)
        #expect(document["openapi"] == "3.1.0")
        for path in ["/healthz", "/metrics", "/openapi.json", "/v1/providers", "/v1/providers/{provider}", "/v1/{provider}/{operation}"] {
            #expect(document["paths"]?[path] != nil, "\(path)")
        }
        #expect(document["paths"]?["/v1/{provider}/{operation}"]?["get"]?["parameters"]?[0]?["schema"]?["enum"] == ["demo"])
    }

    @Test func anOperationGetsItsDecodedParametersAndFormat() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let answer = try #require(await loopbackGET(try at(base, "/v1/demo/echo?q=a%20b+c&limit=3&format=ndjson")))
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "application/x-ndjson; charset=utf-8")
        let document = try JSONParser().parse(answer.body)
        #expect(document["parameters"]?["q"] == "a b c")
        #expect(document["parameters"]?["limit"] == "3")
        #expect(document["parameters"]?["format"] == nil)
    }

    @Test func metricsCountRoutesUpstreamRequestsAndTheCache() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        _ = await loopbackGET(try at(base, "/v1/demo/echo?q=1"))
        _ = await loopbackGET(base.appendingPathComponent("nowhere"))
        let metrics = try #require(await loopbackGET(base.appendingPathComponent("metrics")))
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"aggregate_serve_requests_total{route="/v1/{provider}/{operation}",status="200"} 1"#))
        #expect(text.contains(#"aggregate_serve_requests_total{route="(unknown)",status="404"} 1"#))
        #expect(text.contains(#"aggregate_serve_upstream_requests_total{provider="demo"} 1"#))
        #expect(text.contains(#"aggregate_serve_cache_total{result="miss"} 1"#))
        #expect(text.contains(#"aggregate_serve_request_duration_seconds_bucket{le="+Inf"} 2"#))
        #expect(!text.contains("demo-secret-credential"))
    }

    @Test func theAccessLogIsOneJSONLinePerRequestWithoutQueriesOrSecrets() async throws {
        let (server, base, log) = try startServer { $0.tokens = ["token-abcdefghijklmnop"] }
        _ = await loopbackGET(try at(base, "/v1/demo/echo?q=demo-secret-credential"), headers: ["Authorization": "Bearer token-abcdefghijklmnop"])
        server.stop()
        let lines = log.all
        #expect(lines.count == 1)
        let line = try JSONParser().parse(Data(try #require(lines.first).utf8))
        #expect(line["path"] == "/v1/demo/echo")
        #expect(line["status"] == 200)
        #expect(line["provider"] == "demo")
        #expect(!lines.joined().contains("demo-secret-credential") && !lines.joined().contains("token-abcdefghijklmnop"))
    }

    @Test func aTokenIsRequiredWhenConfigured() async throws {
        let (server, base, _) = try startServer { $0.tokens = ["first-token-0123456789", "second-token-0123456789"] }
        defer { server.stop() }
        let missing = try #require(await loopbackGET(base.appendingPathComponent("healthz")))
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(await loopbackGET(base.appendingPathComponent("healthz"), headers: ["Authorization": "Bearer wrong-token-0123456789"])?.status == 401)
        #expect(await loopbackGET(base.appendingPathComponent("healthz"), headers: ["Authorization": "Bearer second-token-0123456789"])?.status == 200)
    }

    @Test func aNonLoopbackBindNeedsATokenFile() throws {
        var configuration = ServeConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: AggregateError.self) { try ServeServer(backend: EchoBackend(), configuration: configuration) }
        configuration.tokens = ["a-token-of-enough-length"]
        _ = try ServeServer(backend: EchoBackend(), configuration: configuration)
    }

    @Test func aClientPastItsBudgetGets429WithRetryAfter() async throws {
        let (server, base, _) = try startServer { $0.clientBudget = (requests: 2, window: 3600) }
        defer { server.stop() }
        #expect(await loopbackGET(base.appendingPathComponent("healthz"))?.status == 200)
        #expect(await loopbackGET(base.appendingPathComponent("healthz"))?.status == 200)
        let refused = try #require(await loopbackGET(base.appendingPathComponent("healthz")))
        #expect(refused.status == 429)
        #expect(Int(refused.headers["retry-after"] ?? "") ?? 0 > 0)
    }

    @Test func budgetsParse() {
        #expect(ServeConfiguration.parseBudget("30/min")?.window == 60)
        #expect(ServeConfiguration.parseBudget("5/2s")?.window == 2)
        #expect(ServeConfiguration.parseBudget("1000/hour")?.requests == 1000)
        #expect(ServeConfiguration.parseBudget("0/min") == nil)
        #expect(ServeConfiguration.parseBudget("ten/min") == nil)
    }
}
