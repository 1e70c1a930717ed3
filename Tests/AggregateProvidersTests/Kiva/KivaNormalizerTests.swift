import AggregateCore
import AggregateDefinitions
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import AggregateText
import Foundation
@testable import KivaProvider
import KivaSandbox
import MeetupProvider
import Testing

@Suite struct KivaGraphQLNormalizerTests {
    func page(_ name: String, pageSize: Int = 20) throws -> Page {
        try KivaNormalizer.graphQLLoans(KivaFixtures.json(name), pageSize: pageSize)
    }

    @Test func moneyStringsAreExactDecimals() throws {
        let loan = try #require(try page("graphql-page.json").items.first)
        #expect(loan.metrics["loanAmount"] == Decimal(string: "1234.56"))
        #expect(loan.metrics["fundedAmount"] == Decimal(string: "19.99"))
        // 19.99 × 100 ÷ 1234.56 = 1.6192…, rounded half-up to two places.
        #expect(loan.metrics["percentFunded"] == Decimal(string: "1.62"))
        let json = JSONWriter().string(loan.jsonValue)
        #expect(json.contains(#""fundedAmount":19.99"#))
        #expect(json.contains(#""loanAmount":1234.56"#))
    }

    @Test func partnerLoanIsNormalized() throws {
        let loan = try #require(try page("graphql-page.json").items.first)
        #expect(loan.provider == "kiva")
        #expect(loan.kind == "loan")
        #expect(loan.id == "3100001")
        #expect(loan.title == "Wambui")
        #expect(loan.subtitle == "Farming · Agriculture")
        #expect(loan.summary == "to buy fertilizer and seed.\n\nWambui farms tea in Kericho. She has two sons & a daughter. She says: “Thank you, lenders!”")
        #expect(loan.url == "https://www.kiva.org/lend/3100001")
        #expect(loan.imageUrl == "https://www.kiva.org/img/w480h300/0a1b2c3d4e5f60718293a4b5c6d7e8f9.jpg")
        #expect(loan.createdAt == ISO8601.date(from: "2025-11-20T08:15:30Z"))
        #expect(loan.location == Location(city: "Kericho", country: "Kenya", latitude: -0.367, longitude: 35.283))
        #expect(loan.metrics["borrowerCount"] == 1)
        #expect(loan.metrics["lenderCount"] == 1)
        #expect(loan.tags == ["Women", "Rural Exclusion", "#Woman-Owned Business", "user_favorite"])
        #expect(loan.extra["status"] == "fundraising")
        #expect(loan.extra["partnerId"] == "777")
        #expect(loan.extra["partnerName"] == "Highlands Tea Growers Fund")
        #expect(loan.extra["countryCode"] == "KE")
        #expect(loan.extra["plannedExpirationDate"] == "2025-12-20T08:15:30Z")
        #expect(loan.extra["currency"] == "USD")
    }

    @Test func directLoanWithoutCityOrURLUsesHashAndTrustee() throws {
        let loan = try page("graphql-page.json").items[1]
        #expect(loan.id == "3100002")
        #expect(loan.title == "Bright Futures Bakery")
        #expect(loan.summary == "to buy a mixer.")
        #expect(loan.imageUrl == "https://www.kiva.org/img/w480h300/ffeeddccbbaa99887766554433221100.jpg")
        #expect(loan.location == Location(city: nil, country: "United States"))
        #expect(loan.metrics["percentFunded"] == 100)
        #expect(loan.extra["status"] == "in_repayment")
        #expect(loan.extra["trusteeName"] == "Grand River Business Network")
        #expect(loan.extra["partnerId"] == nil)
        #expect(loan.extra["plannedExpirationDate"] == nil)
    }

    @Test func missingFieldsAreOmittedNotZeroed() throws {
        let result = try page("graphql-page.json")
        #expect(result.items.count == 3, "the value without an id is skipped")
        let loan = result.items[2]
        #expect(loan.title == "Loan 3100003")
        #expect(loan.subtitle == "Services")
        #expect(loan.summary == nil)
        #expect(loan.createdAt == nil)
        #expect(loan.location == nil)
        #expect(loan.imageUrl == "https://www.kiva.org/img/w480h300/4100003.jpg")
        #expect(loan.metrics["percentFunded"] == nil, "no percentage of a zero amount")
        #expect(loan.metrics["borrowerCount"] == nil, "0 borrowers means unknown")
        #expect(loan.metrics["lenderCount"] == 0)
        #expect(loan.tags.isEmpty)
        #expect(loan.extra["status"] == "inactive_expired")
        #expect(loan.extra["partnerName"] == nil)
        let json = JSONWriter().string(loan.jsonValue)
        #expect(!json.contains(#""""#), "no empty strings in the JSON")
    }

    @Test func totalCountBecomesNumberedPagesOfTheRunsSize() throws {
        let twenty = try page("graphql-page.json", pageSize: 20)
        #expect(twenty.totalCount == 45)
        #expect(twenty.next == .numberedPages(current: 1, total: 3, pageSize: 20))
        #expect(try page("graphql-page.json", pageSize: 50).next == nil)
    }

    @Test func the2017TopLevelShapeIsRead() throws {
        let result = try page("graphql-2017-toplevel.json")
        #expect(result.items.map(\.id) == ["1329001", "1329002"])
        #expect(result.items[0].metrics["fundedAmount"] == 2000)
        #expect(result.items[0].metrics["percentFunded"] == Decimal(string: "57.55"))
        #expect(result.items[1].metrics["percentFunded"] == 25)
        #expect(result.items[0].extra["plannedExpirationDate"] == "2017-08-15T12:00:01Z")
    }

    @Test func errorsAtHTTP200AreThrown() throws {
        let error = try #require(throws: AggregateError.self) { try page("graphql-validation-error.json") }
        #expect(error.kind == .http)
        #expect(error.message.contains("GenderEnum"))
        #expect(error.message.contains("Check the search options."))
        #expect(!error.message.contains(".."))
    }

    @Test func errorsBesidePartialDataAreThrown() throws {
        let error = try #require(throws: AggregateError.self) { try page("graphql-partial-data.json") }
        #expect(error.message.contains("Cannot return null"))
    }

    @Test func emptyPageHasNoNext() throws {
        let result = try page("graphql-empty.json")
        #expect(result.items.isEmpty)
        #expect(result.next == nil)
        #expect(result.totalCount == 0)
    }

    @Test func otherShapesAreDecodingErrors() {
        let error = #expect(throws: AggregateError.self) { try KivaNormalizer.graphQLLoans(["data": nil], pageSize: 20) }
        #expect(error?.kind == .decoding)
    }

    @Test func sectorIDsAreFoundByName() throws {
        let sectors = try KivaNormalizer.graphQLSectors(KivaFixtures.json("graphql-sectors.json"))
        #expect(KivaNormalizer.sectorID(named: "personal use", in: sectors) == 16)
        #expect(KivaNormalizer.sectorID(named: "Agriculture", in: sectors) == 1)
        #expect(KivaNormalizer.sectorID(named: "Housing", in: sectors) == nil)
    }

    @Test(arguments: [
        ("fundraising", "fundraising"), ("fundRaising", "fundraising"), ("payingBack", "in_repayment"), ("ended", "paid"),
        ("inactiveExpired", "inactive_expired"), ("defaulted", "defaulted"),
    ])
    func graphQLStatusesUseRESTWords(_ graphQL: String, _ rest: String) {
        #expect(KivaStatus.fromGraphQL(graphQL) == rest)
    }
}

@Suite struct KivaRESTNormalizerTests {
    func page(_ name: String) throws -> Page { try KivaNormalizer.restLoans(KivaFixtures.json(name)) }

    @Test func listingPageIsNumberedPages() throws {
        let result = try page("rest-listing-2015.json")
        #expect(result.totalCount == 45)
        #expect(result.next == .numberedPages(current: 1, total: 3, pageSize: 20))
        let loan = result.items[0]
        #expect(loan.id == "960001")
        #expect(loan.title == "Odhiambo")
        #expect(loan.subtitle == "Fishing · Agriculture")
        #expect(loan.summary == "to buy a new net", "trailing spaces are trimmed")
        #expect(loan.imageUrl == "https://www.kiva.org/img/w480h300/1980001.jpg")
        #expect(loan.createdAt == ISO8601.date(from: "2015-09-06T16:50:09Z"))
        #expect(loan.location == Location(city: "Homa Bay", country: "Kenya", latitude: 1, longitude: 38))
        #expect(loan.metrics == ["loanAmount": 100, "fundedAmount": 0, "percentFunded": 0, "borrowerCount": 1, "lenderCount": 0])
        #expect(loan.tags == ["Rural Exclusion"])
        #expect(loan.extra["partnerId"] == "164")
        #expect(loan.extra["countryCode"] == "KE")
        #expect(loan.extra["languages"] == ["en"])
        #expect(loan.extra["plannedExpirationDate"] == "2015-10-06T16:50:09Z")
    }

    @Test func unknownImageTemplateGivesNoURL() throws {
        let loan = try page("rest-listing-2015.json").items[1]
        #expect(loan.imageUrl == nil)
        #expect(loan.location?.city == nil)
        #expect(loan.metrics["percentFunded"] == Decimal(string: "93.75"))
    }

    @Test func data2009WithoutCountryCodeAndWithRepeatedLanguages() throws {
        let result = try page("rest-listing-2009.json")
        #expect(result.next == .numberedPages(current: 2, total: 200, pageSize: 20))
        let first = result.items[0]
        #expect(first.location?.country == "Ghana")
        #expect(first.extra["countryCode"] == nil)
        #expect(first.extra["languages"] == ["en"])
        #expect(first.metrics["lenderCount"] == nil)
        #expect(first.extra["plannedExpirationDate"] == nil)
        let group = result.items[1]
        #expect(group.location == Location(city: nil, country: "Pakistan", latitude: 30, longitude: 70))
        #expect(group.imageUrl == nil)
        #expect(group.metrics["borrowerCount"] == 5)
        let odd = result.items[2]
        #expect(odd.location == Location(city: nil, country: "Togo"), "out-of-range pairs and an empty town are dropped")
        #expect(odd.extra["languages"] == ["fr", "en"])
        #expect(odd.extra["partnerId"] == nil)
    }

    @Test func detailDescriptionLosesItsHTMLAndLineBreaks() throws {
        let result = try page("rest-detail-2017.json")
        #expect(result.next == nil)
        #expect(result.totalCount == nil)
        let loan = try #require(result.items.first)
        #expect(loan.summary == "to buy water filters for their families.\n\nSreymom’s group lives in Kampong Speu. Each of the five members will buy a water filter. They thank you & wish you well.")
        #expect(loan.metrics["borrowerCount"] == 5, "details count their borrowers")
        #expect(loan.tags == ["Water and Sanitation", "#Eco-friendly", "#Technology", "#Plain String Tag"])
        #expect(loan.extra["status"] == "paid")
    }

    @Test func descriptionFallsBackToTheListedLanguage() {
        let description: JSONValue = ["languages": ["es"], "texts": ["es": "Vende <b>pan</b>."]]
        #expect(KivaNormalizer.restDescription(description) == "Vende <b>pan</b>.")
        #expect(KivaNormalizer.summary(use: nil, description: KivaNormalizer.restDescription(description)) == "Vende pan.")
        #expect(KivaNormalizer.restDescription(["languages": ["en"]]) == nil)
    }

    @Test func pagePastTheEndIsEmptyAndLast() throws {
        let result = try page("rest-page-past-end.json")
        #expect(result.items.isEmpty)
        #expect(result.next == nil)
        #expect(result.totalCount == 45)
    }

    @Test func errorBodyAtHTTP200IsThrown() throws {
        let error = try #require(throws: AggregateError.self) { try page("rest-error-invalid-identifier.json") }
        #expect(error.kind == .notFound)
        #expect(error.message.contains("org.kiva.InvalidIdentifier"))
    }

    @Test func lenderListsAreNotLoans() throws {
        let error = try #require(throws: AggregateError.self) { try page("rest-lenders-with-anonymous.json") }
        #expect(error.kind == .decoding)
        #expect(error.message.contains("lenders"))
    }

    @Test(arguments: [
        ("13 122", 13.0, 122.0), ("-0.303099 36.080026", -0.303099, 36.080026), ("30  70", 30, 70), ("6.85,0.566667", 6.85, 0.566667),
    ])
    func geoPairsAreOneString(_ pairs: String, _ latitude: Double, _ longitude: Double) throws {
        let point = try #require(KivaNormalizer.geoPairs(pairs))
        #expect(point.latitude == latitude)
        #expect(point.longitude == longitude)
    }

    @Test(arguments: ["", "12", "abc def", "1 2 3", "91 0", "0 181"])
    func malformedGeoPairsAreIgnored(_ pairs: String) {
        #expect(KivaNormalizer.geoPairs(pairs) == nil)
    }
}

@Suite struct KivaMoneyTests {
    @Test(arguments: [
        ("425", "600", "70.83"), ("1", "3", "33.33"), ("2", "3", "66.67"), ("0", "100", "0"), ("1", "8", "12.5"),
        ("600", "600", "100"), ("700", "600", "116.67"), ("0.01", "1000000", "0"),
    ])
    func percentFundedIsRoundedHalfUpToTwoPlaces(_ funded: String, _ amount: String, _ expected: String) {
        #expect(KivaMoney.percentFunded(Decimal(string: funded)!, of: Decimal(string: amount)!) == Decimal(string: expected))
    }

    @Test func noPercentageOfNothing() {
        #expect(KivaMoney.percentFunded(100, of: 0) == nil)
        #expect(KivaMoney.displayPercent(100, of: 0) == nil)
    }

    @Test(arguments: [(425, 600, 71), (599, 600, 99), (1, 1000, 1), (0, 500, 0), (600, 600, 100), (700, 600, 117), (300, 600, 50)])
    func displayedPercentIsWholeButNeverClaimsDoneOrNothingFalsely(_ funded: Int, _ amount: Int, _ expected: Int) {
        #expect(KivaMoney.displayPercent(Decimal(funded), of: Decimal(amount)) == expected)
    }

    @Test(arguments: [
        ("425", "$425"), ("1350", "$1,350"), ("1234567.5", "$1,234,567.50"), ("0", "$0"), ("19.99", "$19.99"), ("10000", "$10,000"),
        ("999", "$999"), ("100.005", "$100.01"), ("-5", "-$5"),
    ])
    func dollarsAreGroupedWithCentsOnlyWhenThereAreCents(_ amount: String, _ expected: String) {
        #expect(KivaMoney.dollars(Decimal(string: amount)!) == expected)
    }

    @Test func progressSaysWhatIsKnown() {
        #expect(KivaMoney.progress(funded: 425, of: 600) == "$425 of $600 (71%)")
        #expect(KivaMoney.progress(funded: nil, of: 600) == "$600")
        #expect(KivaMoney.progress(funded: 25, of: nil) == "$25 raised")
        #expect(KivaMoney.progress(funded: nil, of: nil) == nil)
    }

    @Test func textLineMatchesTheIssueAndFitsTheWidth() {
        var item = Item(provider: "kiva", kind: "loan", id: "1", title: "Aisha", subtitle: "Food Production · Agriculture")
        item.summary = "to buy fertilizer and improved seed.\n\nAisha farms two acres."
        item.location = Location(city: "Nakuru", country: "Kenya")
        item.metrics = ["loanAmount": 600, "fundedAmount": 425]
        let wide = KivaText.line(for: item, style: TextStyle(width: 200))
        #expect(wide == "Aisha — Food Production · Agriculture — Kenya: $425 of $600 (71%) — to buy fertilizer and improved seed.")
        let narrow = KivaText.line(for: item, style: TextStyle(width: 80))
        #expect(narrow == "Aisha — Food Production · Agriculture — Kenya: $425 of $600 (71%) — to buy fert…")
        #expect(TextLayout.width(narrow) == 80)
        item.location = nil
        item.metrics = [:]
        #expect(KivaText.line(for: item, style: TextStyle(width: 200)) == "Aisha — Food Production · Agriculture — to buy fertilizer and improved seed.")
    }
}

@Suite struct KivaErrorTests {
    func response(_ status: Int, _ body: String = "", headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test func restLockoutSaysToWaitAndIsNotRetryable() {
        let error = KivaErrors.error(
            for: response(403, "Rate Limit Exceeded", headers: ["X-RateLimit-Overall-Limit": "60", "X-RateLimit-Overall-Remaining": "0"]),
            api: .rest, hasAppID: false)
        #expect(error.kind == .rateLimited)
        #expect(error.httpStatus == 403)
        #expect(error.message.contains("HTTP 403"))
        #expect(error.message.contains("more than 60 requests a minute, 0 of 60 left"))
        #expect(error.message.contains("locked out"))
        #expect(error.message.contains("Wait a few minutes before retrying"))
        #expect(error.message.contains("KIVA_APP_ID raises the limit to 500"))
        #expect(!RetryPolicy.retryableStatuses.contains(403), "a lock-out must not be retried automatically")
    }

    @Test func restLockoutWithAnAppIDUsesItsLimit() {
        let error = KivaErrors.error(for: response(403, #"{"code":"x","message":"Rate Limit Exceeded"}"#), api: .rest, hasAppID: true)
        #expect(error.message.contains("HTTP 403: Rate Limit Exceeded"))
        #expect(error.message.contains("more than 500 requests a minute"))
        #expect(!error.message.contains("setting KIVA_APP_ID"))
    }

    @Test func restErrorBodiesKeepTheAPIsMessage() {
        let missing = KivaErrors.error(for: response(404, #"{"code":"org.kiva.InvalidIdentifier","message":"No such loan"}"#), api: .rest, hasAppID: false)
        #expect(missing.kind == .notFound)
        #expect(missing.message == "Kiva's REST API found nothing: No such loan (HTTP 404, code org.kiva.InvalidIdentifier)")
        let bad = KivaErrors.error(for: response(400, #"{"code":"org.kiva.InvalidParameter","message":"page must be a whole number"}"#), api: .rest, hasAppID: false)
        #expect(bad.kind == .http)
        #expect(bad.message.contains("page must be a whole number"))
    }

    @Test func htmlErrorPagesAreDescribed() {
        let error = KivaErrors.error(for: response(502, "<!DOCTYPE html><html><body>Bad gateway</body></html>"), api: .rest, hasAppID: false)
        #expect(error.kind == .http)
        #expect(error.message.contains("HTTP 502"))
        #expect(error.message.contains("HTML page"))
    }

    @Test func graphQLErrorBodiesAtAnyStatusAreRead() {
        let error = KivaErrors.error(for: response(400, #"{"errors":[{"message":"Syntax Error: Unexpected Name"}]}"#), api: .graphql, hasAppID: false)
        #expect(error.kind == .http)
        #expect(error.message == "Kiva's GraphQL API rejected the query (HTTP 400): Syntax Error: Unexpected Name.")
    }

    @Test func graphQLRefusalsDoNotAskForCredentials() {
        let error = KivaErrors.error(for: response(403), api: .graphql, hasAppID: false)
        #expect(error.kind == .auth)
        #expect(error.message.contains("needs no credentials"))
        #expect(!error.message.contains("Check KIVA_APP_ID"))
    }

    @Test func graphQLErrorKinds() {
        #expect(KivaErrors.graphQLError(["errors": [["message": "Rate limit exceeded"]]])?.kind == .rateLimited)
        #expect(KivaErrors.graphQLError(["errors": [["message": "Login required", "extensions": ["code": "UNAUTHENTICATED"]]]])?.kind == .auth)
        #expect(KivaErrors.graphQLError(["errors": []]) == nil)
        #expect(KivaErrors.graphQLError(["errors": [[:]]])?.message == "Kiva's GraphQL API rejected the query: an unspecified error.")
    }

    @Test func graphQLServerFailuresSayToTryLater() {
        let error = KivaErrors.error(for: response(503, #"{"errors":[{"message":"Service Unavailable"}]}"#), api: .graphql, hasAppID: false)
        #expect(error.kind == .http)
        #expect(error.message == "Kiva's GraphQL API failed (HTTP 503): Service Unavailable. Try again later.")
    }

    @Test func tooManyRequestsIsRateLimited() {
        #expect(KivaErrors.error(for: response(429), api: .graphql, hasAppID: false).kind == .rateLimited)
    }
}

/// The whole normalized output of the quirkiest fixtures, pinned: the JSON contract as users see it.
@Suite struct KivaGoldenItemTests {
    @Test(arguments: ["graphql-page.json", "rest-listing-2009.json", "rest-detail-2017.json"])
    func normalizedFixtureMatchesItsGoldenFile(_ name: String) throws {
        let json = try KivaFixtures.json(name)
        let page = name.hasPrefix("graphql") ? try KivaNormalizer.graphQLLoans(json, pageSize: 20) : try KivaNormalizer.restLoans(json)
        let text = JSONWriter(pretty: true).string(.array(page.items.map(\.jsonValue))) + "\n"
        let golden = TestPaths.testTarget("AggregateProvidersTests")
            .appendingPathComponent("Golden/kiva/\(name.replacingOccurrences(of: ".json", with: ".items.json"))")
        if let message = Golden.check(text, against: golden) { Issue.record(Comment(rawValue: message)) }
    }
}
