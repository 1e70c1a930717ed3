import AggregateCore
import AggregateJSON
public import AggregateSandboxKit
import AggregateText
import Foundation

/// Kiva's part of the sandbox, over the bundled loans in `SampleData/loans.json`:
/// - REST v1: `GET /v1/loans/newest.json`, `/v1/loans/search.json`, `/v1/loans/<ids>.json`, `/v1/templates/images.json`,
///   pages of 20 with `paging`, `X-RateLimit-*` headers (60 a minute, 500 with `app_id`), v1 error bodies;
/// - GraphQL: `POST` (or `GET`) `/graphql` answering `lend { loans(...) }` and `lend { sector }`, with GraphQL
///   errors at HTTP 200 for invalid variables (a bad filter, an unknown sort).
public enum KivaSandbox: RoutedSandbox {
    public static let providerName = "kiva"

    /// Kiva's public data needs no credentials, and `--offline` sends no app id.
    public static let sandboxEnvironment: [String: String] = [:]

    /// REST v1 and GraphQL, at the sandbox's root. Kiva "currently only supports fetching data": other methods get 405.
    public static let routes = SandboxRoutes(
        [
            SandboxRoute("GET", "/v1/loans/newest.json") { request, _, _ in try restNewest(request) },
            SandboxRoute("GET", "/v1/loans/search.json") { request, _, _ in try restSearch(request) },
            SandboxRoute("GET", "/v1/templates/images.json") { request, _, _ in
                .json(["templates": [["id": 1, "pattern": "https://www.kiva.org/img/<size>/<id>.jpg"]]], headers: rateLimitHeaders(request))
            },
            SandboxRoute("GET", "/v1/loans/**") { request, _, _ in try restDetails(request) },
            SandboxRoute("GET", "/v1/**") { request, _, _ in throw noSuchMethod(request) },
            SandboxRoute("POST", "/graphql") { request, _, _ in try graphQL(request) },
            SandboxRoute("GET", "/graphql") { request, _, _ in try graphQL(request) },
        ],
        methodNotAllowed: { request in
            restError(405, "org.kiva.MethodNotAllowed", "\(request.method) is not supported; the API only fetches data", request).response
        })

    static let memo = SandboxResponseMemo()

    public static func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        guard sandboxPaths.contains(where: { $0.matches(request.path) }) else { return nil }
        // REST v1 counts each address's requests in 60-second windows and locks it out past the limit.
        let registered = !(request.queryValue("app_id") ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        let counted = request.path.hasPrefix("/v1/")
            ? context.countRequest(provider: providerName, budget: registered ? "rest-app" : "rest", limit: registered ? 500 : 60, window: 60) : nil
        if counted?.isExceeded == true { return lockout(request) }
        var response = memoized(request, context: context)
        if let counted { for (name, value) in rateLimitHeaders(request, remaining: counted.remaining) { response.headers[name] = value } }
        return response
    }

    /// Every Kiva answer depends on the method, path, query and body only, so repeated requests reuse it.
    static func memoized(_ request: SandboxRequest, context: SandboxContext) -> SandboxResponse {
        let answer = { routes.respond(to: request, context: context) ?? SandboxResponse(status: 404) }
        guard request.body.count <= 16 << 10 else { return answer() }
        let key = SandboxResponseMemo.key(request, extra: [String(decoding: request.body, as: UTF8.self)])
        return memo.response(for: key, make: answer)
    }

    public static func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        if request.path.hasPrefix("/graphql") {
            return .json(["errors": [["message": .string("HTTP \(status) from the sandbox fault injector")]]], status: status)
        }
        // Other paths at the server's root may belong to other providers.
        guard request.path.hasPrefix("/v1/") else { return nil }
        if status == 403 { return lockout(request) }
        return restError(status, "org.kiva.SandboxFault", "HTTP \(status) injected by the sandbox", request).response
    }

    // MARK: Loans

    /// A bundled loan (REST v1 detail shape, older shapes included) and what routes need from it, computed once.
    struct Loan: Sendable {
        var json: JSONValue
        /// As listings show it: no description texts, no borrowers.
        var listing: JSONValue
        /// In the shape of the current GraphQL schema.
        var graphQL: JSONValue = .null
        /// The folded words search matches against.
        var words: Set<String>

        init(_ loan: JSONValue) {
            json = loan
            listing = loan
            if case .object(var object) = loan {
                object["borrowers"] = nil
                if case .object(var description)? = object["description"] {
                    description["texts"] = nil
                    object["description"] = .object(description)
                }
                listing = .object(object)
            }
            words = Set(KivaSandbox.words(searchText(loan)))
            graphQL = graphQLLoan(self)
        }

        subscript(_ key: String) -> JSONValue? { json[key] }
        var id: Int { json["id"]?.int ?? 0 }
        var posted: String { json["posted_date"]?.string ?? "" }
        var amount: Decimal { json["loan_amount"]?.decimal ?? 0 }
        var status: String { json["status"]?.string ?? "" }

        /// The ISO country code; 2009 records have only the name.
        var countryCode: String? {
            let place = json["location"]
            return place?["country_code"]?.string ?? place?["country"]?.string.flatMap { catalog.countryByName[$0]?["code"]?.string }
        }

        func hasBorrower(_ gender: String) -> Bool { (json["borrowers"]?.array ?? []).contains { $0["gender"]?.string == gender } }

        var themes: [String] { (json["themes"]?.array?.compactMap(\.string) ?? []) + [json["theme"]?.string].compactMap { $0 } }
    }

    /// The bundled loans as parsed.
    static let records: [JSONValue] = (try? JSONParser().parse(KivaSampleData.loansJSON))?.array ?? []
    static let loans = records.map(Loan.init)

    /// The sandbox's reference data (`SampleData/catalog.json`).
    static let catalog = KivaCatalog(json: (try? JSONParser().parse(KivaSampleData.catalogJSON)) ?? .null, loans: records)

    /// The documented `sort_by` values; the sandbox has no repayment terms, so
    /// `repayment_term` sorts by newest, as GraphQL's `repaymentTerm` does here.
    static let restSorts = ["newest", "oldest", "loan_amount", "expiration", "amount_remaining", "popularity", "repayment_term"]

    /// Every loan in each order, sorted once: a route filters its order's list, which keeps the order.
    static let orders = Dictionary(uniqueKeysWithValues: (restSorts + ["loan_amount_desc", "random"]).map { ($0, sorted(by: $0)) })

    /// The loans in `order`; equal keys keep newest first.
    static func sorted(by order: String) -> [Loan] {
        let newest = loans.sorted { ($0.posted, $0.id) > ($1.posted, $1.id) }
        func by<Key: Comparable>(_ key: (Loan) -> Key) -> [Loan] {
            newest.enumerated().sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }.map(\.element)
        }
        switch order {
        case "oldest": return newest.reversed()
        case "loan_amount": return by(\.amount)
        case "loan_amount_desc": return by { -$0.amount }
        case "expiration": return by { $0["planned_expiration_date"]?.string ?? "9999" }
        case "amount_remaining": return by { $0.amount - ($0["funded_amount"]?.decimal ?? 0) }
        case "popularity": return by { -($0["lender_count"]?.int ?? 0) }
        // Deterministic, so that tests and golden files stay stable.
        case "random": return by { KivaHash.hex(of: "random-\($0.id)") }
        default: return newest
        }
    }

    // MARK: REST v1

    static func restNewest(_ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        let page = try pageNumber(request)
        return restPage((orders["newest"] ?? []).filter { $0.status == "fundraising" }, page: page, request: request)
    }

    /// The region codes Kiva documents for `loans/search` (na, ca, sa, af, as, me, ee), and Oceania, whose loans
    /// the bundled catalogue has.
    static let restRegions: Set = ["na", "ca", "sa", "af", "as", "me", "ee", "oc"]
    static let restStatuses: Set = ["fundraising", "funded", "in_repayment", "paid", "defaulted", "refunded", "expired"]

    /// `loans/search`: every documented value is checked (a 400 in Kiva's shape otherwise), then the filters apply.
    static func restSearch(_ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        let page = try pageNumber(request)
        let regions = list(request.queryValue("region")), codes = list(request.queryValue("country_code"))
        if let unknown = regions?.first(where: { !restRegions.contains($0) }) {
            throw invalidParameter("region must be among \(restRegions.sorted().joined(separator: ", ")), not '\(unknown)'", request)
        }
        if let bad = codes?.first(where: { $0.wholeMatch(of: #/[a-z]{2}/#) == nil }) {
            throw invalidParameter("country_code takes ISO 3166-1 two-letter codes, not '\(bad)'", request)
        }
        let gender = request.queryValue("gender").flatMap { $0.isEmpty ? nil : $0 }
        if let gender, !["female", "male"].contains(gender) {
            throw invalidParameter("gender must be male or female, not '\(gender)'", request)
        }
        let statuses = list(request.queryValue("status"))
        if let unknown = statuses?.first(where: { !restStatuses.contains($0) }) {
            throw invalidParameter("unknown status '\(unknown)'", request)
        }
        let order = request.queryValue("sort_by") ?? "newest"
        guard restSorts.contains(order), let sorted = orders[order] else {
            throw invalidParameter("sort_by must be one of \(restSorts.joined(separator: ", ")), not '\(order)'", request)
        }
        let wanted = words(request.queryValue("q") ?? "")
        let sectors = list(request.queryValue("sector")), partners = list(request.queryValue("partner"))
        let matches = sorted.filter { loan in
            func allows(_ values: [String]?, _ value: String?) -> Bool { values?.contains(value ?? "") ?? true }
            return wanted.allSatisfy(loan.words.contains) && allows(sectors, loan["sector"]?.string.map(fold))
                && allows(codes, loan.countryCode.map(fold)) && allows(partners, loan["partner_id"]?.idString) && allows(statuses, loan.status)
                && allows(regions, loan.countryCode.flatMap { catalog.countryByCode[$0]?["regionCode"]?.string })
                && gender.map { loan.hasBorrower($0 == "female" ? "F" : "M") } ?? true
        }
        return restPage(matches, page: page, request: request)
    }

    /// `GET /v1/loans/<id,id,...>.json`: details (descriptions with texts, borrowers), at most 10 ids.
    static func restDetails(_ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        guard request.path.hasPrefix("/v1/loans/"), request.path.hasSuffix(".json") else { throw noSuchMethod(request) }
        let list = request.path.dropFirst("/v1/loans/".count).dropLast(".json".count)
        let ids = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !ids.isEmpty, ids.count <= 10, ids.allSatisfy({ Int($0) != nil }) else {
            throw restError(400, "org.kiva.InvalidIdentifier", "'\(list)' is not a list of at most 10 loan ids", request)
        }
        let found = ids.compactMap { id in loans.first { $0["id"]?.idString == id }?.json }
        guard !found.isEmpty else { throw restError(404, "org.kiva.InvalidIdentifier", "No loans found for the given ids", request) }
        return .json(["loans": .array(found)], headers: rateLimitHeaders(request))
    }

    /// Page `page` of `matches` as a listing: 20 a page; a page past the end has no loans but still says where it is.
    static func restPage(_ matches: [Loan], page: Int, request: SandboxRequest) -> SandboxResponse {
        let body: JSONValue = [
            "paging": [
                "page": .int(page), "total": .int(matches.count), "page_size": 20, "pages": .int(SandboxPaging.pageCount(matches.count, size: 20)),
            ],
            "loans": .array(SandboxPaging.page(matches, number: page, size: 20).map(\.listing)),
        ]
        return .json(body, headers: rateLimitHeaders(request))
    }

    /// The largest `page` the sandbox serves; a larger one is refused like any other bad number.
    static let maximumPage = 1_000_000

    /// The `page` parameter: 1 when absent, else a whole number from 1 to ``maximumPage`` (a v1 400 otherwise).
    static func pageNumber(_ request: SandboxRequest) throws(SandboxExit) -> Int {
        guard let text = request.queryValue("page") else { return 1 }
        guard let page = SandboxNumbers.integer(text, in: 1...maximumPage) else {
            throw invalidParameter("page must be a whole number from 1 to \(maximumPage), not '\(text)'", request)
        }
        return page
    }

    /// The v1 error shape: `{"code": ..., "message": ...}`.
    static func restError(_ status: Int, _ code: String, _ message: String, _ request: SandboxRequest) -> SandboxExit {
        SandboxExit(.json(["code": .string(code), "message": .string(message)], status: status, headers: rateLimitHeaders(request)))
    }

    static func invalidParameter(_ message: String, _ request: SandboxRequest) -> SandboxExit {
        restError(400, "org.kiva.InvalidParameter", message, request)
    }

    static func noSuchMethod(_ request: SandboxRequest) -> SandboxExit {
        restError(404, "org.kiva.NotFound", "No such API method: \(request.path)", request)
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

    static func graphQL(_ request: SandboxRequest) throws(SandboxExit) -> SandboxResponse {
        guard let graphQL = request.graphQL, JSONValue.string(graphQL.query).nonEmptyString != nil else {
            return .json(["errors": [["message": "Must provide query string.", "extensions": ["code": "BAD_REQUEST"]]]], status: 400)
        }
        let document = graphQL.query
        if document.contains("loans") {
            // The 2017 schema's top-level `loans` no longer exists.
            guard document.contains("lend") else {
                return graphQLError("Cannot query field \"loans\" on type \"Query\".", code: "GRAPHQL_VALIDATION_FAILED")
            }
            return try graphQLLoans(graphQL.variables.object ?? JSONObject())
        }
        if document.contains("lend"), document.contains("sector") {
            return .json(["data": ["lend": ["sector": .array(catalog.sectors.map { ["id": .int($0.id), "name": .string($0.name)] })]]])
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
    /// GraphQL's orders in REST's words; the sandbox has no repayment terms, so `repaymentTerm` sorts by newest.
    static let graphQLSorts = [
        "expiringSoon": "expiration", "amountLeft": "amount_remaining", "repaymentTerm": "newest", "loanAmount": "loan_amount",
        "loanAmountDesc": "loan_amount_desc", "newest": "newest", "popularity": "popularity", "random": "random",
    ]

    /// `lend { loans(offset, limit, filters, sortBy, queryString) }`; invalid variables are errors in the order
    /// a GraphQL server checks them.
    static func graphQLLoans(_ variables: JSONObject) throws(SandboxExit) -> SandboxResponse {
        let offset = variables["offset"] ?? .null, limit = variables["limit"] ?? .null
        for (name, value) in [("offset", offset), ("limit", limit)]
        where !value.isNull && SandboxNumbers.integer(value, in: 0...SandboxNumbers.graphQLIntRange.upperBound) == nil {
            throw invalidVariable(name, value, reason: "must be a 32-bit Int of 0 or more")
        }
        let filters = variables["filters"] ?? .null
        var tests: [(Loan) -> Bool] = []
        if !filters.isNull {
            guard let object = filters.object else {
                throw invalidVariable("filters", filters, reason: "Expected type \"LoanSearchFiltersInput\" to be an object")
            }
            if let unknown = object.keys.first(where: { !filterFields.contains($0) }) {
                throw invalidVariable("filters", filters, reason: "Field \"\(unknown)\" is not defined by type \"LoanSearchFiltersInput\"")
            }
            for member in object.members where !member.value.isNull {
                if let test = try filterTest(member.key, member.value) { tests.append(test) }
            }
        }
        // Without a status filter the lend API lists loans that are raising money.
        if (filters["status"] ?? .null).isNull { tests.append { $0.status == "fundraising" } }
        let wanted = words(variables["queryString"]?.string ?? "")
        let sortBy = variables["sortBy"] ?? .null
        guard sortBy.isNull || sortBy.string.flatMap({ graphQLSorts[$0] }) != nil else {
            throw invalidVariable("sortBy", sortBy, reason: "Value \(sortBy.display) does not exist in \"LoanSearchSortByEnum\" enum")
        }
        let order = sortBy.string.flatMap { graphQLSorts[$0] } ?? "newest"
        let matches = (orders[order] ?? []).filter { loan in wanted.allSatisfy(loan.words.contains) && tests.allSatisfy { $0(loan) } }
        let values = SandboxPaging.slice(matches, offset: offset.int ?? 0, limit: limit.int ?? 20).map(\.graphQL)
        return .json(["data": ["lend": ["loans": ["totalCount": .int(matches.count), "values": .array(values)]]]])
    }

    /// The test the filter `name` stands for, or `nil` for one the sandbox accepts but does not model; throws the
    /// schema's error for a value of the wrong type. GraphQL coerces a single value to a list.
    static func filterTest(_ name: String, _ value: JSONValue) throws(SandboxExit) -> ((Loan) -> Bool)? {
        func invalid(_ reason: String) -> SandboxExit { invalidVariable("filters", value, at: "filters.\(name)", reason: reason) }
        let values = value.array ?? [value]
        switch name {
        case "gender":
            guard let gender = value.string, genders.contains(gender) else {
                throw invalid("Value \(value.display) does not exist in \"GenderEnum\" enum")
            }
            return { gender != "nonbinary" && $0.hasBorrower(gender == "female" ? "F" : "M") }
        case "status":
            guard let status = value.string, statusFilters.contains(status) else {
                throw invalid("Value \(value.display) does not exist in \"LoanStatusFilterEnum\" enum")
            }
            return { graphQLStatus($0.status) == status }
        case "country":
            guard values.allSatisfy({ $0.string != nil }) else { throw invalid("String cannot represent a non string value: \(value.display)") }
            let wanted = Set(values.compactMap { $0.string?.uppercased() })
            return { wanted.contains($0.countryCode ?? "") }
        case "sector":
            if let bad = values.first(where: { $0.int == nil }) { throw invalid("Int cannot represent non-integer value: \(bad.display)") }
            let wanted = Set(values.compactMap(\.int))
            return { wanted.contains(catalog.sectorID($0["sector"]?.string ?? "") ?? -1) }
        case "theme":
            let themes = Set(values.compactMap { $0.string.map(fold) })
            return { !Set($0.themes.map(fold)).isDisjoint(with: themes) }
        case "isGroup":
            guard let flag = value.bool else { throw invalid("Boolean cannot represent a non boolean value: \(value.display)") }
            return { (($0["borrower_count"]?.int ?? 1) > 1) == flag }
        case "partner":
            let ids = Set(values.compactMap(\.idString))
            return { ids.contains($0["partner_id"]?.idString ?? "") }
        default:
            return nil
        }
    }

    /// A bundled loan in the shape of the current GraphQL schema (money as `"600.00"` strings).
    static func graphQLLoan(_ loan: Loan) -> JSONValue {
        let place = loan["location"]
        let code = loan.countryCode
        let point = geoPairs(place?["geo"]?["pairs"]?.string)
        let image: JSONValue = loan["image"]?["id"]?.idString.map { id in
            let hash = KivaHash.hex(of: "image-\(id)")
            return ["id": loan["image"]?["id"] ?? .null, "hash": .string(hash), "url": .string("https://www.kiva.org/img/w480h300/\(hash).jpg")]
        } ?? .null
        let lenders = loan["lender_count"]?.int ?? NSDecimalNumber(decimal: (loan["funded_amount"]?.decimal ?? 0) / 25).intValue
        // REST's description texts in English, else in the first language given: GraphQL's one description.
        let texts = loan["description"]?["texts"]?.object ?? [:]
        let languages = ["en"] + (loan["description"]?["languages"]?.array?.compactMap(\.string) ?? []) + texts.keys
        var object = JSONObject(pairs: [
            "id": loan["id"] ?? .null,
            "name": loan["name"] ?? .null,
            "status": .string(graphQLStatus(loan.status)),
            "borrowerCount": loan["borrower_count"] ?? .int(loan["borrowers"]?.array?.count ?? 1),
            "use": loan["use"] ?? .null,
            "description": .optional(languages.lazy.compactMap { texts[$0]?.nonEmptyString }.first),
            "fundraisingDate": loan["posted_date"] ?? .null,
            "plannedExpirationDate": loan["planned_expiration_date"] ?? .null,
            "loanAmount": money(loan["loan_amount"]),
            "geocode": [
                "city": place?["town"] ?? .null,
                "state": .null,
                "latitude": point.map { .double($0.latitude) } ?? .null,
                "longitude": point.map { .double($0.longitude) } ?? .null,
                "country": [
                    "isoCode": .optional(code), "name": place?["country"] ?? .null,
                    "region": code.flatMap { catalog.countryByCode[$0]?["region"] } ?? .null,
                ],
            ],
            "activity": ["id": .int(catalog.activityID(loan["activity"]?.string ?? "")), "name": loan["activity"] ?? .null],
            "sector": ["id": catalog.sectorID(loan["sector"]?.string ?? "").map(JSONValue.int) ?? .null, "name": loan["sector"] ?? .null],
            "tags": .array((loan["tags"]?.array ?? []).compactMap { $0["name"] }),
            "loanFundraisingInfo": ["fundedAmount": money(loan["funded_amount"]), "reservedAmount": money(loan["basket_amount"] ?? 0)],
            "image": image,
            "lenders": ["totalCount": .int(lenders)],
        ])
        if let partner = loan["partner_id"], !partner.isNull {
            object["partnerName"] = catalog.json["partners"]?[partner.idString ?? ""] ?? .string("Field Partner \(partner.idString ?? "")")
            object["themes"] = .array(loan.themes.map(JSONValue.string))
            object["partner"] = ["id": partner]
            object["__typename"] = "LoanPartner"
        } else {
            object["trusteeName"] = catalog.json["trustees"]?[loan["id"]?.idString ?? ""] ?? .null
            object["__typename"] = "LoanDirect"
        }
        return .object(object)
    }

    /// REST's statuses in GraphQL's words.
    static func graphQLStatus(_ status: String) -> String { ["in_repayment": "payingBack", "paid": "ended"][status] ?? status }

    /// A GraphQL error at HTTP 200, as GraphQL servers send for queries they cannot run.
    static func graphQLError(_ message: String, code: String) -> SandboxResponse {
        let error: JSONValue = ["message": .string(message), "locations": [["line": 1, "column": 1]], "extensions": ["code": .string(code)]]
        return .json(["errors": [error], "data": .null])
    }

    /// The error for a variable whose value does not fit its type.
    static func invalidVariable(_ name: String, _ value: JSONValue, at path: String? = nil, reason: String) -> SandboxExit {
        let place = path.map { " at \"\($0)\"" } ?? ""
        return SandboxExit(graphQLError("Variable \"$\(name)\" got invalid value \(value.display)\(place); \(reason).", code: "BAD_USER_INPUT"))
    }

    // MARK: Text and numbers

    /// The text search looks in: name, use, activity, sector, country, town and the description texts.
    static func searchText(_ loan: JSONValue) -> String {
        let description = loan["description"]?["texts"]?.object?.members.compactMap(\.value.string) ?? []
        let fields = [loan["name"], loan["use"], loan["activity"], loan["sector"], loan["location"]?["country"], loan["location"]?["town"]]
            .compactMap { $0?.string } + description
        return fields.joined(separator: " ")
    }

    /// `text` folded and split into words at anything that is not a letter or a digit.
    /// Whole words, as a search index matches them: "leon" finds León, not Sierra Leone.
    static func words(_ text: String) -> [String] {
        fold(PlainText.fromHTML(text) ?? "").split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// A comma-separated parameter as folded words, or `nil` when absent or blank.
    static func list(_ value: String?) -> [String]? {
        let items = (value ?? "").split(separator: ",").map { fold($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }
        return items.isEmpty ? nil : items
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }

    /// REST's `geo.pairs` (`"lat lon"`) as GraphQL's separate coordinates.
    static func geoPairs(_ pairs: String?) -> (latitude: Double, longitude: Double)? {
        guard let parts = pairs?.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }), parts.count == 2,
            let latitude = Double(parts[0]), let longitude = Double(parts[1]), abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude)
    }

    /// An amount as GraphQL sends money: a string with two decimals.
    static func money(_ value: JSONValue?) -> JSONValue {
        value?.decimal.map { .string(DecimalText.fixed($0, places: 2)) } ?? .null
    }
}

/// The sandbox's reference data: sector ids, invented field-partner and trustee names, the bundled loans'
/// countries with their GraphQL region and REST v1 region code, and activity ids.
struct KivaCatalog: Sendable {
    let json: JSONValue
    let sectors: [(name: String, id: Int)]
    let countryByCode: [String: JSONValue]
    let countryByName: [String: JSONValue]
    /// Activity ids: the position of the name among the bundled loans' activities, sorted.
    let activities: [String]

    init(json: JSONValue, loans: [JSONValue]) {
        self.json = json
        activities = Array(Set(loans.compactMap { $0["activity"]?.string })).sorted()
        sectors = json["sectors"]?.array?.compactMap { sector in sector["name"]?.string.map { ($0, sector["id"]?.int ?? 0) } } ?? []
        let countries = json["countries"]?.array ?? []
        countryByCode = Dictionary(countries.map { ($0["code"]?.string ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        countryByName = Dictionary(countries.map { ($0["name"]?.string ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    func sectorID(_ name: String) -> Int? { sectors.first { $0.name.lowercased() == name.lowercased() }?.id }

    func activityID(_ name: String) -> Int { (activities.firstIndex(of: name) ?? activities.count) + 1 }
}

/// A small deterministic hash for invented image hashes and stable "random" orders (FNV-1a, 128 bits as hex).
enum KivaHash {
    static func hex(of text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            text.utf8.reduce(seed) { hash, byte in (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        return String(format: "%016llx%016llx", fnv(0xCBF2_9CE4_8422_2325), fnv(0x8422_2325_CBF2_9CE4))
    }
}

extension JSONValue {
    /// The value as GraphQL error messages quote it: strings in quotes, objects and lists as compact JSON.
    var display: String { JSONWriter().string(self) }
}
