import AggregateCore
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import Foundation
import MeetupProvider
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every number a sandbox route reads from a request, sent at the edges of `Int` (and beyond it), over a real
/// loopback server: each answer is the API's own error shape or a normal page, never a trap, and the server
/// keeps serving afterwards.
@Suite(.serialized) struct SandboxNumberBoundaryTests {
    /// The values the issue's crashes came from, plus one that no `Int` can hold.
    static let extremes = ["9223372036854775807", "-9223372036854775808", "-1", "1e400"]

    /// One numeric parameter of one route.
    struct NumericParameter: Sendable, CustomTestStringConvertible {
        var route: String
        var name: String
        /// Builds the request for a value (the value as text; JSON routes write it as a number literal).
        var build: @Sendable (URL, String) -> URLRequest
        /// Values this parameter accepts (answered 200); every other extreme must get an error.
        var accepted: Set<String> = []
        var testDescription: String { "\(route) \(name)" }
    }

    static let env = allSandboxes.reduce(into: [String: String]()) { $0.merge($1.sandboxEnvironment) { a, _ in a } }

    static func get(_ path: String, _ query: [(String, String)], headers: [String: String] = [:]) -> @Sendable (URL, String) -> URLRequest {
        { base, _ in
            var request = URLRequest(url: base.appendingEndpoint(path).appendingQuery(query))
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return request
        }
    }

    static func getting(_ path: String, _ fixed: [(String, String)], _ name: String, headers: [String: String] = [:]) -> @Sendable (URL, String) -> URLRequest {
        { base, value in get(path, fixed + [(name, value)], headers: headers)(base, value) }
    }

    static func graphQL(_ path: String, token: String?, query: String, variables: @escaping @Sendable (String) -> String) -> @Sendable (URL, String) -> URLRequest {
        { base, value in
            var request = URLRequest(url: base.appendingEndpoint(path))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let document = JSONWriter().string(.string(query))
            request.httpBody = Data(#"{"query":\#(document),"variables":\#(variables(value))}"#.utf8)
            return request
        }
    }

    static let parameters: [NumericParameter] = {
        let meetupKey = env["MEETUP_API_KEY"]!, meetupToken = env["MEETUP_TOKEN"]!
        let tmdbKey = env["TMDB_API_KEY"]!, bearer = ["Authorization": "Bearer \(env["X_BEARER_TOKEN"]!)"]
        let london: [(String, String)] = [("key", meetupKey), ("lat", "51.5"), ("lon", "-0.13")]
        func without(_ name: String) -> [(String, String)] { london.filter { $0.0 != name } }
        let groupSearch = "query($query: String!, $lat: Float!, $lon: Float!, $first: Int) { groupSearch }"
        func meetupGQL(_ name: String) -> @Sendable (URL, String) -> URLRequest {
            graphQL("/meetup/gql-ext", token: meetupToken, query: groupSearch) { value in
                var variables = ["query": "\"\"", "lat": "51.5", "lon": "-0.13"]
                variables[name] = value
                return "{" + variables.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
            }
        }
        func kivaGQL(_ name: String) -> @Sendable (URL, String) -> URLRequest {
            graphQL("/kiva/graphql", token: nil, query: "{ lend { loans(offset: $offset, limit: $limit) { values { id } } } }") { value in
                name == "offset" ? #"{"offset":\#(value),"limit":5}"# : #"{"offset":1,"limit":\#(value)}"#
            }
        }
        return [
            NumericParameter(route: "meetup v2 groups", name: "page", build: getting("/meetup/2/groups", london, "page")),
            NumericParameter(route: "meetup v2 groups", name: "offset", build: getting("/meetup/2/groups", london, "offset")),
            NumericParameter(route: "meetup v2 groups", name: "radius", build: getting("/meetup/2/groups", london, "radius")),
            NumericParameter(route: "meetup v2 groups", name: "lat", build: getting("/meetup/2/groups", without("lat"), "lat"), accepted: ["-1"]),
            NumericParameter(route: "meetup v2 groups", name: "lon", build: getting("/meetup/2/groups", without("lon"), "lon"), accepted: ["-1"]),
            NumericParameter(route: "meetup gql-ext", name: "first", build: meetupGQL("first")),
            NumericParameter(route: "meetup gql-ext", name: "lat", build: meetupGQL("lat"), accepted: ["-1"]),
            NumericParameter(route: "meetup gql-ext", name: "lon", build: meetupGQL("lon"), accepted: ["-1"]),
            NumericParameter(route: "meetup gql-ext", name: "radius", build: meetupGQL("radius"), accepted: ["9223372036854775807", "-1"]),
            NumericParameter(route: "kiva newest", name: "page", build: getting("/kiva/v1/loans/newest.json", [], "page")),
            NumericParameter(route: "kiva search", name: "page", build: getting("/kiva/v1/loans/search.json", [], "page")),
            NumericParameter(route: "kiva graphql", name: "offset", build: kivaGQL("offset")),
            NumericParameter(route: "kiva graphql", name: "limit", build: kivaGQL("limit")),
            NumericParameter(
                route: "kiva loans by id", name: "ids",
                build: { base, value in get("/kiva/v1/loans/\(value).json", [])(base, value) }, accepted: ["9223372036854775807", "-1"]),
            NumericParameter(route: "tmdb search", name: "page", build: getting("/tmdb/3/search/movie", [("api_key", tmdbKey), ("query", "batman")], "page")),
            NumericParameter(route: "tmdb search", name: "year", build: getting("/tmdb/3/search/movie", [("api_key", tmdbKey), ("query", "batman")], "year")),
            NumericParameter(route: "tmdb popular", name: "page", build: getting("/tmdb/3/movie/popular", [("api_key", tmdbKey)], "page")),
            NumericParameter(
                route: "tmdb movie", name: "id",
                build: { base, value in get("/tmdb/3/movie/\(value)", [("api_key", tmdbKey)])(base, value) }),
            NumericParameter(
                route: "twitter v2 tweets", name: "max_results",
                build: getting("/twitter/2/users/1000000000000000001/tweets", [], "max_results", headers: bearer)),
            NumericParameter(
                route: "twitter v2 tweets", name: "id",
                build: { base, value in get("/twitter/2/users/\(value)/tweets", [], headers: bearer)(base, value) }),
            NumericParameter(
                route: "twitter v1.1 timeline", name: "count",
                build: getting("/twitter/1.1/statuses/user_timeline.json", [("screen_name", "nasa")], "count", headers: bearer),
                accepted: Set(extremes)),
            NumericParameter(
                route: "twitter v1.1 timeline", name: "max_id",
                build: getting("/twitter/1.1/statuses/user_timeline.json", [("screen_name", "nasa")], "max_id", headers: bearer),
                accepted: Set(extremes)),
            NumericParameter(
                route: "messageboard message", name: "id",
                build: { base, value in get("/messageboard/messages/\(value).json", [])(base, value) }),
        ]
    }()

    @Test(arguments: parameters)
    func extremeNumbersGetAnAnswerAndTheServerKeepsServing(_ parameter: NumericParameter) async throws {
        var configuration = SandboxServerConfiguration(port: 0, log: { _ in })
        configuration.store = SandboxStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-numbers-\(UUID().uuidString)"))
        let server = SandboxServer(catalog: try SandboxCatalog(allProviders, sandboxes: allSandboxes), configuration: configuration)
        try server.start()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        for value in Self.extremes {
            var request = parameter.build(server.baseURL, value)
            request.timeoutInterval = 10
            let (data, response) = try await session.data(for: request)
            let status = try #require(response as? HTTPURLResponse).statusCode
            let body = try JSONParser().parse(data)
            let isGraphQLError = status == 200 && body["errors"]?.array?.isEmpty == false
            if parameter.accepted.contains(value) {
                #expect(status == 200 || status == 404, "\(parameter.testDescription)=\(value): \(status) \(String(decoding: data, as: UTF8.self))")
            } else {
                #expect(
                    (400..<500).contains(status) || isGraphQLError,
                    "\(parameter.testDescription)=\(value) should be refused in the API's shape, got \(status) \(String(decoding: data, as: UTF8.self))")
            }
        }
        // Still serving: a plain request after the extremes is answered.
        let (_, after) = try await session.data(from: server.baseURL.appendingEndpoint("/tmdb/3/configuration").appendingQuery([("api_key", Self.env["TMDB_API_KEY"]!)]))
        #expect((after as? HTTPURLResponse)?.statusCode == 200)
    }
}
