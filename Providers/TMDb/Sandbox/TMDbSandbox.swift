public import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
import Foundation

/// TMDb's part of the sandbox: `GET /configuration`, `/search/movie`, `/movie/popular`, `/movie/{id}` (with
/// `append_to_response=credits`) and `/movie/{id}/credits`, over the catalogue in `SampleData/movies.json`.
/// Paths are accepted with or without the API's `/3` version prefix.
public enum TMDbSandbox: RoutedSandbox {
    public static let providerName = "tmdb"

    /// The credentials the sandbox accepts: a read access token (JWT-shaped) and a v3 key (32 hex digits).
    public static let sandboxEnvironment = [
        "TMDB_ACCESS_TOKEN": TMDbSandbox.accessToken,
        "TMDB_API_KEY": TMDbSandbox.apiKey,
    ]

    /// API v3 without its `/3` prefix (``sandboxResponse(for:context:)`` drops it, and answers HEAD as GET); any
    /// other path below `/movie` or `/search` is TMDb's 404 (without authentication), and any other method TMDb's 405.
    public static let routes = SandboxRoutes(
        [
            SandboxRoute("GET", "/configuration", checked([]) { _, _ in .json(configuration, headers: headers) }),
            SandboxRoute("GET", "/search/movie", checked(searchRules, search)),
            SandboxRoute("GET", "/movie/popular", checked([language, region], popular)),
            SandboxRoute("GET", "/movie/*", checked([language], details)),
            SandboxRoute("GET", "/movie/*/credits", checked([language], credits)),
            SandboxRoute("GET", "/movie/**") { _, _, _ in notFound() },
            SandboxRoute("GET", "/search/**") { _, _, _ in notFound() },
        ],
        methodNotAllowed: { _ in statusError(405, code: 42, "The request method is not supported for this resource.") })

    /// API v3, with or without its `/3` prefix, at the sandbox's root.
    public static let sandboxPaths: [PathPattern] = ["/3/**", "/configuration", "/movie/**", "/search/**"]

    /// The route for the path without `/3`; under `/3`, a path no route knows is TMDb's 404 (or 405).
    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        var unversioned = request
        let versioned = request.path == "/3" || request.path.hasPrefix("/3/")
        if versioned { unversioned.path.removeFirst(2) }
        if request.method == "HEAD" { unversioned.method = "GET" }
        if let response = routes.respond(to: unversioned, context: context) { return response }
        guard versioned else { return nil }
        return unversioned.method == "GET" ? notFound() : routes.methodNotAllowed(request)
    }

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        faultResponse(status: status)
    }

    /// TMDb's fixed page size, and the last page it serves of any list.
    static let pageSize = 20
    static let lastServedPage = 500

    static let accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJhZ2dyZWdhdGUtc2FuZGJveCIsInNjb3BlcyI6WyJhcGlfcmVhZCJdfQ.c2FuZGJveC1zaWduYXR1cmU"
    static let apiKey = "5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c"

    /// The sandbox setting that makes the popular list shift between page requests, as TMDb's live list does:
    /// with `tmdb.popular-drift=N`, each page after the first starts N places earlier, repeating N movies.
    static let popularDriftSetting = "tmdb.popular-drift"

    /// The catalogue: details bodies with `credits`, parsed once.
    static let movies: [JSONValue] = (try? JSONParser().parse(TMDbSampleData.moviesJSON))?.array ?? []
    static let moviesByID: [String: JSONValue] = Dictionary(
        movies.compactMap { movie in movie["id"]?.idString.map { ($0, movie) } }, uniquingKeysWith: { first, _ in first })
    static let configuration: JSONValue = (try? JSONParser().parse(TMDbSampleData.configurationJSON)) ?? [:]

    /// What lists need from each movie, computed once rather than per request: the popularity as a decimal and
    /// the movie in list form. Search's folded title words are ``titles``, made by the first search only (folding
    /// starts up ICU's locale data, which a list does not need).
    struct IndexedMovie: Sendable {
        var listForm: JSONValue
        var releaseDate: String
        var popularity: Decimal
        var id: Int
        /// The position in ``movies`` (and ``titles``).
        var position: Int
    }

    static let index: [IndexedMovie] = (listFields() ?? movies).enumerated().map { position, movie in
        IndexedMovie(
            listForm: listResult(movie), releaseDate: movie["release_date"]?.string ?? "",
            popularity: movie["popularity"]?.decimalWithoutLocale ?? 0, id: movie["id"]?.int ?? 0, position: position)
    }

    /// The fields of a catalogue record that ``listResult(_:)`` reads.
    static let listFieldNames: Set<String> = [
        "adult", "backdrop_path", "genres", "id", "original_language", "original_title", "overview", "popularity",
        "poster_path", "release_date", "title", "video", "vote_average", "vote_count",
    ]

    /// Each movie of the catalogue with only ``listFieldNames``, read from its text with the rest (credits, most of
    /// the bytes) skipped rather than parsed: a list needs no more, and the whole catalogue is parsed (``movies``)
    /// only for details, credits and search. `nil` if the text is not an array of objects (never: then ``movies``).
    static func listFields() -> [JSONValue]? {
        let text = Data(TMDbSampleData.moviesJSON.utf8)
        let reader = JSONEventReader(data: text, chunkSize: text.count)
        do throws(JSONParseError) {
            guard try reader.nextToken() == .arrayStart else { return nil }
            var records: [JSONValue] = []
            while let token = try reader.nextToken(), token != .arrayEnd {
                guard token == .objectStart else { return nil }
                var fields: [JSONObject.Member] = []
                while let token = try reader.nextToken(), token != .objectEnd {
                    guard token == .key else { return nil }
                    let key = try reader.text()
                    if listFieldNames.contains(key) { fields.append(JSONObject.Member(key, try reader.readValue())) } else { try reader.skipValue() }
                }
                records.append(.object(JSONObject(fields)))
            }
            return records
        } catch {
            return nil
        }
    }

    /// Per movie of ``movies``, its title and original title as folded words and folded text, for search.
    static let titles: [[(words: [String], folded: String)]] = movies.map { movie in
        [movie["title"]?.string, movie["original_title"]?.string].compactMap { $0 }.map { title in
            (words: SandboxText.words(title, widthInsensitive: true), folded: SandboxText.fold(title, widthInsensitive: true))
        }
    }

    /// The catalogue, most popular first.
    static let byPopularity: [IndexedMovie] = index.sorted(by: isMorePopular)

    static let headers: HTTPHeaders = ["Content-Type": "application/json;charset=utf-8"]

    static let memo = SandboxResponseMemo()

    // MARK: Checks

    /// A route that answers only requests with the sandbox's token (Bearer) or key (`api_key`) whose documented
    /// parameters follow `rules`. Past those checks, answers depend only on the route, the query and the drift
    /// setting, so repeats reuse them.
    static func checked(
        _ rules: [ParameterRule], _ answer: @escaping @Sendable (SandboxRequest, SandboxContext) throws(SandboxExit) -> SandboxResponse
    ) -> SandboxRoute.Handler {
        { request, context, _ in
            if request.headers["Authorization"] != nil {
                try request.requireBearer(accessToken) { _ in invalidKey() }
            } else {
                try request.requireKey("api_key", apiKey) { _ in invalidKey() }
            }
            if let rule = rules.first(where: { request.queryValue($0.name).map($0.isValid) == false }) {
                return statusError(400, code: 47, "The input is not valid: \(rule.name) '\(request.queryValue(rule.name) ?? "")'.")
            }
            let key = SandboxResponseMemo.key(request, extra: [context.settings[popularDriftSetting] ?? ""])
            return memo.answer(for: key) { () throws(SandboxExit) in try answer(request, context) }
        }
    }

    /// A value rule TMDb documents for a parameter, answered with its "invalid input" error (HTTP 400,
    /// `status_code` 47). `query` and `page` keep their own documented answers, and parameters TMDb does not
    /// document are ignored, as TMDb does.
    typealias ParameterRule = (name: String, isValid: @Sendable (String) -> Bool)

    /// ISO 639-1, optionally with an ISO 3166-1 region: `en`, `en-US`, `pt-BR`.
    static let language: ParameterRule = ("language", { $0.wholeMatch(of: #/[a-z]{2}(-[A-Z]{2})?/#) != nil })
    /// An upper-case ISO 3166-1 code.
    static let region: ParameterRule = ("region", { $0.wholeMatch(of: #/[A-Z]{2}/#) != nil })
    static let searchRules: [ParameterRule] = [
        language, region, ("include_adult", { $0 == "true" || $0 == "false" }),
        ("year", { $0.wholeMatch(of: #/[0-9]{4}/#) != nil }), ("primary_release_year", { $0.wholeMatch(of: #/[0-9]{4}/#) != nil }),
    ]

    // MARK: Endpoints

    static func search(_ request: SandboxRequest, _ context: SandboxContext) throws(SandboxExit) -> SandboxResponse {
        guard let text = request.queryValue("query"), !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .json(["errors": ["query must be provided"]], status: 422, headers: headers)
        }
        let page = try request.integer("page", default: 1, in: 1...lastServedPage) { _ in invalidPage() }
        let year = request.queryValue("year").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return listPage(matches(text, year: year), page: page)
    }

    static func popular(_ request: SandboxRequest, _ context: SandboxContext) throws(SandboxExit) -> SandboxResponse {
        let page = try request.integer("page", default: 1, in: 1...lastServedPage) { _ in invalidPage() }
        let drift = context.settings[popularDriftSetting].flatMap(Int.init).map { min(max(0, $0), pageSize - 1) } ?? 0
        return listPage(byPopularity, page: page, drift: drift)
    }

    static func details(_ request: SandboxRequest, _ context: SandboxContext) -> SandboxResponse {
        guard let movie = moviesByID[request.path.split(separator: "/").last.map(String.init) ?? ""] else { return notFound() }
        let appended = (request.queryValue("append_to_response") ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard appended.count <= 20 else {
            return statusError(400, code: 27, "Too many append to response objects: The maximum number of remote calls is 20.")
        }
        guard case .object(var body) = movie else { return notFound() }
        let credits = body["credits"]
        body["credits"] = nil
        if appended.contains("credits") {
            // Appended credits carry only cast and crew; the id is the movie's own.
            body["credits"] = ["cast": credits?["cast"] ?? [], "crew": credits?["crew"] ?? []]
        }
        return .json(.object(body), headers: headers)
    }

    static func credits(_ request: SandboxRequest, _ context: SandboxContext) -> SandboxResponse {
        guard let movie = moviesByID[request.path.split(separator: "/").dropLast().last.map(String.init) ?? ""] else { return notFound() }
        let credits = movie["credits"]
        return .json(["id": movie["id"] ?? .null, "cast": credits?["cast"] ?? [], "crew": credits?["crew"] ?? []], headers: headers)
    }

    // MARK: Pages

    /// Page `page` of `movies` in list form. `drift` makes later pages start earlier (see ``popularDriftSetting``).
    static func listPage(_ movies: [IndexedMovie], page: Int, drift: Int = 0) -> SandboxResponse {
        let slice = SandboxPaging.slice(movies, offset: SandboxNumbers.product(page - 1, pageSize - drift), limit: pageSize)
        return .json([
            "page": .int(page),
            "results": .array(slice.map(\.listForm)),
            // An empty result still says total_pages 1, as TMDb's live search does.
            "total_pages": .int(max(1, SandboxPaging.pageCount(movies.count, size: pageSize))),
            "total_results": .int(movies.count),
        ], headers: headers)
    }

    /// A catalogue record as list endpoints show it: `genre_ids` instead of `genres`, no details, no credits.
    static func listResult(_ movie: JSONValue) -> JSONValue {
        [
            "adult": movie["adult"] ?? false,
            "backdrop_path": movie["backdrop_path"] ?? .null,
            "genre_ids": .array((movie["genres"]?.array ?? []).compactMap { $0["id"] }),
            "id": movie["id"] ?? .null,
            "original_language": movie["original_language"] ?? .null,
            "original_title": movie["original_title"] ?? .null,
            "overview": movie["overview"] ?? "",
            "popularity": movie["popularity"] ?? 0,
            "poster_path": movie["poster_path"] ?? .null,
            "release_date": movie["release_date"] ?? "",
            "title": movie["title"] ?? .null,
            "video": movie["video"] ?? false,
            "vote_average": movie["vote_average"] ?? 0,
            "vote_count": movie["vote_count"] ?? 0,
        ]
    }

    // MARK: Search

    /// Movies whose title or original title holds every word of `text` (each word starting a title word, or
    /// anywhere in titles written without spaces), case- and accent-insensitively; best matches first.
    static func matches(_ text: String, year: Int?) -> [IndexedMovie] {
        let wanted = SandboxText.words(text, widthInsensitive: true)
        guard !wanted.isEmpty else { return [] }
        let yearPrefix = year.map(String.init)
        let ranked = index.compactMap { movie -> (movie: IndexedMovie, rank: Int)? in
            if let yearPrefix, !movie.releaseDate.hasPrefix(yearPrefix) { return nil }
            let ranks = titles[movie.position].compactMap { rank(titleWords: $0.words, folded: $0.folded, wanted: wanted) }
            return ranks.min().map { (movie, $0) }
        }
        return ranked.sorted { $0.rank != $1.rank ? $0.rank < $1.rank : isMorePopular($0.movie, $1.movie) }.map(\.movie)
    }

    /// 0 for the whole title, 1 when the title starts with the words, 2 for any other match, `nil` for none.
    static func rank(titleWords: [String], folded: String, wanted: [String]) -> Int? {
        let all = wanted.allSatisfy { word in
            titleWords.contains { $0.hasPrefix(word) } || (word.unicodeScalars.contains(where: isSpacelessScript) && folded.contains(word))
        }
        guard all else { return nil }
        if titleWords == wanted { return 0 }
        let startsWithWords = titleWords.count >= wanted.count && zip(titleWords, wanted).allSatisfy { $0.hasPrefix($1) }
        return startsWithWords ? 1 : 2
    }

    /// Scripts written without spaces between words (Han, kana), where a word can only be found as a substring.
    static func isSpacelessScript(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: return true
        default: return false
        }
    }

    static func isMorePopular(_ first: IndexedMovie, _ second: IndexedMovie) -> Bool {
        if first.popularity != second.popularity { return first.popularity > second.popularity }
        return first.id < second.id
    }

    // MARK: Errors

    /// TMDb's error envelope.
    static func statusError(_ status: Int, code: Int, _ message: String) -> SandboxResponse {
        .json(["success": false, "status_code": .int(code), "status_message": .string(message)], status: status, headers: headers)
    }

    static func invalidKey() -> SandboxResponse {
        statusError(401, code: 7, "Invalid API key: You must be granted a valid key.")
    }

    static func invalidPage() -> SandboxResponse {
        statusError(400, code: 22, "Invalid page: Pages start at 1 and max at 500. They are expected to be an integer.")
    }

    /// The 404 body, without `success`, as it has been captured from the live API.
    static func notFound() -> SandboxResponse {
        .json(["status_code": 34, "status_message": "The resource you requested could not be found."], status: 404, headers: headers)
    }

    /// The body an injected fault carries: TMDb's envelope with the code TMDb documents for that status.
    static func faultResponse(status: Int) -> SandboxResponse {
        switch status {
        case 401: return invalidKey()
        case 404: return notFound()
        case 429: return statusError(429, code: 25, "Your request count (#) is over the allowed limit of (40).")
        case 502: return statusError(502, code: 43, "Couldn't connect to the backend server.")
        case 503: return statusError(503, code: 46, "The API is undergoing maintenance. Try again later.")
        case 504: return statusError(504, code: 24, "Your request to the backend server timed out. Try again.")
        case 400: return statusError(400, code: 47, "The input is not valid.")
        default: return statusError(status, code: 11, "Internal error: Something went wrong, contact TMDb.")
        }
    }
}
