import AggregateCore
import AggregateJSON
import Foundation

/// The search vocabulary shared by both APIs and the command line.
enum KivaSearch {
    /// Kiva's fifteen sectors, as both APIs name them.
    static let sectors = [
        "Agriculture", "Arts", "Clothing", "Construction", "Education", "Entertainment", "Food", "Health", "Housing",
        "Manufacturing", "Personal Use", "Retail", "Services", "Transportation", "Wholesale",
    ]

    /// A loan state the search can filter by, in REST v1's words (the command line's too).
    enum Status: String, ParameterChoice {
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

/// The requests for one page of loans, and the sector lookup.
enum KivaRequests {
    typealias Plan = KivaProvider.Plan

    /// Loans a page. REST v1's page size is fixed at 20; GraphQL asks for pages of the same size so that a
    /// `--limit` costs the same number of requests on either API, and pages can be fetched concurrently.
    static let pageSize = 20

    /// The page number a cursor stands for (1-based).
    static func page(_ cursor: String?) -> Int { max(1, cursor.flatMap { Int($0) } ?? 1) }

    /// `newest` or `search` over GraphQL: `lend { loans }` with offsets that are page numbers times the page size.
    struct GraphQLLoans: APIOperation {
        let isSearch: Bool

        /// The page size for a run: never more than the limit, and the same for every page of the run.
        static func pageSize(_ call: Call<Plan>) -> Int { max(1, min(call.limit, KivaRequests.pageSize)) }

        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            let size = Self.pageSize(call)
            var variables = JSONObject(pairs: [
                "offset": .int((page(cursor) - 1) * size), "limit": .int(size), "filters": .object(filters(call)), "sortBy": "newest",
            ])
            let text = isSearch ? call[KivaProvider.text]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "" : ""
            if !text.isEmpty { variables["queryString"] = .string(text) }
            let body: JSONValue = [
                "operationName": "loans", "query": .string(KivaGraphQL.loans(withQueryString: !text.isEmpty)), "variables": .object(variables),
            ]
            return .postJSON(url: call.url("/graphql"), body: body, isIdempotent: true)
        }

        /// `newest` is every fundraising loan; `search` adds the chosen filters.
        func filters(_ call: Call<Plan>) -> JSONObject {
            guard isSearch else { return JSONObject(pairs: ["status": .string(KivaSearch.Status.fundraising.graphQLFilter)]) }
            var filters = JSONObject(pairs: ["status": .string((call[KivaProvider.status] ?? .fundraising).graphQLFilter)])
            filters.set("gender", call[KivaProvider.gender].map(JSONValue.string))
            filters.set("country", call.plan.country.map { [.string($0)] })
            filters.set("sector", call.plan.sectorID.map { [.int($0)] })
            return filters
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page {
            try KivaNormalizer.graphQLLoans(response.json(), pageSize: Self.pageSize(call))
        }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? {
            KivaErrors.error(for: response, api: .graphql, hasAppID: false)
        }
    }

    /// `GET /v1/loans/newest.json` or `/v1/loans/search.json`.
    struct RESTLoans: APIOperation {
        let isSearch: Bool

        func request(_ call: Call<Plan>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            guard isSearch else { return HTTPRequestSpec(url: call.url("/v1/loans/newest.json", [("page", String(page(cursor)))])) }
            let text = call[KivaProvider.text]?.trimmingCharacters(in: .whitespacesAndNewlines)
            return HTTPRequestSpec(url: call.url("/v1/loans/search.json", [
                ("q", text?.isEmpty == false ? text : nil), ("sector", call[KivaProvider.sector]), ("country_code", call.plan.country),
                ("gender", call[KivaProvider.gender]), ("status", (call[KivaProvider.status] ?? .fundraising).rawValue),
                ("sort_by", "newest"), ("page", String(page(cursor))),
            ]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Plan>) throws -> Page { try KivaNormalizer.restLoans(response.json()) }

        func error(for response: HTTPResponse, _ call: Call<Plan>) -> AggregateError? {
            KivaErrors.error(for: response, api: .rest, hasAppID: call.credential != nil)
        }
    }

    /// The lookup of sector ids by name (`lend { sector { id name } }`), as Kiva's own web client does it.
    static func graphQLSectors(baseURL: URL) -> HTTPRequestSpec {
        .postJSON(
            url: baseURL.appendingEndpoint("/graphql"),
            body: ["operationName": "sectors", "query": .string(KivaGraphQL.sectors), "variables": [:]], isIdempotent: true)
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
                    image { id hash url(customSize: "\(KivaLinks.imageSize)") }
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
