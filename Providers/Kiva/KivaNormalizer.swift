import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// Pure functions from Kiva response bodies to items and pages: GraphQL `lend.loans` (and the 2017 top-level
/// `loans`), and REST v1 loan listings and details from 2009 to today.
enum KivaNormalizer {
    // MARK: GraphQL

    /// A `lend { loans }` body. `errors` are errors even at HTTP 200, with or without `data`.
    /// - Parameter pageSize: the page size the run asks for, to turn `totalCount` into a number of pages.
    static func graphQLLoans(_ json: JSONValue, pageSize: Int) throws -> Page {
        if let error = KivaErrors.graphQLError(json) { throw error }
        // The current schema nests the connection under `lend`; the 2017 schema had it at the top level.
        guard let connection = json["data"]?["lend"]?["loans"] ?? json["data"]?["loans"], let values = connection["values"]?.array else {
            throw AggregateError(.decoding, "the response has no data.lend.loans.values (not a GraphQL loans response)")
        }
        let total = connection["totalCount"]?.int
        var next: Page.Next?
        // The body does not say which offset it answers, so `next` describes the run from its first page; the
        // fetch layer reads `next` only there and then fetches the numbered pages it needs.
        if let total, !values.isEmpty, pageSize > 0, total > pageSize {
            next = .numberedPages(current: 1, total: (total + pageSize - 1) / pageSize, pageSize: pageSize)
        }
        return Page(items: values.compactMap(graphQLLoan), next: next, totalCount: total)
    }

    /// One GraphQL loan; `nil` without an id.
    static func graphQLLoan(_ loan: JSONValue) -> Item? {
        guard let id = loan["id"]?.idString else { return nil }
        var item = Item(provider: "kiva", kind: "loan", id: id, title: title(loan["name"], id: id))
        item.subtitle = subtitle(activity: loan["activity"]?["name"]?.nonEmptyString, sector: loan["sector"]?["name"]?.nonEmptyString)
        item.summary = summary(use: loan["use"]?.string, description: loan["description"]?.string)
        item.url = KivaLinks.loan(id)
        item.imageUrl = KivaLinks.graphQLImage(loan["image"])
        item.createdAt = loan["fundraisingDate"]?.string.flatMap(ISO8601.date(from:))
        let geocode = loan["geocode"]
        let country = geocode?["country"]
        item.location = Location(
            city: clean(geocode?["city"]?.string), country: clean(country?["name"]?.string) ?? country?["isoCode"]?.nonEmptyString,
            latitude: coordinate(geocode?["latitude"], limit: 90), longitude: coordinate(geocode?["longitude"], limit: 180)
        ).nonEmpty
        // 2017's schema had `fundedAmount` on the loan itself.
        let funded = loan["loanFundraisingInfo"]?["fundedAmount"] ?? loan["fundedAmount"]
        item.metrics = metrics(
            loanAmount: loan["loanAmount"], fundedAmount: funded, borrowerCount: loan["borrowerCount"]?.decimal,
            lenderCount: loan["lenders"]?["totalCount"]?.decimal)
        item.tags = uniqueTags((loan["themes"]?.array ?? []) + (loan["tags"]?.array ?? []))
        var extra = JSONObject()
        extra.set("status", loan["status"]?.nonEmptyString.map { .string(KivaStatus.fromGraphQL($0)) })
        extra.set("partnerId", loan["partner"]?["id"]?.idString.map(JSONValue.string))
        extra.set("partnerName", clean(loan["partnerName"]?.string).map(JSONValue.string))
        extra.set("trusteeName", clean(loan["trusteeName"]?.string).map(JSONValue.string))
        extra.set("countryCode", country?["isoCode"]?.nonEmptyString.map { .string($0.uppercased()) })
        extra.set("plannedExpirationDate", isoDate(loan["plannedExpirationDate"]))
        extra.set("currency", KivaMoney.currency(for: item.metrics))
        item.extra = extra
        return item
    }

    /// The sector list of `lend { sector { id name } }`, as a JSON array (cacheable in a ``RunCache``).
    static func graphQLSectors(_ json: JSONValue) throws -> JSONValue {
        if let error = KivaErrors.graphQLError(json) { throw error }
        guard let sectors = json["data"]?["lend"]?["sector"]?.array else {
            throw AggregateError(.decoding, "the response has no data.lend.sector list (not a GraphQL sector list)")
        }
        return .array(sectors)
    }

    /// The id of the sector called `name` (compared case-insensitively) in a sector list.
    static func sectorID(named name: String, in sectors: JSONValue) -> Int? {
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        return sectors.array?.first { $0["name"]?.string?.lowercased() == wanted }?["id"]?.int
    }

    // MARK: REST v1

    /// A REST v1 loans body: a listing page (`{"paging": ..., "loans": [...]}`) or a detail (`{"loans": [...]}`).
    static func restLoans(_ json: JSONValue) throws -> Page {
        guard let loans = json["loans"]?.array else {
            // v1 error bodies (`code` and `message`) are not guaranteed to come with an error status.
            if let error = KivaErrors.restError(json, status: nil) { throw error }
            if json["lenders"] != nil { throw AggregateError(.decoding, "the response is a list of lenders, not of loans") }
            throw AggregateError(.decoding, "the response has no 'loans' list (not a REST v1 loans response)")
        }
        let paging = json["paging"]
        let page = paging?["page"]?.int ?? 1
        var next: Page.Next?
        if let pages = paging?["pages"]?.int, let size = paging?["page_size"]?.int, size > 0, page < pages, !loans.isEmpty {
            next = .numberedPages(current: page, total: pages, pageSize: size)
        }
        return Page(items: loans.compactMap(restLoan), next: next, totalCount: paging?["total"]?.int)
    }

    /// One REST v1 loan, listing or detail; `nil` without an id.
    static func restLoan(_ loan: JSONValue) -> Item? {
        guard let id = loan["id"]?.idString else { return nil }
        var item = Item(provider: "kiva", kind: "loan", id: id, title: title(loan["name"], id: id))
        item.subtitle = subtitle(activity: loan["activity"]?.nonEmptyString, sector: loan["sector"]?.nonEmptyString)
        item.summary = summary(use: loan["use"]?.string, description: restDescription(loan["description"]))
        item.url = KivaLinks.loan(id)
        item.imageUrl = KivaLinks.restImage(loan["image"])
        item.createdAt = loan["posted_date"]?.string.flatMap(ISO8601.date(from:))
        let place = loan["location"]
        let point = geoPairs(place?["geo"]?["pairs"]?.string)
        // 2009 data has no country_code: the country's name is always there.
        item.location = Location(
            city: clean(place?["town"]?.string), country: clean(place?["country"]?.string) ?? place?["country_code"]?.nonEmptyString,
            latitude: point?.latitude, longitude: point?.longitude
        ).nonEmpty
        // Details carry `borrowers` but no `borrower_count`.
        let borrowers = loan["borrower_count"]?.decimal ?? loan["borrowers"]?.array.flatMap { $0.isEmpty ? nil : Decimal($0.count) }
        item.metrics = metrics(
            loanAmount: loan["loan_amount"], fundedAmount: loan["funded_amount"], borrowerCount: borrowers,
            lenderCount: loan["lender_count"]?.decimal)
        // Themes: a list since 2015, one string in 2014; tags: objects with a name (2017), or plain strings.
        var labels = loan["themes"]?.array ?? []
        if let theme = loan["theme"], theme.string != nil { labels.append(theme) }
        labels += (loan["tags"]?.array ?? []).map { $0["name"] ?? $0 }
        item.tags = uniqueTags(labels)
        var extra = JSONObject()
        extra.set("status", loan["status"]?.nonEmptyString.map(JSONValue.string))
        extra.set("partnerId", loan["partner_id"]?.idString.map(JSONValue.string))
        extra.set("countryCode", place?["country_code"]?.nonEmptyString.map { .string($0.uppercased()) })
        extra.set("plannedExpirationDate", isoDate(loan["planned_expiration_date"]))
        extra.set("currency", KivaMoney.currency(for: item.metrics))
        // 2009 data lists a language twice (["en", "en"]).
        let languages = unique(loan["description"]?["languages"]?.array?.compactMap(\.nonEmptyString) ?? [])
        if !languages.isEmpty { extra["languages"] = .array(languages.map(JSONValue.string)) }
        item.extra = extra
        return item
    }

    /// A detail's description text: English when there is one, else the first listed language's, as plain text.
    /// Listings carry only `languages`, no texts.
    static func restDescription(_ description: JSONValue?) -> String? {
        guard let texts = description?["texts"]?.object, !texts.isEmpty else { return nil }
        let order = ["en"] + (description?["languages"]?.array?.compactMap(\.string) ?? []) + texts.keys
        for language in order {
            if let text = texts[language]?.nonEmptyString { return text }
        }
        return nil
    }

    /// REST's `geo.pairs`, one string `"lat lon"` (e.g. `"13 122"`, `"-0.303099 36.080026"`), as coordinates.
    static func geoPairs(_ pairs: String?) -> (latitude: Double, longitude: Double)? {
        guard let parts = pairs?.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }), parts.count == 2,
            let latitude = Double(parts[0]), let longitude = Double(parts[1]),
            abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return (latitude, longitude)
    }

    // MARK: Shared

    /// The borrower's or group's name; an anonymized loan without one is called by its id.
    static func title(_ name: JSONValue?, id: String) -> String {
        clean(name?.string) ?? "Loan \(id)"
    }

    /// `activity · sector`, or whichever of the two is known.
    static func subtitle(activity: String?, sector: String?) -> String? {
        let parts = unique([clean(activity), clean(sector)].compactMap { $0 })
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The loan's use, then (after a blank line) its description as plain text: HTML tags and `\r\n` removed.
    static func summary(use: String?, description: String?) -> String? {
        let paragraphs = unique([clean(use), PlainText.fromHTML(description)].compactMap { $0 })
        return paragraphs.isEmpty ? nil : paragraphs.joined(separator: "\n\n")
    }

    /// The figures: amounts exactly as sent (GraphQL's `"600.00"` strings included), and percentFunded computed
    /// from them in `Decimal`.
    static func metrics(loanAmount: JSONValue?, fundedAmount: JSONValue?, borrowerCount: Decimal?, lenderCount: Decimal?) -> [String: Decimal] {
        var metrics: [String: Decimal] = [:]
        metrics["loanAmount"] = loanAmount?.decimal
        metrics["fundedAmount"] = fundedAmount?.decimal
        if let amount = metrics["loanAmount"], let funded = metrics["fundedAmount"] {
            metrics["percentFunded"] = KivaMoney.percentFunded(funded, of: amount)
        }
        // A loan always has a borrower: 0 means the count is unknown.
        if let borrowerCount, borrowerCount > 0 { metrics["borrowerCount"] = borrowerCount }
        metrics["lenderCount"] = lenderCount
        return metrics
    }

    /// Labels in order of first appearance, without repeats or blanks.
    static func uniqueTags(_ values: [JSONValue]) -> [String] {
        unique(values.compactMap { clean($0.string) })
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }

    /// `text` with runs of whitespace (including `\r\n`) turned into single spaces; `nil` when blank.
    private static func clean(_ text: String?) -> String? { PlainText.collapseWhitespace(text) }

    private static func coordinate(_ value: JSONValue?, limit: Double) -> Double? {
        guard let number = value?.double ?? value?.string.flatMap(Double.init), abs(number) <= limit else { return nil }
        return number
    }

    private static func isoDate(_ value: JSONValue?) -> JSONValue? {
        value?.string.flatMap(ISO8601.date(from:)).map { .string(ISO8601.string(from: $0)) }
    }
}

/// Loan states in one vocabulary: REST v1's (`fundraising`, `in_repayment`, `paid`, ...).
enum KivaStatus {
    /// A GraphQL loan status in REST's words: `payingBack` is `in_repayment`, `ended` is `paid`, other camel-case
    /// names become snake case (`inactiveExpired` → `inactive_expired`).
    static func fromGraphQL(_ status: String) -> String {
        if let known = ["fundRaising": "fundraising", "payingBack": "in_repayment", "ended": "paid"][status] { return known }
        return status.reduce(into: "") { snake, character in
            snake += character.isUppercase ? "_" + character.lowercased() : String(character)
        }
    }
}

/// Links to kiva.org: loan pages and images.
///
/// REST v1 gives an image id and a template (`templates/images.json`: `http://www.kiva.org/img/<size>/<id>.jpg`,
/// template 1, the only one Kiva has published); GraphQL gives a URL, a hash and an id.
enum KivaLinks {
    /// The loan's page.
    static func loan(_ id: String) -> String { "https://www.kiva.org/lend/\(id)" }

    /// The image size asked for: 480×300, the size of Kiva's own loan cards.
    static let imageSize = "w480h300"

    /// The image `identifier` (an id or a hash) at ``imageSize``, over https.
    static func image(_ identifier: String) -> String { "https://www.kiva.org/img/\(imageSize)/\(identifier).jpg" }

    /// A REST `image {id, template_id}`; only template 1's pattern is known, so other templates give no URL.
    static func restImage(_ image: JSONValue?) -> String? {
        guard let id = image?["id"]?.idString else { return nil }
        if let template = image?["template_id"], !template.isNull, template.int != 1 { return nil }
        return self.image(id)
    }

    /// A GraphQL `image {id hash url}`: the URL when sent (upgraded to https on kiva.org), else built from the hash or the id.
    static func graphQLImage(_ image: JSONValue?) -> String? {
        if let link = image?["url"]?.nonEmptyString {
            return link.hasPrefix("http://www.kiva.org/") ? "https://" + link.dropFirst("http://".count) : link
        }
        return (image?["hash"]?.nonEmptyString ?? image?["id"]?.idString).map(self.image)
    }
}
