import AggregateCore
import AggregateJSON
import Foundation

/// The files of a new Swift provider, modelled on the Bookshelf walk-through of docs/adding-a-provider.md: a client
/// with one `search` operation, a bearer token and numbered pages; its emulator over a sample file; a README; and
/// a golden-file test. Everything is named after the provider and builds and passes its test as generated.
enum SwiftProviderTemplate {
    /// The sample records: twelve, eleven of them about Swift, so the example's search fills two pages of ten.
    static let records: [(id: Int, title: String, author: String, createdAt: String)] = [
        (1, "Swift in Practice", "Ada Byron", "2024-01-15T09:30:00Z"),
        (2, "Concurrency in Swift", "Grace Hopper", "2024-02-03T14:00:00Z"),
        (3, "Swift on the Server", "Alan Turing", "2024-03-21T08:15:00Z"),
        (4, "Learning Go", "Jon Bodner", "2024-04-02T11:45:00Z"),
        (5, "Swift Testing by Example", "Barbara Liskov", "2024-04-28T16:20:00Z"),
        (6, "Generics in Swift", "Edsger Dijkstra", "2024-05-30T10:05:00Z"),
        (7, "Swift for Command-Line Tools", "Margaret Hamilton", "2024-06-11T07:50:00Z"),
        (8, "Embedded Swift", "Donald Knuth", "2024-07-19T13:35:00Z"),
        (9, "Swift Macros", "Frances Allen", "2024-08-08T09:00:00Z"),
        (10, "Swift Package Manager Guide", "Ken Thompson", "2024-09-14T15:25:00Z"),
        (11, "Ownership in Swift", "Radia Perlman", "2024-10-01T12:10:00Z"),
        (12, "Swift and C++ Interop", "Dennis Ritchie", "2024-11-22T17:40:00Z"),
    ]

    static func url(_ name: ScaffoldName, id: Int) -> String { "https://\(name.name).example/records/\(id)" }

    /// `SampleData/records.json`: the records as the API would hold them.
    static func sampleData(_ name: ScaffoldName) -> String {
        let lines = records.map { record in
            "  {\"id\": \(record.id), \"title\": \(JSONWriter.quoted(record.title)), \"author\": \(JSONWriter.quoted(record.author)), "
                + "\"url\": \"\(url(name, id: record.id))\", \"created_at\": \"\(record.createdAt)\"}"
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }

    /// The golden file of the generated test: one line per item the example search returns.
    static func golden(_ name: ScaffoldName) -> String {
        records.filter { $0.title.lowercased().contains("swift") }.map { record in
            "\(record.id) | \(record.title) | \(record.author) | \(url(name, id: record.id)) | \(record.createdAt)\n"
        }.joined()
    }

    static func provider(_ name: ScaffoldName) -> String {
        let type = name.typeName
        return """
            public import AggregateCore
            import AggregateJSON
            import AggregateText
            import Foundation

            /// \(type): records whose title matches some words, in numbered pages of 10. Made by `aggregate new-provider`:
            /// replace the URLs, the path, the parameters and the field names with the API's own
            /// (docs/adding-a-provider.md explains each part).
            public struct \(type)Provider: Provider {
                static let words = ParameterKey<String>("query", style: .positional, required: true, valueName: "WORDS", help: "Words of the title.")

                public static let descriptor = ProviderDescriptor(
                    name: "\(name.name)", displayName: "\(type)", summary: "Records whose title matches some words.",
                    docsURL: "https://\(name.name).example/docs", defaultBaseURL: "https://api.\(name.name).example",
                    auth: [AuthVariable("\(name.environmentPrefix)_TOKEN", usage: "API token, sent as 'Authorization: Bearer'.", sent: .bearer, required: true)],
                    authStyle: "bearer token", paginationStyle: "numbered pages of 10",
                    operations: [ProviderOperation(name: "search", summary: "Records whose title matches.", itemKind: "record", declaring: [words])],
                    examples: [ProviderExample(["\(name.name)", "search", "swift"], "Records about Swift: two pages.")])

                public init() {}

                public func operation(named name: String, plan: Void) -> any APIOperation<Void> { Search() }

                /// `GET /api/\(name.name)/search?q=&page=`: 10 records a page, with `total_pages`.
                struct Search: APIOperation {
                    func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
                        HTTPRequestSpec(url: call.url("/api/\(name.name)/search", [("q", call[words]), ("page", cursor ?? "1")]))
                    }

                    func normalize(_ response: HTTPResponse, _ call: Call<Void>) throws -> Page {
                        let json = try response.json()
                        guard let records = json["results"]?.array else { throw AggregateError(.decoding, "the response has no 'results' list") }
                        let items = records.compactMap { record -> Item? in
                            guard let id = record["id"]?.idString, let title = record["title"]?.nonEmptyString else { return nil }
                            var item = Item(provider: "\(name.name)", kind: "record", id: id, title: title)
                            item.author = record["author"]?.nonEmptyString
                            item.url = record["url"]?.nonEmptyString
                            item.createdAt = record["created_at"]?.string.flatMap(UTCTimestamp.date(fromISO8601:))
                            return item
                        }
                        let page = json["page"]?.int ?? 1, pages = json["total_pages"]?.int ?? 1
                        let next = page < pages ? Page.Next.numberedPages(current: page, total: pages, pageSize: 10) : nil
                        return Page(items: items, next: next, totalCount: json["total_results"]?.int)
                    }
                }

                /// `{"error": {"code", "message"}}` in the API's words; anything else in the standard ones.
                public func error(for response: HTTPResponse, call: Call<Void>) -> AggregateError {
                    guard let error = APIErrorKit.codeMessage(try? response.json()["error"]) else {
                        return APIErrorKit.standard(for: response, descriptor: Self.descriptor)
                    }
                    let advice = response.status == 401 ? ". \\(Self.descriptor.checkCredentialsAdvice)." : ""
                    return AggregateError(
                        APIErrorKit.kind(forStatus: response.status), "\\(error.message) (HTTP \\(response.status))\\(advice)", httpStatus: response.status)
                }
            }

            """
    }

    static func sandbox(_ name: ScaffoldName) -> String {
        let type = name.typeName
        return """
            public import AggregateCore
            import AggregateJSON
            public import AggregateSandboxKit
            import Foundation

            /// The \(type) API's emulator: `GET /api/\(name.name)/search` over `SampleData/records.json`, with its auth and errors.
            public enum \(type)Sandbox: RoutedSandbox {
                public static let providerName = "\(name.name)"
                public static let sandboxEnvironment = ["\(name.environmentPrefix)_TOKEN": "sandbox-\(name.name)-token"]
                public static let routes = SandboxRoutes([SandboxRoute("GET", "/api/\(name.name)/search", search)])

                static let records: [JSONValue] = (try? JSONParser().parse(\(type)SampleData.recordsJSON))?.array ?? []

                static func search(_ request: SandboxRequest, _ context: SandboxContext, _ segments: [String]) throws -> SandboxResponse {
                    try request.requireBearer(sandboxEnvironment["\(name.environmentPrefix)_TOKEN"] ?? "") { _ in error(401, "unauthorized", "A valid bearer token is required") }
                    let page = try request.integer("page", default: 1, in: 1...1000) { error(400, "invalid_page", "page must be 1-1000, not '\\($0)'") }
                    let words = (request.queryValue("q") ?? "").lowercased()
                    let matches = records.filter { ($0["title"]?.string ?? "").lowercased().contains(words) }
                    return .json([
                        "page": .int(page), "total_pages": .int(SandboxPaging.pageCount(matches.count, size: 10)),
                        "total_results": .int(matches.count), "results": .array(Array(SandboxPaging.page(matches, number: page, size: 10))),
                    ])
                }

                /// Injected faults answer in the API's error shape.
                public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
                    error(status, "fault", HTTPStatus.reason(status))
                }

                static func error(_ status: Int, _ code: String, _ message: String) -> SandboxResponse {
                    .json(["error": ["code": .string(code), "message": .string(message)]], status: status)
                }
            }

            """
    }

    static func test(_ name: ScaffoldName) -> String {
        let type = name.typeName
        return """
            import AggregateCore
            import AggregateHTTP
            import AggregateJSON
            import AggregateSandboxKit
            import AggregateTestSupport
            import AggregateText
            import Foundation
            import Testing
            import \(type)Provider
            import \(type)Sandbox

            /// The \(name.name) provider against its emulator, compared with a golden file (made by `aggregate new-provider`).
            @Suite struct \(type)ProviderTests {
                static let golden = TestPaths.testTarget("AggregateProvidersTests").appendingPathComponent("Golden/\(name.name)/search-swift.txt")

                static func run(limit: Int, environment: [String: String] = \(type)Sandbox.sandboxEnvironment) async throws -> ProviderResult {
                    let catalog = try SandboxCatalog([\(type)Provider.self], sandboxes: [\(type)Sandbox.self])
                    let sandbox = SandboxTransport(catalog: catalog)
                    let query = Query(
                        provider: "\(name.name)", operation: "search", parameters: ["query": "swift"], limit: limit,
                        baseURL: URL(string: "http://sandbox.localhost/\(name.name)")!, environment: environment)
                    return await Fetcher(transport: sandbox, options: testFetchOptions(), source: .offline).run(\(type)Provider(), query: query)
                }

                /// One line per item: id, title, author, url and date, so a change to the normalizer shows in the diff.
                @Test func theSampleSearchMatchesTheGoldenFile() async throws {
                    let result = try await Self.run(limit: 50)
                    #expect(result.error == nil)
                    #expect(result.meta.pages == 2)
                    let lines = result.items.map { item in
                        [item.id, item.title, item.author ?? "", item.url ?? "", item.createdAt.map { UTCTimestamp.iso8601($0) } ?? ""].joined(separator: " | ")
                    }
                    if let message = Golden.check(lines.map { $0 + "\\n" }.joined(), against: Self.golden) { Issue.record(Comment(rawValue: message)) }
                }

                @Test func withoutTheTokenTheRunStopsWithTheStandardError() async throws {
                    let result = try await Self.run(limit: 5, environment: [:])
                    #expect(result.error?.kind == .config)
                }

                @Test func aWrongTokenGetsTheAPIsOwnMessage() async throws {
                    let result = try await Self.run(limit: 5, environment: ["\(name.environmentPrefix)_TOKEN": "wrong"])
                    #expect(result.error?.kind == .auth)
                    #expect(result.error?.message.hasPrefix("A valid bearer token is required (HTTP 401).") == true)
                }
            }

            """
    }

    static func readme(_ name: ScaffoldName) -> String {
        """
        # \(name.typeName)

        Made by `aggregate new-provider \(name.name) --swift`. It is a working provider for a made-up API, to be turned
        into the real one:

        - `\(name.typeName)Provider.swift`: the descriptor (summary, docs URL, base URL, credentials, operations,
          examples), the `search` operation's request and normalizer, and the error mapping.
        - `Sandbox/\(name.typeName)Sandbox.swift`: the emulator the sandbox and `--offline` use; it serves
          `SampleData/records.json`, checks the token and pages by 10.
        - `SampleData/records.json`: the emulator's data, compiled into `Sandbox/Generated/SampleData.swift` (after
          editing it run `AGGREGATE_WRITE_GENERATED=1 swift test --filter sampleDataSourcesAreUpToDate`).
        - `Tests/AggregateProvidersTests/\(name.typeName)/\(name.typeName)ProviderTests.swift` with its golden file
          `Tests/AggregateProvidersTests/Golden/\(name.name)/search-swift.txt`.

        Credentials: `\(name.environmentPrefix)_TOKEN`, sent as a bearer token. Base URL: `https://api.\(name.name).example`,
        overridable with `--base-url` or `AGGREGATE_\(name.environmentPrefix)_BASE_URL`.

        See docs/adding-a-provider.md for what each part does.

        """
    }

    /// The plan for `Providers/<Type>/`, its test and golden file, and the two umbrella lists with it added.
    static func plan(_ name: ScaffoldName, packageRoot: URL) throws(AggregateError) -> ScaffoldPlan {
        let type = name.typeName
        var plan = ScaffoldPlan(root: packageRoot)
        let samples = sampleData(name)
        let generated: String
        do {
            generated = try GeneratedSources.sampleData(provider: type, files: [("records.json", samples)])
        } catch {
            throw AggregateError(.invalidInput, "the sample data template is not valid JSON: \(error)")
        }
        plan.created = [
            ("Providers/\(type)/\(type)Provider.swift", provider(name)),
            ("Providers/\(type)/Sandbox/\(type)Sandbox.swift", sandbox(name)),
            ("Providers/\(type)/SampleData/records.json", samples),
            ("Providers/\(type)/Sandbox/Generated/SampleData.swift", generated),
            ("Providers/\(type)/README.md", readme(name)),
            ("Tests/AggregateProvidersTests/\(type)/\(type)ProviderTests.swift", test(name)),
            ("Tests/AggregateProvidersTests/Golden/\(name.name)/search-swift.txt", golden(name)),
        ]
        let folders = ProviderScaffold.swiftProviderFolders(packageRoot.appendingPathComponent("Providers")) + [type]
        for list in GeneratedSources.UmbrellaList.allCases {
            let current = (try? String(contentsOf: packageRoot.appendingPathComponent(list.path), encoding: .utf8)) ?? ""
            plan.replaced.append((list.path, list.render(current: current, folders: folders)))
        }
        plan.nextSteps = [
            "swift build && swift test --filter \(type)ProviderTests    # builds it and runs its test",
            "AGGREGATE_RECORD=1 swift test --filter ProviderExampleTests    # records its example's golden files (read them)",
            "swift run aggregate \(name.name) search swift --offline    # the example, from the emulator",
            "then edit Providers/\(type)/\(type)Provider.swift for the real API (docs/adding-a-provider.md)",
        ]
        return plan
    }
}
