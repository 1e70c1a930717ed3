public import AggregateCore
import Foundation

/// Kiva's part of the sandbox, over the bundled loans in `SampleData/loans.json`:
/// - REST v1: `GET /v1/loans/newest.json`, `/v1/loans/search.json`, `/v1/loans/<ids>.json`, `/v1/templates/images.json`,
///   pages of 20 with `paging`, `X-RateLimit-*` headers (60 a minute, 500 with `app_id`), v1 error bodies;
/// - GraphQL: `POST` (or `GET`) `/graphql` answering `lend { loans(...) }` and `lend { sector }`, with GraphQL
///   errors at HTTP 200 for invalid variables (a bad filter, an unknown sort).
extension KivaSandbox: SandboxProviding {
    public static let providerName = "kiva"

    /// Kiva's public data needs no credentials, and `--offline` sends no app id.
    public static let sandboxEnvironment: [String: String] = [:]

    /// REST v1 and GraphQL, at the sandbox's root.
    public static let sandboxPaths: [SandboxPathPattern] = ["/v1/**", "/graphql"]

    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        let path = request.path
        guard path == "/graphql" || path.hasPrefix("/v1/") else { return nil }
        // REST v1 counts each address's requests in 60-second windows and locks it out past the limit.
        let registered = !(request.queryValue("app_id") ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        let counted = path.hasPrefix("/v1/")
            ? context.countRequest(provider: providerName, budget: registered ? "rest-app" : "rest", limit: registered ? 500 : 60, window: 60) : nil
        if counted?.isExceeded == true { return KivaSandbox.lockout(request) }
        var response = memoized(request)
        if let counted { for (name, value) in KivaSandbox.rateLimitHeaders(request, remaining: counted.remaining) { response.headers[name] = value } }
        return response
    }

    /// Every Kiva answer depends on the method, path, query and body only, so repeated requests reuse it.
    static func memoized(_ request: SandboxRequest) -> SandboxResponse {
        guard request.body.count <= 16 << 10 else { return KivaSandbox.route(request) }
        let key = SandboxResponseMemo.key(request, extra: [String(decoding: request.body, as: UTF8.self)])
        return KivaSandbox.memo.response(for: key) { KivaSandbox.route(request) }
    }

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        if request.path.hasPrefix("/graphql") {
            return .json(["errors": [["message": .string("HTTP \(status) from the sandbox fault injector")]]], status: status)
        }
        // Other paths at the server's root may belong to other providers.
        guard request.path.hasPrefix("/v1/") else { return nil }
        if status == 403 { return KivaSandbox.lockout(request) }
        return KivaSandbox.restError(status, code: "org.kiva.SandboxFault", message: "HTTP \(status) injected by the sandbox", request: request)
    }
}

public enum KivaSandbox {
    static let memo = SandboxResponseMemo()

    /// The answer to a request for one of Kiva's paths.
    static func route(_ request: SandboxRequest) -> SandboxResponse {
        let path = request.path
        switch (request.method, path) {
        case ("POST", "/graphql"), ("GET", "/graphql"): return KivaSandbox.graphQL(request)
        case ("GET", "/v1/loans/newest.json"): return KivaSandbox.restNewest(request)
        case ("GET", "/v1/loans/search.json"): return KivaSandbox.restSearch(request)
        case ("GET", "/v1/templates/images.json"): return KivaSandbox.restTemplates(request)
        case ("GET", _) where path.hasPrefix("/v1/loans/") && path.hasSuffix(".json"): return KivaSandbox.restDetails(request)
        case ("GET", _): return KivaSandbox.restError(404, code: "org.kiva.NotFound", message: "No such API method: \(path)", request: request)
        default:
            // "The Kiva API currently only supports fetching data."
            return KivaSandbox.restError(405, code: "org.kiva.MethodNotAllowed", message: "\(request.method) is not supported; the API only fetches data", request: request)
        }
    }

    /// The bundled loans (REST v1 detail shape, older shapes included), parsed once.
    static let loans: [JSONValue] = (try? JSONParser().parse(KivaSampleData.loansJSON))?.array ?? []

    static let pageSize = 20

    /// What routes need from each loan, computed once rather than per request (ids are unique in the samples).
    struct Precomputed: Sendable {
        /// Each order's position of every loan, by id: sorting a subset is then a lookup, not a decimal parse.
        var positions: [String: [String: Int]]
        /// The folded words search matches against, by id.
        var words: [String: Set<String>]
        /// The listing and GraphQL shapes, by id.
        var listings: [String: JSONValue]
        var graphQL: [String: JSONValue]
    }

    static let precomputed: Precomputed = {
        let ids = loans.map(key)
        let orders = restSorts + ["loan_amount_desc", "random"]
        let positions = Dictionary(uniqueKeysWithValues: orders.map { order in
            (order, Dictionary(sorted(loans, by: order).enumerated().map { (key($1), $0) }, uniquingKeysWith: { first, _ in first }))
        })
        func byID(_ make: (JSONValue) -> JSONValue) -> [String: JSONValue] {
            Dictionary(zip(ids, loans.map(make)), uniquingKeysWith: { first, _ in first })
        }
        let words = Dictionary(zip(ids, loans.map { Set(Self.words(searchText($0))) }), uniquingKeysWith: { first, _ in first })
        return Precomputed(positions: positions, words: words, listings: byID(listing), graphQL: byID(graphQLLoan))
    }()

    private static func key(_ loan: JSONValue) -> String { loan["id"]?.idString ?? "" }

    /// `loans` in `order`, from the precomputed positions (falling back to a full sort for an unknown order).
    static func ordered(_ loans: [JSONValue], by order: String) -> [JSONValue] {
        guard let positions = precomputed.positions[order] else { return sorted(loans, by: order) }
        return loans.sorted { (positions[key($0)] ?? .max) < (positions[key($1)] ?? .max) }
    }

    // MARK: REST v1

    static func restNewest(_ request: SandboxRequest) -> SandboxResponse {
        guard let page = pageNumber(request) else { return invalidPage(request) }
        let fundraising = loans.filter { $0["status"]?.string == "fundraising" }
        return restPage(ordered(fundraising, by: "newest"), page: page, request: request)
    }

    static func restSearch(_ request: SandboxRequest) -> SandboxResponse {
        guard let page = pageNumber(request) else { return invalidPage(request) }
        var matches = loans
        if let text = request.queryValue("q"), !text.trimmingCharacters(in: .whitespaces).isEmpty {
            matches = matches.filter { matchesWords(text, $0) }
        }
        if let sectors = list(request.queryValue("sector")) {
            matches = matches.filter { sectors.contains(fold($0["sector"]?.string ?? "")) }
        }
        if let rejection = KivaSandbox.checkDocumentedValues(request) { return rejection }
        if let codes = list(request.queryValue("country_code")) {
            matches = matches.filter { codes.contains(fold(countryCode(of: $0) ?? "")) }
        }
        if let regions = list(request.queryValue("region")) {
            matches = matches.filter { regions.contains(countryCode(of: $0).flatMap { KivaCountries.byCode[$0]?.regionCode } ?? "") }
        }
        if let partners = list(request.queryValue("partner")) {
            matches = matches.filter { partners.contains($0["partner_id"]?.idString ?? "") }
        }
        if let gender = request.queryValue("gender"), !gender.isEmpty {
            guard ["female", "male"].contains(gender) else {
                return restError(400, code: "org.kiva.InvalidParameter", message: "gender must be male or female, not '\(gender)'", request: request)
            }
            matches = matches.filter { hasBorrower(gender == "female" ? "F" : "M", $0) }
        }
        if let statuses = list(request.queryValue("status")) {
            let known: Set = ["fundraising", "funded", "in_repayment", "paid", "defaulted", "refunded", "expired"]
            if let unknown = statuses.first(where: { !known.contains($0) }) {
                return restError(400, code: "org.kiva.InvalidParameter", message: "unknown status '\(unknown)'", request: request)
            }
            matches = matches.filter { statuses.contains($0["status"]?.string ?? "") }
        }
        let order = request.queryValue("sort_by") ?? "newest"
        guard restSorts.contains(order) else {
            return restError(400, code: "org.kiva.InvalidParameter", message: "sort_by must be one of \(restSorts.joined(separator: ", ")), not '\(order)'", request: request)
        }
        return restPage(ordered(matches, by: order), page: page, request: request)
    }

    /// `GET /v1/loans/<id,id,...>.json`: details (descriptions with texts, borrowers), at most 10 ids.
    static func restDetails(_ request: SandboxRequest) -> SandboxResponse {
        let list = request.path.dropFirst("/v1/loans/".count).dropLast(".json".count)
        let ids = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !ids.isEmpty, ids.count <= 10, ids.allSatisfy({ Int($0) != nil }) else {
            return restError(400, code: "org.kiva.InvalidIdentifier", message: "'\(list)' is not a list of at most 10 loan ids", request: request)
        }
        let found = ids.compactMap { id in loans.first { $0["id"]?.idString == id } }
        guard !found.isEmpty else {
            return restError(404, code: "org.kiva.InvalidIdentifier", message: "No loans found for the given ids", request: request)
        }
        return .json(["loans": .array(found)], headers: rateLimitHeaders(request))
    }

    /// `GET /v1/templates/images.json`: the one image URL template.
    static func restTemplates(_ request: SandboxRequest) -> SandboxResponse {
        .json(["templates": [["id": 1, "pattern": "https://www.kiva.org/img/<size>/<id>.jpg"]]], headers: rateLimitHeaders(request))
    }

    /// Page `page` of `matches` as a listing: 20 a page; a page past the end has no loans but still says where it is.
    static func restPage(_ matches: [JSONValue], page: Int, request: SandboxRequest) -> SandboxResponse {
        let pages = (matches.count + pageSize - 1) / pageSize
        let slice = matches[SandboxNumbers.page(page, size: pageSize, count: matches.count)]
        let body: JSONValue = [
            "paging": ["page": .int(page), "total": .int(matches.count), "page_size": .int(pageSize), "pages": .int(pages)],
            "loans": .array(slice.map { precomputed.listings[key($0)] ?? listing($0) }),
        ]
        return .json(body, headers: rateLimitHeaders(request))
    }

    /// A loan as listings show it: no description texts, no borrowers.
    static func listing(_ loan: JSONValue) -> JSONValue {
        guard case .object(var object) = loan else { return loan }
        object["borrowers"] = nil
        if case .object(var description)? = object["description"] {
            description["texts"] = nil
            object["description"] = .object(description)
        }
        return .object(object)
    }

    /// The documented `sort_by` values; the sandbox has no repayment terms, so
    /// `repayment_term` sorts by newest, as GraphQL's `repaymentTerm` does here.
    static let restSorts = ["newest", "oldest", "loan_amount", "expiration", "amount_remaining", "popularity", "repayment_term"]

    static func sorted(_ loans: [JSONValue], by order: String) -> [JSONValue] {
        func posted(_ loan: JSONValue) -> String { loan["posted_date"]?.string ?? "" }
        func id(_ loan: JSONValue) -> Int { loan["id"]?.int ?? 0 }
        func amount(_ loan: JSONValue) -> Decimal { loan["loan_amount"]?.decimal ?? 0 }
        func left(_ loan: JSONValue) -> Decimal { amount(loan) - (loan["funded_amount"]?.decimal ?? 0) }
        func expiry(_ loan: JSONValue) -> String { loan["planned_expiration_date"]?.string ?? "9999" }
        func lenders(_ loan: JSONValue) -> Int { loan["lender_count"]?.int ?? 0 }
        let newestFirst: (JSONValue, JSONValue) -> Bool = { posted($0) != posted($1) ? posted($0) > posted($1) : id($0) > id($1) }
        switch order {
        case "oldest": return loans.sorted { newestFirst($1, $0) }
        case "loan_amount": return loans.sorted { amount($0) != amount($1) ? amount($0) < amount($1) : newestFirst($0, $1) }
        case "loan_amount_desc": return loans.sorted { amount($0) != amount($1) ? amount($0) > amount($1) : newestFirst($0, $1) }
        case "expiration": return loans.sorted { expiry($0) != expiry($1) ? expiry($0) < expiry($1) : newestFirst($0, $1) }
        case "amount_remaining": return loans.sorted { left($0) != left($1) ? left($0) < left($1) : newestFirst($0, $1) }
        case "popularity": return loans.sorted { lenders($0) != lenders($1) ? lenders($0) > lenders($1) : newestFirst($0, $1) }
        case "random":
            // Deterministic, so that tests and golden files stay stable.
            return loans.sorted { KivaHash.hex(of: "random-\(id($0))") < KivaHash.hex(of: "random-\(id($1))") }
        default: return loans.sorted(by: newestFirst)
        }
    }

    /// The largest `page` the sandbox serves; a larger one is refused like any other bad number.
    static let maximumPage = 1_000_000

    /// The `page` parameter: 1 when absent, `nil` when it is not a whole number from 1 to ``maximumPage``.
    static func pageNumber(_ request: SandboxRequest) -> Int? {
        guard let text = request.queryValue("page") else { return 1 }
        return SandboxNumbers.integer(text, in: 1...maximumPage)
    }

    static func invalidPage(_ request: SandboxRequest) -> SandboxResponse {
        restError(400, code: "org.kiva.InvalidParameter", message: "page must be a whole number from 1 to \(maximumPage), not '\(request.queryValue("page") ?? "")'", request: request)
    }

    /// The v1 error shape: `{"code": ..., "message": ...}`.
    static func restError(_ status: Int, code: String, message: String, request: SandboxRequest) -> SandboxResponse {
        .json(["code": .string(code), "message": .string(message)], status: status, headers: rateLimitHeaders(request))
    }

    /// REST v1 publishes 60 requests a minute for unregistered applications and 500 for those sending `app_id`.
    /// The sandbox server counts (``sandboxResponse(for:context:)`` passes `remaining`); in-process, every answer
    /// reports one request used.
    static func rateLimitHeaders(_ request: SandboxRequest, remaining: Int? = nil) -> HTTPHeaders {
        let registered = !(request.queryValue("app_id") ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        let limit = registered ? 500 : 60
        let left = String(remaining ?? limit - 1)
        return [
            "X-RateLimit-Overall-Limit": String(limit), "X-RateLimit-Overall-Remaining": left,
            "X-RateLimit-Specific-Limit": String(limit), "X-RateLimit-Specific-Remaining": left,
        ]
    }

    /// The lock-out after too many requests: 403, nothing left (injected with the fault `status=403`).
    static func lockout(_ request: SandboxRequest) -> SandboxResponse {
        .text("Rate Limit Exceeded", status: 403, headers: rateLimitHeaders(request, remaining: 0))
    }

    // MARK: GraphQL

    static func graphQL(_ request: SandboxRequest) -> SandboxResponse {
        let body: JSONValue?
        if request.method == "GET" {
            let variables = request.queryValue("variables").flatMap { try? JSONParser().parse(Data($0.utf8)) }
            body = request.queryValue("query").map { ["query": .string($0), "variables": variables ?? .null] }
        } else {
            body = request.jsonBody
        }
        guard let body, let document = body["query"]?.nonEmptyString else {
            return .json(["errors": [["message": "Must provide query string.", "extensions": ["code": "BAD_REQUEST"]]]], status: 400)
        }
        let variables = body["variables"]?.object ?? JSONObject()
        if document.contains("loans") {
            // The 2017 schema's top-level `loans` no longer exists.
            guard document.contains("lend") else {
                return graphQLError("Cannot query field \"loans\" on type \"Query\".", code: "GRAPHQL_VALIDATION_FAILED")
            }
            return graphQLLoans(variables)
        }
        if document.contains("lend"), document.contains("sector") {
            let sectors = KivaCatalog.sectors.map { name, id -> JSONValue in ["id": .int(id), "name": .string(name)] }
            return graphQLResponse(["lend": ["sector": .array(sectors)]])
        }
        return graphQLError("The sandbox answers lend { loans(...) } and lend { sector } queries only.", code: "GRAPHQL_VALIDATION_FAILED")
    }

    static let filterFields: Set<String> = [
        "activity", "cityState", "country", "currencyLossPossible", "distributionModel", "expiringSoon", "gender",
        "isGroup", "isMatched", "lenderFavorite", "loanIds", "loanLimit", "loanTags", "partner", "sector", "status", "theme",
        "trustee",
    ]
    static let genders = ["female", "male", "nonbinary"]
    static let statusFilters = ["fundraising", "funded", "expired", "payingBack", "ended", "defaulted", "refunded", "raised"]
    static let graphQLSorts = ["expiringSoon", "amountLeft", "repaymentTerm", "loanAmount", "loanAmountDesc", "newest", "popularity", "random"]

    static func graphQLLoans(_ variables: JSONObject) -> SandboxResponse {
        let offset = variables["offset"] ?? .null
        let limit = variables["limit"] ?? .null
        let int32 = 0...SandboxNumbers.graphQLIntRange.upperBound
        guard offset.isNull || SandboxNumbers.integer(offset, in: int32) != nil else {
            return invalidVariable("offset", offset, "Int", reason: "must be a 32-bit Int of 0 or more")
        }
        guard limit.isNull || SandboxNumbers.integer(limit, in: int32) != nil else {
            return invalidVariable("limit", limit, "Int", reason: "must be a 32-bit Int of 0 or more")
        }
        var matches = loans
        let filters = variables["filters"] ?? .null
        if !filters.isNull {
            guard let object = filters.object else { return invalidVariable("filters", filters, "LoanSearchFiltersInput", reason: "Expected type \"LoanSearchFiltersInput\" to be an object") }
            if let unknown = object.keys.first(where: { !filterFields.contains($0) }) {
                return invalidVariable("filters", filters, "LoanSearchFiltersInput", reason: "Field \"\(unknown)\" is not defined by type \"LoanSearchFiltersInput\"")
            }
            switch filtered(matches, by: object) {
            case .success(let kept): matches = kept
            case .failure(let rejection): return rejection.response
            }
        }
        if (filters["status"] ?? .null).isNull {
            // Without a status filter the lend API lists loans that are raising money.
            matches = matches.filter { $0["status"]?.string == "fundraising" }
        }
        if let text = variables["queryString"]?.string, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            matches = matches.filter { matchesWords(text, $0) }
        }
        let sortBy = variables["sortBy"] ?? .null
        if !sortBy.isNull {
            guard let order = sortBy.string, graphQLSorts.contains(order) else {
                return invalidVariable("sortBy", sortBy, "LoanSearchSortByEnum", reason: "Value \(sortBy.display) does not exist in \"LoanSearchSortByEnum\" enum")
            }
            let restOrder = [
                "expiringSoon": "expiration", "amountLeft": "amount_remaining", "loanAmount": "loan_amount",
                "loanAmountDesc": "loan_amount_desc", "popularity": "popularity", "random": "random",
            ][order] ?? "newest"  // the sandbox has no repayment terms: repaymentTerm sorts by newest
            matches = ordered(matches, by: restOrder)
        } else {
            matches = ordered(matches, by: "newest")
        }
        let values = matches[SandboxNumbers.window(offset: offset.int ?? 0, length: limit.int ?? 20, count: matches.count)].map { precomputed.graphQL[key($0)] ?? graphQLLoan($0) }
        return graphQLResponse(["lend": ["loans": ["totalCount": .int(matches.count), "values": .array(values)]]])
    }

    /// Why a variable was refused, as the response to send.
    struct Rejection: Error {
        var response: SandboxResponse
    }

    static func filtered(_ loans: [JSONValue], by filters: JSONObject) -> Result<[JSONValue], Rejection> {
        var matches = loans
        for member in filters.members where !member.value.isNull {
            let value = member.value
            switch member.key {
            case "gender":
                guard let gender = value.string, genders.contains(gender) else {
                    return .failure(Rejection(response: invalidVariable("filters", value, "LoanSearchFiltersInput", at: "filters.gender", reason: "Value \(value.display) does not exist in \"GenderEnum\" enum")))
                }
                matches = matches.filter { gender == "nonbinary" ? false : hasBorrower(gender == "female" ? "F" : "M", $0) }
            case "status":
                guard let status = value.string, statusFilters.contains(status) else {
                    return .failure(Rejection(response: invalidVariable("filters", value, "LoanSearchFiltersInput", at: "filters.status", reason: "Value \(value.display) does not exist in \"LoanStatusFilterEnum\" enum")))
                }
                matches = matches.filter { KivaCatalog.graphQLStatus($0["status"]?.string ?? "") == status }
            case "country":
                // GraphQL coerces a single value to a list.
                let codes = value.array ?? [value]
                guard codes.allSatisfy({ $0.string != nil }) else {
                    return .failure(Rejection(response: invalidVariable("filters", value, "LoanSearchFiltersInput", at: "filters.country", reason: "String cannot represent a non string value: \(value.display)")))
                }
                let wanted = Set(codes.compactMap { $0.string?.uppercased() })
                matches = matches.filter { wanted.contains(countryCode(of: $0) ?? "") }
            case "sector":
                let ids = value.array ?? [value]
                guard ids.allSatisfy({ $0.int != nil }) else {
                    let bad = ids.first { $0.int == nil } ?? value
                    return .failure(Rejection(response: invalidVariable("filters", value, "LoanSearchFiltersInput", at: "filters.sector", reason: "Int cannot represent non-integer value: \(bad.display)")))
                }
                let wanted = Set(ids.compactMap(\.int))
                matches = matches.filter { wanted.contains(KivaCatalog.sectorID($0["sector"]?.string ?? "") ?? -1) }
            case "theme":
                let themes = Set((value.array ?? [value]).compactMap { $0.string.map(fold) })
                matches = matches.filter { !Set(themeNames($0).map(fold)).isDisjoint(with: themes) }
            case "isGroup":
                guard let flag = value.bool else {
                    return .failure(Rejection(response: invalidVariable("filters", value, "LoanSearchFiltersInput", at: "filters.isGroup", reason: "Boolean cannot represent a non boolean value: \(value.display)")))
                }
                matches = matches.filter { (($0["borrower_count"]?.int ?? 1) > 1) == flag }
            case "partner":
                let ids = Set((value.array ?? [value]).compactMap(\.idString))
                matches = matches.filter { ids.contains($0["partner_id"]?.idString ?? "") }
            default:
                continue  // accepted by the schema, not modelled by the sandbox
            }
        }
        return .success(matches)
    }

    /// A bundled loan in the shape of the current GraphQL schema (money as `"600.00"` strings).
    static func graphQLLoan(_ loan: JSONValue) -> JSONValue {
        let place = loan["location"]
        let code = countryCode(of: loan)
        let point = geoPairs(place?["geo"]?["pairs"]?.string)
        let image: JSONValue = loan["image"]?["id"]?.idString.map { id in
            let hash = KivaHash.hex(of: "image-\(id)")
            return ["id": loan["image"]?["id"] ?? .null, "hash": .string(hash), "url": .string("https://www.kiva.org/img/w480h300/\(hash).jpg")]
        } ?? .null
        let funded = loan["funded_amount"]?.decimal ?? 0
        let lenders = loan["lender_count"]?.int ?? Int(NSDecimalNumber(decimal: funded / 25).intValue)
        var object = JSONObject(pairs: [
            "id": loan["id"] ?? .null,
            "name": loan["name"] ?? .null,
            "status": .string(KivaCatalog.graphQLStatus(loan["status"]?.string ?? "")),
            "borrowerCount": loan["borrower_count"] ?? .int(loan["borrowers"]?.array?.count ?? 1),
            "use": loan["use"] ?? .null,
            "description": .optional(englishDescription(loan["description"])),
            "fundraisingDate": loan["posted_date"] ?? .null,
            "plannedExpirationDate": loan["planned_expiration_date"] ?? .null,
            "loanAmount": money(loan["loan_amount"]),
            "geocode": [
                "city": place?["town"] ?? .null,
                "state": .null,
                "latitude": point.map { .double($0.latitude) } ?? .null,
                "longitude": point.map { .double($0.longitude) } ?? .null,
                "country": [
                    "isoCode": .optional(code),
                    "name": place?["country"] ?? .null,
                    "region": .optional(code.flatMap { KivaCountries.byCode[$0]?.region }),
                ],
            ],
            "activity": ["id": .int(KivaCatalog.activityID(loan["activity"]?.string ?? "")), "name": loan["activity"] ?? .null],
            "sector": ["id": KivaCatalog.sectorID(loan["sector"]?.string ?? "").map(JSONValue.int) ?? .null, "name": loan["sector"] ?? .null],
            "tags": .array((loan["tags"]?.array ?? []).compactMap { $0["name"] }),
            "loanFundraisingInfo": ["fundedAmount": money(loan["funded_amount"]), "reservedAmount": money(loan["basket_amount"] ?? 0)],
            "image": image,
            "lenders": ["totalCount": .int(lenders)],
        ])
        if let partner = loan["partner_id"], !partner.isNull {
            object["partnerName"] = .string(KivaCatalog.partnerName(partner.idString ?? ""))
            object["themes"] = .array(themeNames(loan).map(JSONValue.string))
            object["partner"] = ["id": partner]
            object["__typename"] = "LoanPartner"
        } else {
            object["trusteeName"] = .optional(KivaCatalog.trustees[loan["id"]?.idString ?? ""])
            object["__typename"] = "LoanDirect"
        }
        return .object(object)
    }

    static func graphQLResponse(_ data: JSONValue) -> SandboxResponse {
        .json(["data": data])
    }

    /// A GraphQL error at HTTP 200, as GraphQL servers send for queries they cannot run.
    static func graphQLError(_ message: String, code: String) -> SandboxResponse {
        .json(["errors": [["message": .string(message), "locations": [["line": 1, "column": 1]], "extensions": ["code": .string(code)]]], "data": .null])
    }

    /// The error for a variable whose value does not fit its type.
    static func invalidVariable(_ name: String, _ value: JSONValue, _ type: String, at path: String? = nil, reason: String) -> SandboxResponse {
        let place = path.map { " at \"\($0)\"" } ?? ""
        return graphQLError("Variable \"$\(name)\" got invalid value \(value.display)\(place); \(reason).", code: "BAD_USER_INPUT")
    }

    // MARK: Matching

    static func matchesWords(_ text: String, _ loan: JSONValue) -> Bool {
        let wanted = self.words(text)
        if let words = precomputed.words[key(loan)] { return wanted.allSatisfy(words.contains) }
        return wanted.allSatisfy(Set(words(searchText(loan))).contains)
    }

    /// The text search looks in: name, use, activity, sector, country, town and the description texts.
    static func searchText(_ loan: JSONValue) -> String {
        let description = loan["description"]?["texts"]?.object?.members.compactMap(\.value.string) ?? []
        let fields = [loan["name"], loan["use"], loan["activity"], loan["sector"], loan["location"]?["country"], loan["location"]?["town"]]
            .compactMap { $0?.string } + description
        // Whole words, as a search index matches them: "leon" finds León, not Sierra Leone.
        return fields.joined(separator: " ")
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `text` folded and split into words at anything that is not a letter or a digit.
    static func words(_ text: String) -> [String] {
        fold(PlainText.fromHTML(text) ?? "").split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    static func hasBorrower(_ gender: String, _ loan: JSONValue) -> Bool {
        (loan["borrowers"]?.array ?? []).contains { $0["gender"]?.string == gender }
    }

    static func themeNames(_ loan: JSONValue) -> [String] {
        (loan["themes"]?.array?.compactMap(\.string) ?? []) + [loan["theme"]?.string].compactMap { $0 }
    }

    /// The loan's ISO country code; 2009 records have only the name.
    static func countryCode(of loan: JSONValue) -> String? {
        loan["location"]?["country_code"]?.string ?? loan["location"]?["country"]?.string.flatMap { KivaCountries.byName[$0]?.code }
    }

    /// A comma-separated parameter as folded words, or `nil` when absent or blank.
    /// The region codes Kiva documents for `loans/search` (na, ca, sa, af, as, me, ee), and Oceania, whose loans
    /// the bundled catalogue has.
    static let restRegions: Set = ["na", "ca", "sa", "af", "as", "me", "ee", "oc"]

    /// A 400 in Kiva's error shape for a `region` outside the documented codes or a `country_code` that is not an
    /// ISO 3166-1 alpha-2 code (the values Kiva documents); `nil` when both are fine.
    static func checkDocumentedValues(_ request: SandboxRequest) -> SandboxResponse? {
        if let unknown = list(request.queryValue("region"))?.first(where: { !restRegions.contains($0) }) {
            return restError(
                400, code: "org.kiva.InvalidParameter", message: "region must be among \(restRegions.sorted().joined(separator: ", ")), not '\(unknown)'",
                request: request)
        }
        if let bad = list(request.queryValue("country_code"))?.first(where: { $0.wholeMatch(of: #/[a-z]{2}/#) == nil }) {
            return restError(
                400, code: "org.kiva.InvalidParameter", message: "country_code takes ISO 3166-1 two-letter codes, not '\(bad)'", request: request)
        }
        return nil
    }

    static func list(_ value: String?) -> [String]? {
        let items = (value ?? "").split(separator: ",").map { fold($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }
        return items.isEmpty ? nil : items
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: posix)
    }

    /// An amount as GraphQL sends money: a string with two decimals.
    /// REST's `geo.pairs` (`"lat lon"`) as GraphQL's separate coordinates.
    static func geoPairs(_ pairs: String?) -> (latitude: Double, longitude: Double)? {
        guard let parts = pairs?.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }), parts.count == 2,
            let latitude = Double(parts[0]), let longitude = Double(parts[1]), abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude)
    }

    /// REST's `description.texts` in English, else in the first language given: GraphQL's one description.
    static func englishDescription(_ description: JSONValue?) -> String? {
        let texts = description?["texts"]?.object ?? [:]
        let order = ["en"] + (description?["languages"]?.array?.compactMap(\.string) ?? []) + texts.keys
        return order.lazy.compactMap { texts[$0]?.nonEmptyString }.first
    }

    static func roundedToCents(_ value: Decimal) -> Decimal {
        var input = value
        var output = Decimal()
        NSDecimalRound(&output, &input, 2, .plain)
        return output
    }

    static func money(_ value: JSONValue?) -> JSONValue {
        guard let amount = value?.decimal else { return .null }
        let text = JSONNumberFormat.text(for: roundedToCents(amount))
        let parts = text.split(separator: ".", maxSplits: 1)
        let cents = parts.count > 1 ? String(parts[1]).padding(toLength: 2, withPad: "0", startingAt: 0) : "00"
        return .string("\(parts[0]).\(cents)")
    }
}

/// The sandbox's reference data: sector and activity ids, field partners, trustees.
enum KivaCatalog {
    /// Sector names and the ids the sandbox gives them.
    static let sectors: [(String, Int)] = [
        ("Agriculture", 1), ("Transportation", 3), ("Services", 4), ("Clothing", 5), ("Health", 6), ("Retail", 7),
        ("Manufacturing", 8), ("Arts", 9), ("Housing", 10), ("Food", 12), ("Wholesale", 13), ("Construction", 14),
        ("Education", 15), ("Personal Use", 16), ("Entertainment", 17),
    ]

    static func sectorID(_ name: String) -> Int? { sectors.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// Activity ids: the position of the name among the bundled loans' activities, sorted.
    static let activities: [String] = Array(Set(KivaSandbox.loans.compactMap { $0["activity"]?.string })).sorted()

    static func activityID(_ name: String) -> Int { (activities.firstIndex(of: name) ?? activities.count) + 1 }

    /// REST's statuses in GraphQL's words.
    static func graphQLStatus(_ status: String) -> String {
        ["in_repayment": "payingBack", "paid": "ended"][status] ?? status
    }

    /// Invented names for the field partners the bundled loans mention.
    static func partnerName(_ id: String) -> String {
        [
            "47": "Pamir Microfinance", "60": "Sialkot Women's Credit Union", "88": "Ashanti Rural Savings", "99": "Plateau Microcredit Togo",
            "100": "Sughd Growth Fund", "108": "Sine-Saloum Credit", "121": "Steppe Enterprise Fund", "139": "Andes Progreso",
            "145": "Palawan Coastal Microfinance", "152": "Cooperativa Azuay", "154": "Antioquia Educa", "163": "Elgon Finance",
            "164": "Rift Valley Farmers Fund", "171": "Tien Shan Credit", "176": "Crédito Occidente", "183": "Bombali Microfinance",
            "199": "Oriente Solidario", "230": "West Bank Enterprise Loans", "242": "Red River Women's Fund", "246": "Altiplano Crédito",
            "247": "Punjab Transport Credit", "288": "Upolu Island Finance", "289": "Viti Levu Savings", "294": "Oaxaca Mujeres",
            "311": "Tonle Sap Water Fund", "358": "Sulawesi Mandiri", "376": "Dili Enterprise Credit", "425": "Vakinankaratra Credit",
            "441": "Virunga Microfinance", "452": "Enugu Traders Credit", "508": "Anatolia Kadın Girişimi", "517": "Nistru Agro Credit",
            "529": "Cedar Solar Finance",
        ][id] ?? "Field Partner \(id)"
    }

    /// Trustees of the bundled direct loans.
    static let trustees = ["2950160": "Corktown Merchants Association"]
}

/// Countries of the bundled loans: code, name, GraphQL region and REST v1 region code.
enum KivaCountries {
    struct Country {
        var code: String
        var name: String
        var region: String
        var regionCode: String
    }

    static let all: [Country] = [
        ("KE", "Kenya", "Africa"), ("UG", "Uganda", "Africa"), ("GH", "Ghana", "Africa"), ("SN", "Senegal", "Africa"),
        ("RW", "Rwanda", "Africa"), ("NG", "Nigeria", "Africa"), ("SL", "Sierra Leone", "Africa"), ("MG", "Madagascar", "Africa"),
        ("TG", "Togo", "Africa"), ("VN", "Viet Nam", "Asia"), ("KH", "Cambodia", "Asia"), ("KG", "Kyrgyzstan", "Asia"),
        ("TJ", "Tajikistan", "Asia"), ("MN", "Mongolia", "Asia"), ("PH", "Philippines", "Asia"), ("ID", "Indonesia", "Asia"),
        ("PK", "Pakistan", "Asia"), ("TL", "Timor-Leste", "Asia"), ("PE", "Peru", "South America"), ("EC", "Ecuador", "South America"),
        ("CO", "Colombia", "South America"), ("GT", "Guatemala", "Central America"), ("NI", "Nicaragua", "Central America"),
        ("SV", "El Salvador", "Central America"), ("MX", "Mexico", "Central America"), ("US", "United States", "North America"),
        ("PS", "Palestine", "Middle East"), ("LB", "Lebanon", "Middle East"), ("TR", "Turkey", "Middle East"),
        ("MD", "Moldova", "Eastern Europe"), ("WS", "Samoa", "Oceania"), ("FJ", "Fiji", "Oceania"),
    ].map { code, name, region in
        let regionCodes = [
            "Africa": "af", "Asia": "as", "South America": "sa", "Central America": "ca", "North America": "na",
            "Middle East": "me", "Eastern Europe": "ee", "Oceania": "oc",
        ]
        return Country(code: code, name: name, region: region, regionCode: regionCodes[region] ?? "")
    }

    static let byCode = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })
    static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

/// A small deterministic hash for invented image hashes and stable "random" orders (FNV-1a, 128 bits as hex).
enum KivaHash {
    static func hex(of text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        let high = fnv(0xCBF2_9CE4_8422_2325)
        let low = fnv(0x8422_2325_CBF2_9CE4)
        return String(format: "%016llx%016llx", high, low)
    }
}

extension JSONValue {
    /// The value as GraphQL error messages quote it: strings in quotes, objects and lists as compact JSON.
    var display: String { JSONWriter().string(self) }
}
