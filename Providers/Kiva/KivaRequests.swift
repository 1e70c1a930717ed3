import AggregateCore
import Foundation

/// The search vocabulary shared by both APIs and the command line.
enum KivaSearch {
    /// Kiva's fifteen sectors, as both APIs name them.
    static let sectors = [
        "Agriculture", "Arts", "Clothing", "Construction", "Education", "Entertainment", "Food", "Health", "Housing",
        "Manufacturing", "Personal Use", "Retail", "Services", "Transportation", "Wholesale",
    ]

    /// A loan state the search can filter by, in REST v1's words (the command line's too).
    enum Status: String, CaseIterable {
        case fundraising
        case funded
        case inRepayment = "in_repayment"
        case paid
        case defaulted

        /// The value of GraphQL's `filters.status`. Public clients confirm `fundraising`; the others follow the
        /// loan status names of the current schema (`payingBack`, `ended`).
        var graphQLFilter: String {
            switch self {
            case .fundraising: return "fundraising"
            case .funded: return "funded"
            case .inRepayment: return "payingBack"
            case .paid: return "ended"
            case .defaulted: return "defaulted"
            }
        }
    }

    /// `text` as an upper-case two-letter country code, or `nil` when it is not one.
    static func countryCode(_ text: String) -> String? {
        let code = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 2, code.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else { return nil }
        return code
    }
}

/// Builds the requests for one page of loans, and the sector lookup.
enum KivaRequests {
    /// Loans a page. REST v1's page size is fixed at 20; GraphQL asks for pages of the same size so that a
    /// `--limit` costs the same number of requests on either API, and pages can be fetched concurrently.
    static let pageSize = 20

    /// The GraphQL page size for a run: never more than the limit, and the same for every page of the run
    /// (offsets are page numbers times this size).
    static func graphQLPageSize(for query: Query) -> Int { max(1, min(query.limit, pageSize)) }

    // MARK: GraphQL

    /// The `lend { loans }` request for page `page` (1-based).
    static func graphQLLoans(_ query: Query, page: Int) -> HTTPRequestSpec {
        let size = graphQLPageSize(for: query)
        var variables = JSONObject(pairs: [
            "offset": .int((page - 1) * size), "limit": .int(size), "filters": .object(graphQLFilters(query)), "sortBy": "newest",
        ])
        let text = query.operation == "search" ? query.string("query")?.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        let hasText = !(text ?? "").isEmpty
        if hasText, let text { variables["queryString"] = .string(text) }
        let body: JSONValue = [
            "operationName": "loans", "query": .string(KivaGraphQL.loans(withQueryString: hasText)), "variables": .object(variables),
        ]
        return .postJSON(url: query.baseURL.appendingEndpoint("/graphql"), body: body, isIdempotent: true)
    }

    /// `filters` for `lend.loans`: `newest` is every fundraising loan; `search` adds the chosen filters.
    static func graphQLFilters(_ query: Query) -> JSONObject {
        guard query.operation == "search" else { return JSONObject(pairs: ["status": .string(KivaSearch.Status.fundraising.graphQLFilter)]) }
        var filters = JSONObject()
        let status = KivaSearch.Status(rawValue: query.string("status") ?? "") ?? .fundraising
        filters["status"] = .string(status.graphQLFilter)
        if let gender = query.string("gender") { filters["gender"] = .string(gender) }
        if let country = query.state["country"] { filters["country"] = [.string(country)] }
        if let sector = query.state["sectorId"].flatMap({ Int($0) }) { filters["sector"] = [.int(sector)] }
        return filters
    }

    /// The lookup of sector ids by name (`lend { sector { id name } }`), as Kiva's own web client does it.
    static func graphQLSectors(baseURL: URL) -> HTTPRequestSpec {
        .postJSON(
            url: baseURL.appendingEndpoint("/graphql"),
            body: ["operationName": "sectors", "query": .string(KivaGraphQL.sectors), "variables": [:]], isIdempotent: true)
    }

    // MARK: REST v1

    /// `GET /v1/loans/newest.json` or `/v1/loans/search.json` for page `page`, with `app_id` when KIVA_APP_ID is set.
    static func restLoans(_ query: Query, page: Int) -> HTTPRequestSpec {
        var items: [(String, String)] = []
        let path: String
        if query.operation == "search" {
            path = "/v1/loans/search.json"
            if let text = query.string("query")?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { items.append(("q", text)) }
            if let sector = query.string("sector") { items.append(("sector", sector)) }
            if let country = query.state["country"] { items.append(("country_code", country)) }
            if let gender = query.string("gender") { items.append(("gender", gender)) }
            items.append(("status", query.string("status") ?? KivaSearch.Status.fundraising.rawValue))
            items.append(("sort_by", "newest"))
        } else {
            path = "/v1/loans/newest.json"
        }
        items.append(("page", String(page)))
        // Not a secret, but sent like one so that it only ever goes to Kiva's own host.
        let appID = query.environmentValue("KIVA_APP_ID")?.trimmingCharacters(in: .whitespaces)
        return HTTPRequestSpec(
            url: query.baseURL.appendingEndpoint(path).appendingQuery(items),
            credential: appID.map { .queryParameter(name: "app_id", value: $0) })
    }
}

/// The GraphQL documents the provider sends (fields of the current `lend` schema, as Kiva's web client uses them).
enum KivaGraphQL {
    /// The loans query; `queryString` is declared only when there are words to search for.
    static func loans(withQueryString: Bool) -> String {
        let textVariable = withQueryString ? ", $queryString: String" : ""
        let textArgument = withQueryString ? ", queryString: $queryString" : ""
        return """
            query loans($offset: Int, $limit: Int, $filters: LoanSearchFiltersInput, $sortBy: LoanSearchSortByEnum\(textVariable)) {
              lend {
                loans(offset: $offset, limit: $limit, filters: $filters, sortBy: $sortBy\(textArgument)) {
                  totalCount
                  values {
                    id name status borrowerCount use description fundraisingDate plannedExpirationDate loanAmount
                    geocode { city state latitude longitude country { isoCode name region } }
                    activity { id name } sector { id name } tags
                    loanFundraisingInfo { fundedAmount reservedAmount }
                    image { id hash url(customSize: "\(KivaImages.size)") }
                    lenders(limit: 0) { totalCount }
                    ... on LoanPartner { partnerName themes partner { id } }
                    ... on LoanDirect { trusteeName }
                  }
                }
              }
            }
            """
    }

    /// The sector list.
    static let sectors = "query sectors { lend { sector { id name } } }"
}
