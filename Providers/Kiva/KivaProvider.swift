public import AggregateCore
public import AggregateJSON
import Foundation

/// Kiva microloans: the newest fundraising loans and loan search, from Kiva's current GraphQL API
/// (`POST /graphql`, `lend { loans }`) or its legacy REST API v1 (`/v1/loans/newest.json`, `/v1/loans/search.json`).
///
/// Public loan data needs no credentials. `KIVA_APP_ID` is optional: REST v1 sends it as `app_id=` and grants
/// registered applications a higher rate limit.
public struct KivaProvider: Provider, ProviderTextView {
    static let api = ParameterKey<KivaAPI>(
        "api", default: KivaAPI.graphql.rawValue, valueName: "API", help: "Which API to call: Kiva's current GraphQL API, or the legacy REST API v1.")
    static let text = ParameterKey<String>("query", valueName: "TEXT", help: "Words to look for in the loans (GraphQL queryString, REST q=).")
    static let sector = ParameterKey<String>("sector", type: .choice(KivaSearch.sectors), valueName: "NAME", help: "Only loans in this sector.")
    static let country = ParameterKey<String>("country", valueName: "CODE", help: "Only loans in this country: a two-letter ISO 3166 code such as KE.")
    static let gender = ParameterKey<String>("gender", type: .choice(["female", "male"]), valueName: "GENDER", help: "Only loans with borrowers of this gender.")
    static let status = ParameterKey<KivaSearch.Status>(
        "status", default: KivaSearch.Status.fundraising.rawValue, valueName: "STATUS", help: "Only loans in this state.")

    /// The descriptor's name, stated without making the descriptor.
    public static let providerName = "kiva"

    public static let descriptor = ProviderDescriptor(
        name: "kiva",
        displayName: "Kiva",
        summary: "Kiva microloans: the newest fundraising loans and loan search (GraphQL, or the legacy REST API v1).",
        docsURL: "https://build.kiva.org/docs/",
        defaultBaseURL: "https://api.kivaws.org",
        auth: [
            AuthVariable(
                "KIVA_APP_ID",
                usage: "Optional, and not a secret: your application's id in reverse-DNS form (e.g. org.example.loans), sent as the app_id= query parameter to REST v1, where registered applications get 500 instead of 60 requests a minute. No credentials are needed for public loan data.",
                // Not a secret, but sent like one so that it only ever goes to Kiva's own origin.
                sent: .queryParameter("app_id"))
        ],
        authStyle: "none for public data (optional app_id= for REST v1)",
        paginationStyle: "20 loans a page, fetched concurrently: offset/limit with totalCount (GraphQL) or page numbers with paging.pages (REST v1)",
        options: [api.declaration],
        operations: [
            ProviderOperation(
                name: "newest", summary: "The most recent fundraising loans, newest first.", itemKind: "loan",
                cost: RequestCost(pageSize: KivaRequests.pageSize)),
            ProviderOperation(
                name: "search", summary: "Loans matching words and filters, newest first.", itemKind: "loan",
                declaring: [text, sector, country, gender, status],
                // GraphQL looks the sector's id up first.
                cost: RequestCost(pageSize: KivaRequests.pageSize, lookups: 1)),
        ],
        cacheFreshness: CacheFreshness(operations: ["newest": 120, "search": 600]),
        examples: [
            ProviderExample(["kiva", "newest", "--limit", "8"], "The eight most recent fundraising loans (the original tutorial's exercise)."),
            ProviderExample(
                ["kiva", "search", "--sector", "agriculture", "--gender", "female", "--limit", "5"],
                "Fundraising agriculture loans to women, newest first, through the GraphQL API."),
            ProviderExample(["kiva", "newest", "--api", "rest", "--limit", "5"], "The newest loans through the legacy REST API v1."),
            ProviderExample(
                ["kiva", "search", "--status", "paid", "--api", "rest"],
                "Repaid loans through REST v1, including records in the older 2009, 2014, 2015 and 2017 shapes."),
        ],
        // REST v1's published limits per address; GraphQL publishes none.
        rateBudgets: [
            RateBudget("rest", requests: 500, per: 60, paths: ["/v1/**"], whenSet: "KIVA_APP_ID"),
            RateBudget("rest", requests: 60, per: 60, paths: ["/v1/**"]),
        ],
        metrics: ["loanAmount", "fundedAmount", "percentFunded", "borrowerCount", "lenderCount"])

    public init() {}

    /// What a run decided: the API, the checked country code, and (GraphQL) the sector's id.
    public struct Plan: Sendable {
        var api: KivaAPI
        var country: String?
        var sectorID: Int?
    }

    public func plan(for query: Query, credentials: Credentials) throws -> Plan {
        var plan = Plan(api: query[Self.api] ?? .graphql)
        if let text = query[Self.country] {
            guard let code = KivaSearch.countryCode(text) else {
                throw AggregateError(.usage, "--country must be a two-letter ISO 3166 country code such as KE, not '\(text)'")
            }
            plan.country = code
        }
        return plan
    }

    /// The JSON output echoes the country code as sent.
    public func echo(_ plan: Plan, into parameters: inout JSONObject) { parameters.set("country", plan.country.map(JSONValue.string)) }

    /// For a GraphQL search by sector, looks up the sector's id: Kiva's GraphQL filter takes ids, the command line names.
    public func resolve(_ plan: inout Plan, for query: Query, using client: FetchClient) async throws {
        guard plan.api == .graphql, let sector = query[Self.sector] else { return }
        let request = KivaRequests.graphQLSectors(baseURL: query.baseURL)
        // Once per run and server: `compare` may run several searches that share the run's cache.
        let sectors = try await client.cache.value(for: "kiva.sectors " + query.baseURL.absoluteString) {
            try KivaNormalizer.graphQLSectors(try await client.send(request).json())
        }
        guard let id = KivaNormalizer.sectorID(named: sector, in: sectors) else {
            let names = sectors.array?.compactMap { $0["name"]?.string }.joined(separator: ", ") ?? ""
            throw AggregateError(.notFound, "Kiva's GraphQL API knows no sector named '\(sector)' (its sectors: \(names))")
        }
        plan.sectorID = id
    }

    /// REST v1 sends the app id, trimmed; GraphQL sends nothing.
    public func credential(for plan: Plan, from credentials: Credentials) -> ResolvedCredential? {
        guard plan.api == .rest, var appID = credentials.first else { return nil }
        appID.value = appID.value.trimmingCharacters(in: .whitespaces)
        return appID
    }

    public func operation(named name: String, plan: Plan) -> any APIOperation<Plan> {
        plan.api == .graphql ? KivaRequests.GraphQLLoans(isSearch: name == "search") : KivaRequests.RESTLoans(isSearch: name == "search")
    }

    public func renderText(_ result: ProviderResult, style: TextStyle) -> String {
        result.items.map { KivaText.line(for: $0, style: style) + "\n" }.joined()
    }
}

/// The two APIs Kiva speaks.
public enum KivaAPI: String, ParameterChoice, Sendable {
    /// `POST /graphql`, `lend { loans(...) }`: the current API.
    case graphql
    /// `GET /v1/loans/*.json`: the legacy API, still the shape of much recorded data.
    case rest
}
