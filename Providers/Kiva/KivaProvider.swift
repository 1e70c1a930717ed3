public import AggregateCore
import Foundation

/// Kiva microloans: the newest fundraising loans and loan search, from Kiva's current GraphQL API
/// (`POST /graphql`, `lend { loans }`) or its legacy REST API v1 (`/v1/loans/newest.json`, `/v1/loans/search.json`).
///
/// Public loan data needs no credentials. `KIVA_APP_ID` is optional: REST v1 sends it as `app_id=` and grants
/// registered applications a higher rate limit.
public struct KivaProvider: Provider, ProviderTextView {
    public static let descriptor = ProviderDescriptor(
        name: "kiva",
        displayName: "Kiva",
        summary: "Kiva microloans: the newest fundraising loans and loan search (GraphQL, or the legacy REST API v1).",
        docsURL: "https://build.kiva.org/docs/",
        defaultBaseURL: "https://api.kivaws.org",
        auth: [
            AuthVariable(
                "KIVA_APP_ID",
                usage: "Optional, and not a secret: your application's id in reverse-DNS form (e.g. org.example.loans), sent as the app_id= query parameter to REST v1, where registered applications get 500 instead of 60 requests a minute. No credentials are needed for public loan data.")
        ],
        authStyle: "none for public data (optional app_id= for REST v1)",
        paginationStyle: "20 loans a page, fetched concurrently: offset/limit with totalCount (GraphQL) or page numbers with paging.pages (REST v1)",
        options: [
            Parameter(
                "api", type: .choice(KivaAPI.allCases.map(\.rawValue)), default: KivaAPI.graphql.rawValue, valueName: "API",
                help: "Which API to call: Kiva's current GraphQL API, or the legacy REST API v1.")
        ],
        operations: [
            ProviderOperation(name: "newest", summary: "The most recent fundraising loans, newest first.", itemKind: "loan"),
            ProviderOperation(
                name: "search", summary: "Loans matching words and filters, newest first.", itemKind: "loan",
                parameters: [
                    Parameter("query", valueName: "TEXT", help: "Words to look for in the loans (GraphQL queryString, REST q=)."),
                    Parameter("sector", type: .choice(KivaSearch.sectors), valueName: "NAME", help: "Only loans in this sector."),
                    Parameter("country", valueName: "CODE", help: "Only loans in this country: a two-letter ISO 3166 code such as KE."),
                    Parameter("gender", type: .choice(["female", "male"]), valueName: "GENDER", help: "Only loans with borrowers of this gender."),
                    Parameter(
                        "status", type: .choice(KivaSearch.Status.allCases.map(\.rawValue)), default: KivaSearch.Status.fundraising.rawValue,
                        valueName: "STATUS", help: "Only loans in this state."),
                ]),
        ],
        examples: [
            ProviderExample(["kiva", "newest", "--limit", "8"], "The eight most recent fundraising loans (the original tutorial's exercise)."),
            ProviderExample(
                ["kiva", "search", "--sector", "agriculture", "--gender", "female", "--limit", "5"],
                "Fundraising agriculture loans to women, newest first, through the GraphQL API."),
            ProviderExample(["kiva", "newest", "--api", "rest", "--limit", "5"], "The newest loans through the legacy REST API v1."),
            ProviderExample(
                ["kiva", "search", "--status", "paid", "--api", "rest"],
                "Repaid loans through REST v1, including records in the older 2009, 2014, 2015 and 2017 shapes."),
        ])

    public init() {}

    public func configure(_ query: inout Query) throws {
        let api = KivaAPI(rawValue: query.string("api") ?? "") ?? .graphql
        query.state["api"] = api.rawValue
        if let text = query.string("country") {
            guard let code = KivaSearch.countryCode(text) else {
                throw AggregateError(.usage, "--country must be a two-letter ISO 3166 country code such as KE, not '\(text)'")
            }
            query.state["country"] = code
            query.parameters["country"] = .string(code)
        }
    }

    /// For a GraphQL search by sector, looks up the sector's id: Kiva's GraphQL filter takes ids, the command line names.
    public func resolve(_ query: inout Query, using client: FetchClient) async throws {
        guard Self.api(query) == .graphql, query.operation == "search", let sector = query.string("sector") else { return }
        let request = KivaRequests.graphQLSectors(baseURL: query.baseURL)
        // Once per run and server: `compare` may run several searches that share the run's cache.
        let sectors = try await client.cache.value(for: "kiva.sectors " + query.baseURL.absoluteString) {
            try KivaNormalizer.graphQLSectors(try await client.send(request).json())
        }
        guard let id = KivaNormalizer.sectorID(named: sector, in: sectors) else {
            let names = sectors.array?.compactMap { $0["name"]?.string }.joined(separator: ", ") ?? ""
            throw AggregateError(.notFound, "Kiva's GraphQL API knows no sector named '\(sector)' (its sectors: \(names))")
        }
        query.state["sectorId"] = String(id)
    }

    public func request(for query: Query, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
        let page = max(1, cursor.flatMap { Int($0) } ?? 1)
        switch Self.api(query) {
        case .graphql: return KivaRequests.graphQLLoans(query, page: page)
        case .rest: return KivaRequests.restLoans(query, page: page)
        }
    }

    public func normalize(_ page: RawPage, for query: Query) throws -> Page {
        switch Self.api(query) {
        case .graphql: return try KivaNormalizer.graphQLLoans(page.json(), pageSize: KivaRequests.graphQLPageSize(for: query))
        case .rest: return try KivaNormalizer.restLoans(page.json())
        }
    }

    public func error(for response: HTTPResponse, query: Query) -> AggregateError {
        KivaErrors.error(for: response, api: Self.api(query), hasAppID: query.environmentValue("KIVA_APP_ID") != nil)
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        result.items.map { KivaText.line(for: $0, style: style) + "\n" }.joined()
    }

    /// The API chosen in ``configure(_:)``.
    static func api(_ query: Query) -> KivaAPI { KivaAPI(rawValue: query.state["api"] ?? "") ?? .graphql }
}

/// The two APIs Kiva speaks.
enum KivaAPI: String, CaseIterable {
    /// `POST /graphql`, `lend { loans(...) }`: the current API.
    case graphql
    /// `GET /v1/loans/*.json`: the legacy API, still the shape of much recorded data.
    case rest
}
