import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// A provider for fetch-layer tests: `GET {base}/items?cursor=` answering `{"items": [ids], "next": cursor|null}`,
/// or numbered pages when the body has `totalPages`.
struct PagerProvider: Provider {
    static let descriptor = ProviderDescriptor(
        name: "pager", displayName: "Pager", summary: "Test pages.", docsURL: "https://example.com/docs",
        defaultBaseURL: "https://api.example.com", auth: [AuthVariable("PAGER_TOKEN", usage: "bearer", sent: .bearer, required: true)],
        authStyle: "bearer", paginationStyle: "cursor",
        operations: [
            ProviderOperation(name: "list", summary: "List.", itemKind: "thing"),
            ProviderOperation(name: "write", summary: "Write.", itemKind: "thing", writes: true),
        ],
        examples: [])

    func operation(named name: String, plan: Void) -> any APIOperation<Void> { Items(writes: name == "write") }

    struct Items: APIOperation {
        let writes: Bool

        func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            let url = call.url("/items", [("cursor", cursor)])
            return writes ? .postJSON(url: url, body: ["x": 1], isIdempotent: false) : HTTPRequestSpec(url: url)
        }

        func normalize(_ page: HTTPResponse, _ call: Call<Void>) throws -> Page {
            let json = try page.json()
            let items = (json["items"]?.array ?? []).compactMap(\.idString).map {
                Item(provider: "pager", kind: "thing", id: $0, title: "Item \($0)")
            }
            if let total = json["totalPages"]?.int, let current = json["page"]?.int {
                return Page(items: items, next: .numberedPages(current: current, total: total, pageSize: json["pageSize"]?.int ?? 2), totalCount: json["total"]?.int)
            }
            return Page(items: items, next: json["next"]?.string.map(Page.Next.cursor), totalCount: json["total"]?.int)
        }
    }
}

private func query(_ operation: String = "list", limit: Int = 20, token: String? = "tok-secret-123") -> Query {
    Query(
        provider: "pager", operation: operation, limit: limit, baseURL: URL(string: "https://api.example.com")!,
        environment: token.map { ["PAGER_TOKEN": $0] } ?? [:])
}

private func body(_ json: String, status: Int = 200, headers: HTTPHeaders = [:], url: URL? = nil) -> HTTPResponse {
    HTTPResponse(status: status, headers: headers, body: Data(json.utf8), url: url)
}

@Suite struct FetcherPagingTests {
    @Test func followsCursorsUntilTheLimitAndReportsTheNextCursor() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            switch request.url.queryValue("cursor") {
            case nil: return body(#"{"items": [1, 2], "next": "c2", "total": 9}"#)
            case "c2"?: return body(#"{"items": [3, 4], "next": "c3"}"#)
            default: return body(#"{"items": [5, 6], "next": "c4"}"#)
            }
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query(limit: 5))
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(result.meta.pages == 3)
        #expect(result.meta.requests == 3)
        #expect(result.meta.totalCount == 9)
        #expect(result.meta.nextCursor == "c4")
        #expect(result.rawBodies.count == 3)
        #expect(log.requests.allSatisfy { $0.headers["Authorization"] == "Bearer tok-secret-123" })
    }

    @Test func stopsWhenThereIsNoNextPage() async {
        let transport = FakeTransport.json(#"{"items": [1], "next": null}"#)
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(result.items.map(\.id) == ["1"])
        #expect(result.meta.nextCursor == nil)
    }

    @Test func stopsOnARepeatedCursor() async {
        let events = EventLog()
        let transport = FakeTransport { request in
            request.url.queryValue("cursor") == nil ? body(#"{"items": [1], "next": "same"}"#) : body(#"{"items": [2], "next": "same"}"#)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions(events: events)).run(PagerProvider(), query: query())
        #expect(result.items.map(\.id) == ["1", "2"])
        #expect(result.meta.requests == 2)
        #expect(events.events.contains { if case .warning(let text) = $0.kind { return text.contains("twice") } else { return false } })
    }

    @Test func stopsOnAnIdenticalPageAndDropsDuplicates() async {
        let counter = RequestLog()
        let transport = FakeTransport { request in
            counter.append(request)
            return body(#"{"items": [1, 2], "next": "c\#(counter.requests.count)"}"#)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(result.items.map(\.id) == ["1", "2"])
        #expect(counter.requests.count == 2)
    }

    @Test func stopsAtTheMaximumPageCount() async {
        let counter = RequestLog()
        let transport = FakeTransport { request in
            counter.append(request)
            let n = counter.requests.count
            return body(#"{"items": [\#(n)], "next": "c\#(n)"}"#)
        }
        var options = testFetchOptions()
        options.maxPages = 7
        let result = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query(limit: 1000))
        #expect(result.error == nil)
        #expect(counter.requests.count == 7)
        #expect(result.meta.nextCursor == "c7")
    }

    @Test func fetchesNumberedPagesConcurrentlyInOrderAndOnlyThoseNeeded() async {
        let log = RequestLog()
        let inFlight = Gauge()
        let transport = FakeTransport { request in
            log.append(request)
            let page = Int(request.url.queryValue("cursor") ?? "1")!
            inFlight.enter()
            // Later pages answer first, to prove that order is restored.
            try await Task.sleep(nanoseconds: UInt64(20 - page) * 2_000_000)
            inFlight.leave()
            let ids = [page * 2 - 1, page * 2].map(String.init) + (page == 3 ? ["1"] : [])  // page 3 repeats id 1
            return body(#"{"items": [\#(ids.joined(separator: ","))], "page": \#(page), "totalPages": 50, "pageSize": 2}"#)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query(limit: 13))
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == (1...13).map(String.init))
        #expect(log.requests.count == 7, "13 items at 2 per page need exactly 7 pages")
        #expect(inFlight.maximum <= 4)
        #expect(inFlight.maximum >= 2, "pages after the first are fetched concurrently")
        #expect(result.meta.nextCursor == "8")
    }

    @Test func missingCredentialsFailBeforeAnyRequest() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return body("{}")
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query(token: nil))
        #expect(result.error?.kind == .config)
        #expect(result.error?.provider == "pager")
        #expect(log.requests.isEmpty)
    }
}

@Suite struct FetcherRetryTests {
    @Test func retriesServerErrorsThenSucceeds() async {
        let log = RequestLog()
        let events = EventLog()
        let transport = FakeTransport { request in
            log.append(request)
            return log.requests.count < 3 ? body("busy", status: 503) : body(#"{"items": [1]}"#)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions(events: events)).run(PagerProvider(), query: query())
        #expect(result.error == nil)
        #expect(result.meta.requests == 3)
        let waits = events.events.compactMap { event -> Double? in
            if case .retrying(let seconds, _, _, _) = event.kind { return seconds }
            return nil
        }
        #expect(waits == [0.5, 1.0])
    }

    @Test func honoursRetryAfterOn429() async {
        let slept = Recorder<TimeInterval>()
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return log.requests.count == 1 ? body("{}", status: 429, headers: ["Retry-After": "2"]) : body(#"{"items": [1]}"#)
        }
        var options = testFetchOptions()
        options.sleep = { seconds in slept.append(seconds) }
        let result = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query())
        #expect(result.error == nil)
        #expect(slept.values == [2])
    }

    @Test func givesUpAfterThreeRetries() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return body("<html><body>Bad gateway</body></html>", status: 502, headers: ["Content-Type": "text/html"])
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(log.requests.count == 4)
        #expect(result.error == AggregateError(.http, "the server answered HTTP 502 with an HTML page", provider: "pager", httpStatus: 502))
        #expect(result.items.isEmpty)
    }

    @Test func failsAtOnceWhenRetryAfterExceedsTheBudget() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return body("{}", status: 429, headers: ["Retry-After": "120"])
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(log.requests.count == 1)
        #expect(result.error?.kind == .rateLimited)
    }

    @Test func retriesConnectionErrorsForReadsOnly() async {
        let reads = RequestLog()
        let failing = FakeTransport { request in
            reads.append(request)
            throw AggregateError(.network, "cannot connect to api.example.com")
        }
        let read = await Fetcher(transport: failing, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(reads.requests.count == 4)
        #expect(read.error?.kind == .network)
        #expect(read.error?.message == "cannot connect to api.example.com (after 4 attempts)")

        let writes = RequestLog()
        let cut = FakeTransport { request in
            writes.append(request)
            throw AggregateError(.network, "the connection closed before the whole response arrived", requestMayHaveBeenSent: true)
        }
        let write = await Fetcher(transport: cut, options: testFetchOptions()).run(PagerProvider(), query: query("write"))
        #expect(writes.requests.count == 1, "a POST is never retried automatically")
        #expect(write.error?.message.contains("may or may not have taken effect") == true)
        #expect(write.error?.message.contains("aggregate pager list") == true)
    }

    @Test func postsAreNotRetriedOnServerErrors() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            return body("{}", status: 503)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query("write"))
        #expect(log.requests.count == 1)
        #expect(result.error?.httpStatus == 503)
    }
}

@Suite struct FetcherLimitsTests {
    @Test func timesOutASlowServer() async {
        let transport = FakeTransport { _ in
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return body("{}")
        }
        var options = testFetchOptions(timeout: 0.2)
        options.retry = RetryPolicy(maxRetries: 0)
        let result = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query())
        #expect(result.error?.kind == .timeout)
        #expect(result.error?.message == "no response within 0.2 s (the --timeout); the server may be slow or unreachable")
    }

    @Test func refusesResponsesOverTheSizeCap() async {
        let transport = FakeTransport.json(#"{"items": ["\#(String(repeating: "x", count: 2000))"]}"#)
        let result = await Fetcher(transport: transport, options: testFetchOptions(maxResponseBytes: 1024)).run(PagerProvider(), query: query())
        #expect(result.error?.kind == .tooLarge)
        #expect(result.error?.message == "the response is larger than the 1.0 KiB size cap")
    }

    @Test func redirectsKeepCredentialsOnlyOnTheProvidersHost() async {
        let log = RequestLog()
        let transport = FakeTransport { request in
            log.append(request)
            switch request.url.host {
            case "api.example.com" where request.url.path == "/items":
                return body("", status: 302, headers: ["Location": "/moved"])
            case "api.example.com":
                return body("", status: 307, headers: ["Location": "https://cdn.elsewhere.net/items"])
            default:
                return body(#"{"items": [1]}"#)
            }
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(result.error == nil)
        #expect(log.requests.map { $0.url.host ?? "" } == ["api.example.com", "api.example.com", "cdn.elsewhere.net"])
        #expect(log.requests[1].headers["Authorization"] == "Bearer tok-secret-123")
        #expect(log.requests[2].headers["Authorization"] == nil, "credentials never go to another host")
    }

    @Test func refusesARedirectToPlainHTTPOnANetworkHost() async {
        let transport = FakeTransport { _ in body("", status: 301, headers: ["Location": "http://evil.example.net/x"]) }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(result.error?.kind == .config)
        #expect(result.error?.message.contains("refusing plain http://") == true)
    }

    @Test func secretsNeverAppearInErrors() async {
        let transport = FakeTransport { request in
            body(#"{"error": "bad token tok-secret-123 for \#(request.url.absoluteString)"}"#, status: 400)
        }
        let result = await Fetcher(transport: transport, options: testFetchOptions()).run(PagerProvider(), query: query())
        let message = result.error?.message ?? ""
        #expect(!message.contains("tok-secret-123"))
        #expect(message.contains("***"))
    }

    @Test func malformedAndHTMLBodiesBecomeClearDecodingErrors() async {
        let malformed = await Fetcher(transport: FakeTransport.json(#"{"items": [1,"#), options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(malformed.error?.kind == .decoding)
        #expect(malformed.error?.message.hasPrefix("the API sent malformed JSON (HTTP 200): unexpected end of input") == true)
        let html = await Fetcher(transport: FakeTransport.json("<!DOCTYPE html><html></html>"), options: testFetchOptions()).run(PagerProvider(), query: query())
        #expect(html.error?.message == "the API sent an HTML page instead of JSON (HTTP 200)")
    }
}

final class Gauge: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private(set) var maximum = 0
    func enter() {
        lock.lock()
        current += 1
        maximum = max(maximum, current)
        lock.unlock()
    }
    func leave() {
        lock.lock()
        current -= 1
        lock.unlock()
    }
}

/// Issue 14: raw bodies only when asked for, blocking work off the cooperative pool, and sleeps that cannot trap.
@Suite struct FetcherResourceTests {
    @Test func rawBodiesAreKeptOnlyWhenAsked() async {
        let transport = FakeTransport { request in
            switch request.url.queryValue("cursor") {
            case nil: return body(#"{"items": [1, 2], "next": "c2"}"#)
            default: return body(#"{"items": [3, 4]}"#)
            }
        }
        var options = testFetchOptions()
        options.keepsRawBodies = false
        let lean = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query(limit: 4))
        #expect(lean.error == nil)
        #expect(lean.items.count == 4)
        #expect(lean.rawBodies.isEmpty)
        options.keepsRawBodies = true
        let full = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query(limit: 4))
        #expect(full.rawBodies.count == 2)
    }

    @Test func loneSurrogatesAreCountedWhereEachPageIsParsedWithoutKeepingItsBody() async {
        let cursorPages = FakeTransport { request in
            switch request.url.queryValue("cursor") {
            case nil: return body(#"{"items": [1], "next": "c2", "note": "cut \ud83c"}"#)
            default: return body(#"{"items": [2], "note": "\udc00 and \ud800, but not \ud83d\ude80"}"#)
            }
        }
        var options = testFetchOptions()
        options.keepsRawBodies = false
        let cursors = await Fetcher(transport: cursorPages, options: options).run(PagerProvider(), query: query(limit: 5))
        #expect(cursors.items.count == 2)
        #expect(cursors.rawBodies.isEmpty)
        #expect(cursors.parseNotes.replacedSurrogates == 3)

        // Numbered pages are read concurrently; each still counts once, and an error body not at all.
        let numberedPages = FakeTransport { request in
            let page = Int(request.url.queryValue("cursor") ?? "1") ?? 1
            return body(#"{"items": [\#(page * 2 - 1), \#(page * 2)], "page": \#(page), "totalPages": 3, "note": "\ud800"}"#)
        }
        let numbered = await Fetcher(transport: numberedPages, options: options).run(PagerProvider(), query: query(limit: 6))
        #expect(numbered.items.count == 6)
        #expect(numbered.parseNotes.replacedSurrogates == 3)
        let clean = await Fetcher(transport: FakeTransport { _ in body(#"{"items": [1]}"#) }, options: options).run(PagerProvider(), query: query())
        #expect(clean.parseNotes == JSONParseNotes())
    }

    @Test func aBodyParsedTwiceWhileCollectingCountsOnce() throws {
        let response = body(#"["\ud800", "\udfff"]"#)
        let (value, notes) = try JSONParseNotes.collecting { () throws -> JSONValue in
            _ = try response.json()
            return try response.json()
        }
        #expect(value == ["\u{FFFD}", "\u{FFFD}"])
        #expect(notes.replacedSurrogates == 2)
        #expect(JSONParseNotes.collecting { 1 }.notes == JSONParseNotes(), "nothing parsed, nothing repaired")
    }

    @Test(arguments: [Double.infinity, -.infinity, .nan, 1e300, -1, 0, 1.5, 18_446_744_073.709_55])
    func nanosecondsNeverTrap(_ seconds: Double) {
        let nanoseconds = Nanoseconds.from(seconds: seconds)
        if seconds.isNaN || seconds <= 0 { #expect(nanoseconds == 0) }
        if seconds == 1.5 { #expect(nanoseconds == 1_500_000_000) }
        if seconds >= 1e300 { #expect(nanoseconds == .max) }
    }

    @Test func aLibraryCallerMayPassAnInfiniteTimeout() async {
        let transport = FakeTransport { _ in body(#"{"items": [1]}"#) }
        var options = testFetchOptions()
        options.timeout = .infinity
        let result = await Fetcher(transport: transport, options: options).run(PagerProvider(), query: query(limit: 1))
        #expect(result.items.count == 1)
    }

    @Test func blockingWorkRunsOnItsOwnThread() async throws {
        #expect(await BlockingWork.run { BlockingWork.isOnWorkerThread })
        #expect(!BlockingWork.isOnWorkerThread)
        await #expect(throws: AggregateError.self) {
            try await BlockingWork.run { () throws(AggregateError) -> Int in throw AggregateError(.usage, "x") }
        }
    }
}
