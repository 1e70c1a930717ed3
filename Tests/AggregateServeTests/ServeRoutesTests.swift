import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateRendering
@testable import AggregateServe
import Foundation
import Testing

/// A backend with one provider, `demo`, whose `echo` operation answers its parameters and reports one upstream request.
private struct EchoBackend: ServeBackend {
    let providerNames = ["demo"]
    let secrets = ["demo-secret-credential"]

    func providersDocument() -> JSONValue { [["name": "demo"]] }

    func descriptorDocument(provider: String) -> JSONValue? { provider == "demo" ? ["name": "demo"] : nil }

    static let descriptor = ProviderDescriptor(
        name: "demo", displayName: "Demo", summary: "A made-up provider.", docsURL: "https://demo.invalid/docs",
        defaultBaseURL: "https://demo.invalid", auth: [], authStyle: "none", paginationStyle: "none",
        operations: [
            ProviderOperation(
                name: "echo", summary: "Answers its query as titles.", itemKind: "word",
                parameters: [
                    Parameter("query", style: .positional, required: true, valueName: "WORDS", help: "The words to answer."),
                    Parameter("count", type: .integer(1...100), help: "How many copies."),
                ]),
            ProviderOperation(name: "erase", summary: "Writes.", itemKind: "word", writes: true),
        ],
        examples: [])

    var descriptors: [ProviderDescriptor] { [Self.descriptor] }

    /// The page's command line, parsed by hand: the query's words become items, `<script>` included.
    func result(_ arguments: [String], events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> ProviderResult {
        guard arguments.count >= 2, arguments[1] != "erase" else { throw AggregateError(.usage, "demo erase writes; serve answers only operations that read") }
        let words = (arguments.split(separator: "--").last.map(Array.init) ?? []).joined(separator: " ").split(separator: " ")
        let items = words.enumerated().map { index, word in
            Item(provider: "demo", kind: "word", id: String(index), title: String(word), url: "https://demo.invalid/\(index)")
        }
        if words.contains("fail") {
            return ProviderResult(provider: "demo", operation: "echo", error: AggregateError(.http, "the API answered 500"), meta: ResultMeta(source: .live))
        }
        return ProviderResult(provider: "demo", operation: "echo", items: items, meta: ResultMeta(source: .live, requests: 1, pages: 1))
    }

    func compare(_ invocations: [String], limit: Int?, events: @escaping @Sendable (FetchEvent) -> Void) async throws(AggregateError) -> [ComparisonRow] {
        var rows: [ComparisonRow] = []
        for (index, text) in invocations.enumerated() {
            let words = text.split(separator: " ").map(String.init)
            guard words.first == "demo", words.count > 2 else {
                throw AggregateError(.usage, "invocation \(index + 1) ('\(text)'): not a demo echo")
            }
            let result = try await self.result(Array(words.prefix(2)) + ["--"] + words.dropFirst(2).prefix(limit ?? 20), events: events)
            rows.append(ComparisonRow(invocation: text, result: result, descriptor: Self.descriptor))
        }
        return rows
    }

    func sql(_ statement: String, events: @escaping @Sendable (FetchEvent) -> Void) async -> ServeAnswer {
        guard statement.hasPrefix("SELECT") else { return ServeAnswer.error(400, kind: "usage", "not a SELECT") }
        return ServeAnswer(status: 200, contentType: ServeFormat.json.contentType, body: JSONWriter().data(["statement": .string(statement)]))
    }

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
        for path in ["/healthz", "/metrics", "/openapi.json", "/v1/providers", "/v1/providers/{provider}", "/v1/{provider}/{operation}", "/v1/compare", "/v1/sql"] {
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

    // MARK: - The web page

    @Test func theQueryPageRendersTheFormAndTheResultTableWithItsPolicy() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let empty = try #require(await loopbackGET(base))
        #expect(empty.status == 200)
        #expect(empty.headers["content-type"] == "text/html; charset=utf-8")
        #expect(empty.headers["content-security-policy"] == WebPage.contentSecurityPolicy)
        #expect(empty.headers["x-content-type-options"] == "nosniff")
        let form = String(decoding: empty.body, as: UTF8.self)
        #expect(form.contains("<form id=\"query-form\""))
        #expect(!form.contains("id=\"results-title\""))

        let ran = try #require(await loopbackGET(try at(base, "/?provider=demo&operation=echo&query=alpha+%3Cscript%3E+gamma&limit=5")))
        #expect(ran.status == 200)
        #expect(ran.headers["content-security-policy"] == WebPage.contentSecurityPolicy)
        let page = String(decoding: ran.body, as: UTF8.self)
        #expect(page.contains("id=\"results-title\""))
        for title in ["alpha", "gamma"] { #expect(page.contains(">\(title)</a>"), "\(title)") }
        #expect(page.contains("&lt;script&gt;") && !page.contains("<script>alert"))

        // "Choose" (no JavaScript) only switches the form: nothing runs.
        let chosen = try #require(await loopbackGET(try at(base, "/?provider=demo&operation=echo&query=alpha&choose=1")))
        #expect(chosen.status == 200)
        #expect(!String(decoding: chosen.body, as: UTF8.self).contains("id=\"results-title\""))
    }

    @Test func aQueryPageWithAMistakeIs400WithItsLineAndAFailedRunShowsItsOutcome() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let misspelt = try #require(await loopbackGET(try at(base, "/?provider=dmeo&operation=echo&query=x")))
        #expect(misspelt.status == 400)
        #expect(misspelt.headers["content-type"] == "text/html; charset=utf-8")
        #expect(String(decoding: misspelt.body, as: UTF8.self).contains("unknown provider &#39;dmeo&#39;; did you mean &#39;demo&#39;?")
            || String(decoding: misspelt.body, as: UTF8.self).contains("did you mean"))
        let badLimit = try #require(await loopbackGET(try at(base, "/?provider=demo&operation=echo&query=x&limit=0")))
        #expect(badLimit.status == 400)
        #expect(String(decoding: badLimit.body, as: UTF8.self).contains("--limit must be a whole number from 1 to 10000"))
        let writes = try #require(await loopbackGET(try at(base, "/?provider=demo&operation=erase")))
        #expect(writes.status == 400)
        #expect(String(decoding: writes.body, as: UTF8.self).contains("serve answers only operations that read"))
        let failed = try #require(await loopbackGET(try at(base, "/?provider=demo&operation=echo&query=fail")))
        #expect(failed.status == 502)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("the API answered 500"))
    }

    @Test func theCompareViewRunsItsInvocationsAndRefusesMistakes() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let empty = try #require(await loopbackGET(base.appendingPathComponent("compare")))
        #expect(empty.status == 200)
        #expect(empty.headers["content-security-policy"] == WebPage.contentSecurityPolicy)
        #expect(String(decoding: empty.body, as: UTF8.self).contains("<form id=\"compare-form\""))
        let ran = try #require(await loopbackGET(try at(base, "/compare?i=demo+echo+one+two&i=demo+echo+three&limit=5")))
        #expect(ran.status == 200)
        let page = String(decoding: ran.body, as: UTF8.self)
        for word in ["demo echo one two", "demo echo three"] { #expect(page.contains(word), "\(word)") }
        let unknown = try #require(await loopbackGET(try at(base, "/compare?i=dmeo+echo+x")))
        #expect(unknown.status == 400)
        let refused = try #require(await loopbackGET(try at(base, "/compare?i=demo+nothing")))
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("not a demo echo"))
    }

    // MARK: - POST /v1/compare

    @Test func postCompareAnswersTheCompareDocumentAndRefusesBadBodiesInOneLine() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let url = base.appendingPathComponent("v1/compare")
        let ok = try #require(await loopbackPOST(url, #"{"invocations": ["demo echo a b", "demo echo c"], "limit": 1}"#))
        #expect(ok.status == 200)
        let document = try JSONParser().parse(ok.body)
        #expect(document["comparison"]?["invocations"]?[0]?["invocation"] == "demo echo a b")
        #expect(document["results"]?[0]?["items"]?[0]?["title"] == "a")
        #expect(document["results"]?[0]?["items"]?[1] == nil, "the limit applies")

        for (body, words) in [
            ("not json", "must be a JSON object"), (#"{"invocations": []}"#, "at least one"), (#"{"invocations": ["demo echo a"], "limt": 2}"#, "unknown member 'limt'"),
            (#"{"invocations": [3]}"#, "non-empty string"), (#"{"invocations": ["demo echo a"], "limit": 0}"#, "from 1 to 10000"),
            (#"{"invocations": ["dmeo echo a"]}"#, "not a demo echo"),
        ] {
            let refused = try #require(await loopbackPOST(url, body))
            #expect(refused.status == 400, "\(body)")
            let text = String(decoding: refused.body, as: UTF8.self)
            #expect(text.contains(words), "\(body): \(text)")
            #expect(text.split(separator: "\n").count == 1)
            #expect(try JSONParser().parse(refused.body)["error"]?["kind"] == "usage")
        }
        let tooLarge = try #require(await loopbackPOST(url, String(repeating: " ", count: (64 << 10) + 1)))
        #expect(tooLarge.status == 413)
        #expect(await loopbackGET(url)?.status == 405)
    }

    @Test func sqlTakesOneStatementAsQ() async throws {
        let (server, base, _) = try startServer()
        defer { server.stop() }
        let ok = try #require(await loopbackGET(try at(base, "/v1/sql?q=SELECT+title+FROM+demo_echo%20LIMIT%202")))
        #expect(ok.status == 200)
        #expect(try JSONParser().parse(ok.body)["statement"] == "SELECT title FROM demo_echo LIMIT 2")
        for (query, words) in [("", "missing q"), ("?q=", "missing q"), ("?query=SELECT+1", "unknown parameter 'query'"), ("?q=SELECT+1&q=SELECT+2", "give q once")] {
            let refused = try #require(await loopbackGET(try at(base, "/v1/sql" + query)))
            #expect(refused.status == 400, "\(query)")
            #expect(String(decoding: refused.body, as: UTF8.self).contains(words), "\(query)")
        }
        for statement in ["DROP+TABLE+x", "ATTACH+DATABASE+%27%2Ftmp%2Fx.db%27+AS+x", "VACUUM+INTO+%27%2Ftmp%2Fx.db%27", "%2F*+x+*%2F+ATTACH+%27y%27+AS+y", "PRAGMA+x"] {
            let refused = try #require(await loopbackGET(try at(base, "/v1/sql?q=" + statement)))
            #expect(refused.status == 400, "\(statement)")
            #expect(String(decoding: refused.body, as: UTF8.self).contains("runs only queries"), "\(statement)")
        }
        #expect(await loopbackGET(try at(base, "/v1/sql?q=+with+x+AS+(SELECT+1)+SELECT+*+FROM+x"))?.status == 400, "the fake answers only SELECT")
    }
}
