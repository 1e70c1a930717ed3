public import AggregateCore
import Foundation

/// Movies from The Movie Database (TMDb) API v3: title search, the popular list, and one movie with its
/// director(s) and cast.
public struct TMDbProvider: Provider, ProviderTextView {
    public static let descriptor = ProviderDescriptor(
        name: "tmdb",
        displayName: "TMDb",
        summary: "Movies from The Movie Database (TMDb API v3): search, popular, and one movie with its director and cast.",
        docsURL: "https://developer.themoviedb.org/docs/getting-started",
        defaultBaseURL: "https://api.themoviedb.org/3",
        auth: [
            AuthVariable(
                "TMDB_ACCESS_TOKEN",
                usage: "API Read Access Token (the long 'eyJ…' token on TMDb's API settings page), sent as 'Authorization: Bearer'. Preferred when both are set."),
            AuthVariable("TMDB_API_KEY", usage: "v3 API key (32 hex digits), sent as the api_key= query parameter."),
        ],
        authStyle: "Bearer API Read Access Token, or api_key= query parameter",
        paginationStyle: "numbered pages of 20 (at most 500); pages after the first fetched concurrently",
        operations: [
            ProviderOperation(
                name: "search", summary: "Movies whose title matches the text (case- and accent-insensitive).", itemKind: "movie",
                parameters: [
                    Parameter("query", style: .positional, required: true, valueName: "TITLE", help: "Words of the title, e.g. \"the amazing spider-man\"."),
                    Parameter("year", type: .integer(1870...2100), valueName: "YEAR", help: "Only movies released in this year."),
                ]),
            ProviderOperation(name: "popular", summary: "The movies TMDb currently ranks as most popular.", itemKind: "movie"),
            ProviderOperation(
                name: "movie",
                summary: "One movie with its details, director(s) and cast; the text view lists the first \(TMDbTextView.defaultCastLines) cast members, or --limit N of them.",
                itemKind: "movie",
                parameters: [
                    Parameter("id", style: .positional, type: .integer(1...999_999_999), required: true, valueName: "ID", help: "TMDb's movie id, e.g. 1930.")
                ]),
        ],
        examples: [
            ProviderExample(["tmdb", "search", "the amazing spider-man"], "The original tutorial's search: both Amazing Spider-Man films."),
            ProviderExample(["tmdb", "movie", "1930"], "The Amazing Spider-Man with its director and cast, as the original tutorial's movie JSON shows it."),
            ProviderExample(["tmdb", "popular", "--limit", "25"], "The 25 most popular movies: page 1, then page 2 once page 1 tells total_pages."),
            ProviderExample(["tmdb", "search", "leon", "--year", "1994"], "Accent-insensitive search limited to one year: finds Léon."),
        ])

    public init() {}

    /// The operations, as named in the descriptor.
    enum Operation: String {
        case search
        case popular
        case movie
    }

    /// Which credential a run sends, chosen in ``configure(_:)``.
    enum Auth: String {
        case accessToken
        case apiKey

        var variable: String { self == .accessToken ? "TMDB_ACCESS_TOKEN" : "TMDB_API_KEY" }
    }

    /// Keys of `Query.state`.
    enum StateKey {
        static let auth = "auth"
        static let tokenLooksLikeAPIKey = "tokenLooksLikeAPIKey"
        static let posterBase = "posterBase"
    }

    /// The key of the `/configuration` body in the run's cache.
    static let configurationCacheKey = "tmdb.configuration"

    // MARK: Stages

    public func configure(_ query: inout Query) throws {
        if let token = query.environmentValue("TMDB_ACCESS_TOKEN") {
            query.state[StateKey.auth] = Auth.accessToken.rawValue
            if Self.looksLikeAPIKey(token) { query.state[StateKey.tokenLooksLikeAPIKey] = "true" }
        } else if query.environmentValue("TMDB_API_KEY") != nil {
            query.state[StateKey.auth] = Auth.apiKey.rawValue
        } else {
            throw AggregateError(
                .config,
                "no credentials: set TMDB_ACCESS_TOKEN (API Read Access Token, preferred) or TMDB_API_KEY (v3 API key), or use --offline to see sample data")
        }
    }

    /// Reads the image base from `/configuration` once per run (shared through the run's cache); offline runs use
    /// TMDb's documented base and the `w500` size without asking.
    public func resolve(_ query: inout Query, using client: FetchClient) async throws {
        guard query.source == .live else {
            query.state[StateKey.posterBase] = TMDbImages.defaultPosterBase
            return
        }
        let request = HTTPRequestSpec(url: query.baseURL.appendingEndpoint("/configuration"), credential: credential(query))
        let configuration = try await client.cache.value(for: Self.configurationCacheKey) {
            try await client.send(request).json()
        }
        query.state[StateKey.posterBase] = TMDbImages.posterBase(fromConfiguration: configuration)
    }

    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        let page = cursor ?? "1"
        let url: URL
        switch operation(query) {
        case .search:
            var items = [("query", query.string("query") ?? "")]
            if let year = query.string("year") { items.append(("year", year)) }
            items.append(("page", page))
            url = query.baseURL.appendingEndpoint("/search/movie").appendingQuery(items)
        case .popular:
            url = query.baseURL.appendingEndpoint("/movie/popular").appendingQuery([("page", page)])
        case .movie:
            url = query.baseURL.appendingEndpoint("/movie/\(query.string("id") ?? "")").appendingQuery([("append_to_response", "credits")])
        }
        return HTTPRequestSpec(url: url, credential: credential(query))
    }

    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        let posterBase = query.state[StateKey.posterBase] ?? TMDbImages.defaultPosterBase
        switch operation(query) {
        case .search, .popular:
            let requested = page.url?.queryValue("page").flatMap(Int.init) ?? 1
            return try TMDbNormalizer.listPage(page.json(), requestedPage: requested, imageBase: posterBase)
        case .movie:
            return try TMDbNormalizer.details(page.json(), imageBase: posterBase)
        }
    }

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        TMDbErrors.error(for: response, context: TMDbErrorContext(
            operation: query.operation, movieID: query.string("id"),
            credentialVariable: (query.state[StateKey.auth].flatMap(Auth.init(rawValue:)))?.variable,
            tokenLooksLikeAPIKey: query.state[StateKey.tokenLooksLikeAPIKey] == "true"))
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        if result.operation == Operation.movie.rawValue {
            // The first 10 cast members, unless --limit asks for another number.
            let castLines = result.explicitLimit ?? TMDbTextView.defaultCastLines
            return result.items.map { TMDbTextView.detail($0, castLines: castLines, style: style) }.joined(separator: "\n")
        }
        return result.items.map { TMDbTextView.listLine($0, style: style) + "\n" }.joined()
    }

    // MARK: Helpers

    private func operation(_ query: Query) -> Operation { Operation(rawValue: query.operation) ?? .search }

    /// The credential chosen in ``configure(_:)``: the token as a bearer, else the key as `api_key`.
    private func credential(_ query: Query) -> Credential? {
        switch query.state[StateKey.auth].flatMap(Auth.init(rawValue:)) {
        case .accessToken?: return query.environmentValue("TMDB_ACCESS_TOKEN").map(Credential.bearer)
        case .apiKey?: return query.environmentValue("TMDB_API_KEY").map { .queryParameter(name: "api_key", value: $0) }
        case nil: return nil
        }
    }

    /// Whether `value` has the shape of a v3 API key (32 hex digits) rather than a read access token (a JWT).
    static func looksLikeAPIKey(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        return trimmed.count == 32 && trimmed.allSatisfy(\.isHexDigit)
    }
}
