import AggregateCore
import AggregateDefinitions
import AggregateJSON
import AggregateSandbox
import AggregateSandboxKit
import Foundation
@testable import KivaProvider
@testable import KivaSandbox
import Testing

@Suite struct KivaRESTSandboxTests {
    func get(_ path: String, _ query: [(String, String)] = []) throws -> SandboxResponse {
        try #require(KivaFixtures.sandbox(KivaFixtures.request(path, query: query)))
    }

    func postedDates(_ response: SandboxResponse) -> [String] {
        response.parsedBody["loans"]?.array?.compactMap { $0["posted_date"]?.string } ?? []
    }

    @Test func newestListsFundraisingLoansNewestFirstInPagesOf20() throws {
        let first = try get("/v1/loans/newest.json")
        #expect(first.status == 200)
        #expect(KivaSandbox.loans.count == 51)
        #expect(first.parsedBody["paging"] == ["page": 1, "total": 42, "page_size": 20, "pages": 3])
        let loans = try #require(first.parsedBody["loans"]?.array)
        #expect(loans.count == 20)
        #expect(loans.allSatisfy { $0["status"] == "fundraising" })
        let dates = postedDates(first)
        #expect(dates == dates.sorted(by: >))
        #expect(loans[0]["name"] == "Aisha")
        let last = try get("/v1/loans/newest.json", [("page", "3")])
        #expect(last.parsedBody["loans"]?.array?.count == 2)
        #expect(try #require(postedDates(last).first) < (dates.last ?? ""), "pages continue the order")
    }

    @Test func listingsCarryNoTextsOrBorrowers() throws {
        let loan = try #require(try get("/v1/loans/newest.json").parsedBody["loans"]?[0])
        #expect(loan["borrowers"] == nil)
        #expect(loan["description"]?["texts"] == nil)
        #expect(loan["description"]?["languages"] == ["en"])
    }

    @Test func aPagePastTheEndIsEmptyButSaysWhereItIs() throws {
        let past = try get("/v1/loans/newest.json", [("page", "9")])
        #expect(past.status == 200)
        #expect(past.parsedBody == ["paging": ["page": 9, "total": 42, "page_size": 20, "pages": 3], "loans": []])
    }

    @Test(arguments: ["0", "-1", "two", ""])
    func invalidPagesAreV1Errors(_ page: String) throws {
        let response = try get("/v1/loans/search.json", [("page", page)])
        #expect(response.status == 400)
        #expect(response.parsedBody["code"] == "org.kiva.InvalidParameter")
        #expect(response.parsedBody["message"]?.string?.contains("page") == true)
    }

    @Test func rateLimitHeadersDependOnTheAppID() throws {
        let anonymous = try get("/v1/loans/newest.json")
        #expect(anonymous.headers["X-RateLimit-Overall-Limit"] == "60")
        #expect(anonymous.headers["X-RateLimit-Overall-Remaining"] == "59")
        #expect(anonymous.headers["X-RateLimit-Specific-Limit"] == "60")
        let registered = try get("/v1/loans/newest.json", [("app_id", "org.example.loans")])
        #expect(registered.headers["X-RateLimit-Overall-Limit"] == "500")
        #expect(registered.headers["X-RateLimit-Specific-Remaining"] == "499")
    }

    @Test func theLockoutFaultIs403WithNothingLeft() throws {
        let request = KivaFixtures.request("/v1/loans/search.json")
        let context = SandboxContext(baseURL: URL(string: "http://127.0.0.1/kiva")!)
        let response = try #require(KivaSandbox.sandboxFaultResponse(status: 403, request: request, context: context))
        #expect(response.status == 403)
        #expect(response.headers["X-RateLimit-Overall-Remaining"] == "0")
        #expect(String(decoding: response.body, as: UTF8.self) == "Rate Limit Exceeded")
        let other = try #require(KivaSandbox.sandboxFaultResponse(status: 500, request: request, context: context))
        #expect(other.parsedBody["code"] == "org.kiva.SandboxFault")
        let elsewhere = KivaFixtures.request("/2/groups")
        #expect(KivaSandbox.sandboxFaultResponse(status: 500, request: elsewhere, context: context) == nil, "not Kiva's path")
    }

    @Test func searchFiltersCombine() throws {
        let response = try get("/v1/loans/search.json", [("sector", "agriculture"), ("gender", "female"), ("status", "fundraising")])
        let loans = try #require(response.parsedBody["loans"]?.array)
        #expect(!loans.isEmpty)
        #expect(loans.allSatisfy { $0["sector"] == "Agriculture" && $0["status"] == "fundraising" })
        #expect(loans.contains { $0["name"] == "Umoja Women's Group" })
        #expect(!loans.contains { $0["name"] == "Siosaia" }, "a man's loan is not a woman's")
    }

    @Test func countryCodesMatch2009RecordsThatLackThem() throws {
        let response = try get("/v1/loans/search.json", [("country_code", "gh"), ("status", "paid")])
        let loans = try #require(response.parsedBody["loans"]?.array)
        #expect(loans.map { $0["name"] } == ["Kojo Mensah"])
        #expect(loans[0]["location"]?["country_code"] == nil)
        #expect(loans[0]["description"]?["languages"] == ["en", "en"])
    }

    @Test func wordsAreMatchedAcrossFieldsAndAccents() throws {
        let water = try get("/v1/loans/search.json", [("q", "WATER filter")]).parsedBody["loans"]?.array ?? []
        #expect(water.map { $0["name"] } == ["Chanthy"])
        let accents = try get("/v1/loans/search.json", [("q", "leon")]).parsedBody["loans"]?.array ?? []
        #expect(accents.map { $0["name"] } == ["Hugo"], "León matches leon")
    }

    @Test func withoutStatusEveryStateIsSearchedAndSortsApply() throws {
        let all = try get("/v1/loans/search.json", [("sort_by", "oldest")])
        #expect(all.parsedBody["paging"]?["total"] == 51)
        #expect(all.parsedBody["loans"]?[0]?["id"] == 95478, "the oldest loan first")
        let amounts = try get("/v1/loans/search.json", [("sort_by", "loan_amount")]).parsedBody["loans"]?.array?.compactMap { $0["loan_amount"]?.int } ?? []
        #expect(amounts == amounts.sorted())
        #expect(try get("/v1/loans/search.json", [("region", "oc")]).parsedBody["loans"]?.array?.count == 2)
    }

    @Test(arguments: [("status", "bogus"), ("gender", "other"), ("sort_by", "best")])
    func invalidParametersAreRefused(_ name: String, _ value: String) throws {
        let response = try get("/v1/loans/search.json", [(name, value)])
        #expect(response.status == 400)
        #expect(response.parsedBody["message"]?.string?.contains(value) == true)
    }

    @Test func detailsCarryTextsAndBorrowers() throws {
        let response = try get("/v1/loans/2950117,95901.json")
        let loans = try #require(response.parsedBody["loans"]?.array)
        #expect(loans.map { $0["id"] } == [2950117, 95901])
        #expect(loans[0]["description"]?["texts"]?["en"]?.string?.contains("<br />") == true)
        #expect(loans[0]["borrowers"]?.array?.count == 1)
        let missing = try get("/v1/loans/1.json")
        #expect(missing.status == 404)
        #expect(missing.parsedBody["code"] == "org.kiva.InvalidIdentifier")
        #expect(try get("/v1/loans/abc.json").status == 400)
    }

    @Test func otherRoutes() throws {
        #expect(try get("/v1/templates/images.json").parsedBody["templates"]?[0]?["pattern"] == "https://www.kiva.org/img/<size>/<id>.jpg")
        #expect(try get("/v1/lenders/someone.json").status == 404)
        #expect(KivaFixtures.sandbox(KivaFixtures.request("/v1/loans/newest.json", method: "DELETE"))?.status == 405)
        #expect(KivaFixtures.sandbox(KivaFixtures.request("/2/groups")) == nil, "other providers' paths are not Kiva's")
    }
}

@Suite struct KivaGraphQLSandboxTests {
    func post(_ variables: JSONObject, document: String = KivaGraphQL.loans(withQueryString: false)) throws -> SandboxResponse {
        let request = KivaFixtures.request("/graphql", method: "POST", body: KivaFixtures.graphQLBody(variables: variables, document: document))
        return try #require(KivaFixtures.sandbox(request))
    }

    @Test func newestLoansWithMoneyAsStrings() throws {
        let response = try post(JSONObject(pairs: ["offset": 0, "limit": 20, "filters": ["status": "fundraising"], "sortBy": "newest"]))
        #expect(response.status == 200)
        let loans = try #require(response.parsedBody["data"]?["lend"]?["loans"])
        #expect(loans["totalCount"] == 42)
        let values = try #require(loans["values"]?.array)
        #expect(values.count == 20)
        let dates = values.compactMap { $0["fundraisingDate"]?.string }
        #expect(dates == dates.sorted(by: >))
        let aisha = values[0]
        #expect(aisha["loanAmount"] == "600.00")
        #expect(aisha["loanFundraisingInfo"]?["fundedAmount"] == "425.00")
        #expect(aisha["loanFundraisingInfo"]?["reservedAmount"] == "25.00")
        #expect(aisha["geocode"]?["country"] == ["isoCode": "KE", "name": "Kenya", "region": "Africa"])
        #expect(aisha["geocode"]?["latitude"] == .double(-0.303099))
        #expect(aisha["sector"] == ["id": 1, "name": "Agriculture"])
        #expect(aisha["__typename"] == "LoanPartner")
        #expect(aisha["description"]?.string?.contains("<br />") == true)
    }

    @Test func offsetsPageAndRunPastTheEnd() throws {
        let third = try post(JSONObject(pairs: ["offset": 40, "limit": 20, "sortBy": "newest"]))
        #expect(third.parsedBody["data"]?["lend"]?["loans"]?["values"]?.array?.count == 2)
        let past = try post(JSONObject(pairs: ["offset": 100, "limit": 20]))
        #expect(past.parsedBody["data"]?["lend"]?["loans"] == ["totalCount": 42, "values": []])
    }

    @Test func filtersMatchTheRESTSearch() throws {
        let response = try post(JSONObject(pairs: ["filters": ["status": "ended", "country": "gh"]]))
        let values = response.parsedBody["data"]?["lend"]?["loans"]?["values"]?.array ?? []
        #expect(values.map { $0["name"] } == ["Kojo Mensah"], "a single country is coerced to a list")
        #expect(values.first?["status"] == "ended")
        #expect(values.first?["geocode"]?["country"]?["isoCode"] == "GH")
        let sector = try post(JSONObject(pairs: ["filters": ["sector": [16], "isGroup": false]]))
        let names = sector.parsedBody["data"]?["lend"]?["loans"]?["values"]?.array?.compactMap { $0["sector"]?["name"]?.string } ?? []
        #expect(!names.isEmpty && names.allSatisfy { $0 == "Personal Use" })
    }

    @Test func theQueryStringSearchesWords() throws {
        let document = KivaGraphQL.loans(withQueryString: true)
        let response = try post(JSONObject(pairs: ["queryString": "solar"]), document: document)
        let names = response.parsedBody["data"]?["lend"]?["loans"]?["values"]?.array?.compactMap { $0["name"]?.string } ?? []
        #expect(names == ["Chidi", "Samir"], "newest first")
    }

    @Test(arguments: [
        (JSONObject(pairs: ["filters": ["gender": "other"]]), "GenderEnum"),
        (JSONObject(pairs: ["filters": ["status": "fundRaising"]]), "LoanStatusFilterEnum"),
        (JSONObject(pairs: ["filters": ["colour": "red"]]), "Field \"colour\" is not defined by type \"LoanSearchFiltersInput\""),
        (JSONObject(pairs: ["filters": ["sector": ["Agriculture"]]]), "Int cannot represent non-integer value: \"Agriculture\""),
        (JSONObject(pairs: ["filters": "fundraising"]), "LoanSearchFiltersInput"),
        (JSONObject(pairs: ["sortBy": "cheapest"]), "LoanSearchSortByEnum"),
        (JSONObject(pairs: ["offset": -20]), "$offset"),
    ])
    func badVariablesAreGraphQLErrorsAt200(_ variables: JSONObject, _ expected: String) throws {
        let response = try post(variables)
        #expect(response.status == 200)
        #expect(response.parsedBody["data"] == .null)
        let error = try #require(response.parsedBody["errors"]?[0])
        #expect(error["message"]?.string?.contains(expected) == true, "\(error)")
        #expect(error["extensions"]?["code"] == "BAD_USER_INPUT")
    }

    @Test func the2017TopLevelQueryNoLongerExists() throws {
        let response = try post(JSONObject(), document: "{ loans(filters: {status: fundRaising}, limit: 5) { totalCount values { id fundedAmount } } }")
        #expect(response.parsedBody["errors"]?[0]?["message"] == "Cannot query field \"loans\" on type \"Query\".")
        #expect(response.parsedBody["errors"]?[0]?["extensions"]?["code"] == "GRAPHQL_VALIDATION_FAILED")
    }

    @Test func sectorsAreListedWithIDs() throws {
        let response = try post(JSONObject(), document: KivaGraphQL.sectors)
        let sectors = try #require(response.parsedBody["data"]?["lend"]?["sector"]?.array)
        #expect(sectors.count == 15)
        #expect(sectors.contains(["id": 16, "name": "Personal Use"]))
        #expect(Set(sectors.compactMap { $0["name"]?.string }) == Set(KivaSearch.sectors), "the command line's choices are Kiva's sectors")
    }

    @Test func getRequestsWork() throws {
        let request = KivaFixtures.request(
            "/graphql",
            query: [("query", "{ lend { loans(limit: 2) { totalCount values { id } } } }"), ("variables", #"{"limit": 2}"#)])
        let response = try #require(KivaFixtures.sandbox(request))
        #expect(response.parsedBody["data"]?["lend"]?["loans"]?["values"]?.array?.count == 2)
    }

    @Test func aRequestWithoutAQueryIsRefused() throws {
        let response = try #require(KivaFixtures.sandbox(KivaFixtures.request("/graphql", method: "POST", body: ["variables": [:]])))
        #expect(response.status == 400)
        #expect(response.parsedBody["errors"]?[0]?["message"] == "Must provide query string.")
    }

    @Test func graphQLFaultsKeepTheErrorsShape() throws {
        let request = KivaFixtures.request("/graphql", method: "POST")
        let response = try #require(KivaSandbox.sandboxFaultResponse(status: 503, request: request, context: SandboxContext(baseURL: URL(string: "http://127.0.0.1")!)))
        #expect(response.status == 503)
        #expect(response.parsedBody["errors"]?[0]?["message"]?.string?.contains("503") == true)
    }
}

@Suite struct KivaSandboxDataTests {
    @Test func theCatalogCoversEveryBundledLoan() throws {
        let catalog = KivaSandbox.catalog
        #expect(catalog.sectors.count == 15)
        for loan in KivaSandbox.loans {
            let code = try #require(loan.countryCode, "loan \(loan.id) has a country the catalogue knows")
            #expect(catalog.countryByCode[code]?["regionCode"]?.string?.count == 2, "loan \(loan.id)")
            #expect(catalog.sectorID(loan["sector"]?.string ?? "") != nil, "loan \(loan.id)")
            if loan["partner_id"]?.idString != nil {
                #expect(loan.graphQL["partnerName"]?.string?.hasPrefix("Field Partner") == false, "loan \(loan.id) has an invented partner name")
            }
        }
        let direct = try #require(KivaSandbox.loans.first { $0.id == 2950160 })
        #expect(direct.graphQL["trusteeName"] == "Corktown Merchants Association")
    }

    @Test(arguments: KivaSandbox.restSorts + ["loan_amount_desc", "random"])
    func everyOrderHoldsEveryLoanWithTiesNewestFirst(_ order: String) throws {
        let loans = try #require(KivaSandbox.orders[order])
        #expect(Set(loans.map(\.id)) == Set(KivaSandbox.loans.map(\.id)) && loans.count == KivaSandbox.loans.count)
        let keys: [String: (KivaSandbox.Loan) -> Decimal] = [
            "loan_amount": { $0.amount }, "loan_amount_desc": { -$0.amount }, "popularity": { -($0["lender_count"]?.decimal ?? 0) },
            "amount_remaining": { $0.amount - ($0["funded_amount"]?.decimal ?? 0) },
        ]
        guard let key = keys[order] else { return }
        for (earlier, later) in zip(loans, loans.dropFirst()) {
            #expect(key(earlier) < key(later) || (key(earlier) == key(later) && (earlier.posted, earlier.id) > (later.posted, later.id)))
        }
    }
}
