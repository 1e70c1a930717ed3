import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import KivaProvider
import Testing

/// The normalizer over the real captured (and documented) Kiva responses in `../shared/api/samples/kiva`, when
/// that folder exists: every body is read as a page of loans or refused with a clear error, never a crash.
@Suite(.enabled(if: !TestPaths.sharedResponseSamples("kiva").isEmpty, "../shared/api/samples/kiva is not present"))
struct KivaConformanceTests {
    static let samples = TestPaths.sharedResponseSamples("kiva")

    func read(_ url: URL) throws -> Page {
        let json = try JSONParser().parse(Data(contentsOf: url))
        return url.lastPathComponent.hasPrefix("gql")
            ? try KivaNormalizer.graphQLLoans(json, pageSize: 20)
            : try KivaNormalizer.restLoans(json)
    }

    func sample(_ prefix: String) throws -> URL {
        try #require(Self.samples.first { $0.lastPathComponent.hasPrefix(prefix) }, "no sample named \(prefix)*")
    }

    @Test(arguments: samples)
    func everySampleIsReadOrRefusedClearly(_ url: URL) throws {
        do {
            let page = try read(url)
            for item in page.items {
                #expect(!item.id.isEmpty && !item.title.isEmpty)
                #expect(item.url == "https://www.kiva.org/lend/\(item.id)")
                #expect(item.metrics["loanAmount"] != nil, "\(url.lastPathComponent) \(item.id)")
                #expect(item.summary.map { !$0.contains("<br") && !$0.contains("\r") } ?? true)
                let json = JSONWriter().string(item.jsonValue)
                #expect(!json.contains(#":"""#), "no empty strings")
                _ = try Item(json: item.jsonValue)
            }
        } catch let error as AggregateError {
            #expect(!error.message.isEmpty)
            #expect([.decoding, .notFound, .http].contains(error.kind), "\(url.lastPathComponent): \(error)")
        }
    }

    @Test func currentGraphQLPage() throws {
        let page = try read(sample("gql_lend_loans_page"))
        #expect(page.items.count == 2)
        let first = try #require(page.items.first)
        #expect(first.metrics["loanAmount"] == 600)
        #expect(first.metrics["fundedAmount"] == 525)
        #expect(first.metrics["percentFunded"] == Decimal(string: "87.5"))
        #expect(first.metrics["lenderCount"] == 34)
        #expect(first.location?.country == "Kyrgyzstan")
        #expect(first.extra["countryCode"] == "KG")
        #expect(first.extra["partnerName"] == "Bai Tushum Bank")
        #expect(first.imageUrl?.hasPrefix("https://www.kiva.org/img/w480h300/") == true)
        #expect(first.summary?.contains("  ") == false, "double spaces in use are collapsed")
    }

    @Test func graphQL2017Page() throws {
        let page = try read(sample("gql_2017_toplevel"))
        #expect(page.items.count == 5)
        #expect(page.items.allSatisfy { $0.metrics["fundedAmount"] != nil && $0.metrics["percentFunded"] != nil })
    }

    @Test func graphQLErrorAndEmptyPage() throws {
        #expect(throws: AggregateError.self) { try read(sample("gql_error")) }
        #expect(try read(sample("gql_lend_loans_empty")).items.isEmpty)
    }

    @Test func restSearchPages() throws {
        let recent = try read(sample("v1_loans_search_fundraising"))
        #expect(recent.items.count == 20)
        #expect(recent.next == .numberedPages(current: 1, total: 373, pageSize: 20))
        #expect(recent.items.allSatisfy { $0.extra["countryCode"] != nil && $0.location?.latitude != nil })
        let old = try read(sample("v1_loans_search_2009"))
        #expect(old.items.count == 20)
        #expect(old.items.allSatisfy { $0.extra["countryCode"] == nil && $0.location?.country != nil }, "2009 data has no country_code")
        #expect(old.items.allSatisfy { ($0.extra["languages"]?.array?.count ?? 0) == Set($0.extra["languages"]?.array?.compactMap(\.string) ?? []).count })
        let past = try read(sample("v1_loans_search_page_past_end"))
        #expect(past.items.isEmpty && past.next == nil)
    }

    @Test func restDetails() throws {
        let html = try #require(try read(sample("v1_loan_detail_html_description")).items.first)
        #expect(html.summary?.contains("<br") == false)
        #expect(html.summary?.contains("\n\n") == true, "use, then the description")
        let group = try #require(try read(sample("v1_loan_detail_unicode")).items.first)
        #expect(group.metrics["borrowerCount"] == 5)
        #expect(group.summary?.contains("’") == true)
    }

    @Test func lenderListsAndErrors() throws {
        for prefix in ["v1_loan_lenders_with_anonymous", "v1_loan_lenders_2009"] {
            let error = try #require(throws: AggregateError.self) { try read(sample(prefix)) }
            #expect(error.message.contains("lenders"))
        }
        let error = try #require(throws: AggregateError.self) { try read(sample("v1_error_invalid_identifier")) }
        #expect(error.kind == .notFound)
    }
}
