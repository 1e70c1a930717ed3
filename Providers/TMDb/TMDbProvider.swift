public import AggregateCore
import Foundation

/// Movies from The Movie Database (TMDb) API v3: title search, the popular list, and one movie with its
/// director(s) and cast.
public struct TMDbProvider: Provider, ProviderTextView {
    static let title = ParameterKey<String>("query", style: .positional, required: true, valueName: "TITLE", help: "Words of the title, e.g. \"the amazing spider-man\".")
    static let year = ParameterKey<Int>("year", type: .integer(1870...2100), valueName: "YEAR", help: "Only movies released in this year.")
    static let id = ParameterKey<Int>("id", style: .positional, type: .integer(1...999_999_999), required: true, valueName: "ID", help: "TMDb's movie id, e.g. 1930.")

    /// `search` and `popular`: pages of 20, after the image configuration (live runs only).
    static let listCost = RequestCost(pageSize: TMDbNormalizer.pageSize, lookups: 1)

    /// The descriptor's name, stated without making the descriptor.
    public static let providerName = "tmdb"

    public static let descriptor = ProviderDescriptor(
        name: "tmdb",
        displayName: "TMDb",
        summary: "Movies from The Movie Database (TMDb API v3): search, popular, and one movie with its director and cast.",
        docsURL: "https://developer.themoviedb.org/docs/getting-started",
        defaultBaseURL: "https://api.themoviedb.org/3",
        auth: [
            AuthVariable(
                "TMDB_ACCESS_TOKEN",
                usage: "API Read Access Token (the long 'eyJ…' token on TMDb's API settings page), sent as 'Authorization: Bearer'. Preferred when both are set.",
                sent: .bearer, required: true, label: "API Read Access Token, preferred"),
            AuthVariable(
                "TMDB_API_KEY", usage: "v3 API key (32 hex digits), sent as the api_key= query parameter.",
                sent: .queryParameter("api_key"), required: true, label: "v3 API key"),
        ],
        authStyle: "Bearer API Read Access Token, or api_key= query parameter",
        paginationStyle: "numbered pages of 20 (at most 500); pages after the first fetched concurrently",
        operations: [
            ProviderOperation(
                name: "search", summary: "Movies whose title matches the text (case- and accent-insensitive).", itemKind: "movie",
                declaring: [title, year], cost: listCost),
            ProviderOperation(name: "popular", summary: "The movies TMDb currently ranks as most popular.", itemKind: "movie", cost: listCost),
            ProviderOperation(
                name: "movie",
                summary: "One movie with its details, director(s) and cast; the text view lists the first \(TMDbTextView.defaultCastLines) cast members, or --limit N of them.",
                itemKind: "movie", declaring: [id], cost: RequestCost(pageSize: nil, lookups: 1)),
        ],
        cacheFreshness: CacheFreshness(defaultSeconds: 3600, operations: ["search": 600, "popular": 600], endpoints: [.init("/configuration", seconds: 86_400)]),
        examples: [
            ProviderExample(["tmdb", "search", "the amazing spider-man"], "The original tutorial's search: both Amazing Spider-Man films."),
            ProviderExample(["tmdb", "movie", "1930"], "The Amazing Spider-Man with its director and cast, as the original tutorial's movie JSON shows it."),
            ProviderExample(["tmdb", "popular", "--limit", "25"], "The 25 most popular movies: page 1, then page 2 once page 1 tells total_pages."),
            ProviderExample(["tmdb", "search", "leon", "--year", "1994"], "Accent-insensitive search limited to one year: finds Léon."),
        ],
        // "Somewhere in the 40 requests per second range"; the old 40 per 10 s limit was lifted in 2019.
        rateBudgets: [RateBudget("api", requests: 40, per: 1)], metrics: ["popularity", "voteAverage", "voteCount", "runtime"])

    public init() {}

    /// What a run knows before its first page.
    public struct Plan: Sendable {
        /// Whether `TMDB_ACCESS_TOKEN` holds what looks like a v3 API key, a common mix-up that TMDb answers with 401.
        var tokenLooksLikeAPIKey: Bool
        /// Where posters live, from `/configuration` (TMDb's documented base offline).
        var posterBase = TMDbImages.defaultPosterBase
    }

    /// The key of the `/configuration` body in the run's cache.
    static let configurationCacheKey = "tmdb.configuration"

    public func plan(for query: Query, credentials: Credentials) throws -> Plan {
        Plan(tokenLooksLikeAPIKey: credentials["TMDB_ACCESS_TOKEN"].map { Self.looksLikeAPIKey($0.value) } ?? false)
    }

    /// Reads the image base from `/configuration` once per run (shared through the run's cache); offline runs use
    /// TMDb's documented base and the `w500` size without asking.
    public func resolve(_ plan: inout Plan, for query: Query, using client: FetchClient) async throws {
        guard query.source == .live else { return }
        let request = HTTPRequestSpec(url: query.baseURL.appendingEndpoint("/configuration"))
        let configuration = try await client.cache.value(for: Self.configurationCacheKey) {
            try await client.send(request).json()
        }
        plan.posterBase = TMDbImages.posterBase(fromConfiguration: configuration)
    }

    public func operation(named name: String, plan: Plan) -> any APIOperation<Plan> {
        switch name {
        case "popular": return ListOperation(path: "/movie/popular", parameters: { _ in [] })
        case "movie": return MovieOperation()
        default: return ListOperation(path: "/search/movie", parameters: { call in [("query", call[Self.title] ?? ""), ("year", call.text(Self.year))] })
        }
    }

    /// `search` and `popular`: numbered pages of 20.
    struct ListOperation: APIOperation {
        let path: String
        let parameters: @Sendable (Call<Plan>) -> [(String, String?)]

        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.url(path, parameters(call) + [("page", cursor ?? "1")]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            let requested = response.url?.queryValue("page").flatMap(Int.init) ?? 1
            return try TMDbNormalizer.listPage(response.json(), requestedPage: requested, imageBase: call.plan.posterBase)
        }
    }

    /// `movie`: one movie with its credits.
    struct MovieOperation: APIOperation {
        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.url("/movie/\(call.text(id) ?? "")", [("append_to_response", "credits")]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try TMDbNormalizer.details(response.json(), imageBase: call.plan.posterBase)
        }

        /// TMDb's 404 envelope names the movie that was asked for.
        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? {
            let status = response.status
            guard let json = TMDbErrors.json(response), TMDbErrors.bodyError(json, status: status)?.kind == .notFound else { return nil }
            let origin = TMDbErrors.origin(json, status: status)
            return AggregateError(.notFound, "no movie with id \(call.text(id) ?? "?") (\(origin))", httpStatus: status)
        }
    }

    /// TMDb's own message when the body has one, with what to do: which variable to check, or to wait.
    public func error(for response: HTTPResponse, call: Call<Plan>) -> AggregateError {
        guard let json = TMDbErrors.json(response), var error = TMDbErrors.bodyError(json, status: response.status) else {
            return APIErrorKit.standard(for: response, descriptor: Self.descriptor)
        }
        switch error.kind {
        case .auth where call.plan.tokenLooksLikeAPIKey:
            error.message += ". TMDB_ACCESS_TOKEN holds 32 hex digits, which looks like a v3 API key: set TMDB_API_KEY to it instead (TMDB_ACCESS_TOKEN is the long API Read Access Token)."
        case .auth:
            error.message += ". " + (call.credential.map { "Check \($0.variable.name)" } ?? Self.descriptor.checkCredentialsAdvice) + "."
        case .rateLimited:
            error.message += ". Retries ran out: wait a few seconds and try again."
        default:
            break
        }
        return error
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        if result.operation == "movie" {
            // The first 10 cast members, unless --limit asks for another number.
            let castLines = result.explicitLimit ?? TMDbTextView.defaultCastLines
            return result.items.map { TMDbTextView.detail($0, castLines: castLines, style: style) }.joined(separator: "\n")
        }
        return result.items.map { TMDbTextView.listLine($0, style: style) + "\n" }.joined()
    }

    /// Whether `value` has the shape of a v3 API key (32 hex digits) rather than a read access token (a JWT).
    static func looksLikeAPIKey(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        return trimmed.count == 32 && trimmed.allSatisfy(\.isHexDigit)
    }
}
