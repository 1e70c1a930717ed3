// Providers/Bookshelf/BookshelfProvider.swift
public import AggregateCore
import AggregateJSON
import Foundation

/// Books from the Bookshelf API whose title matches some words, in numbered pages.
public struct BookshelfProvider: Provider {
    static let words = ParameterKey<String>("query", style: .positional, required: true, valueName: "WORDS", help: "Words of the title.")

    public static let descriptor = ProviderDescriptor(
        name: "bookshelf", displayName: "Bookshelf", summary: "Books whose title matches some words.",
        docsURL: "https://bookshelf.example/docs", defaultBaseURL: "https://api.bookshelf.example",
        auth: [AuthVariable("BOOKSHELF_TOKEN", usage: "API token, sent as 'Authorization: Bearer'.", sent: .bearer, required: true)],
        authStyle: "bearer token", paginationStyle: "numbered pages of 20",
        operations: [ProviderOperation(name: "search", summary: "Books whose title matches.", itemKind: "book", declaring: [words])],
        examples: [ProviderExample(["bookshelf", "search", "swift", "--limit", "30"], "Thirty books about Swift: two pages.")])

    public init() {}

    public func operation(named name: String, plan: Void) -> any APIOperation<Void> { Search() }

    /// `GET /v1/books?q=&page=`: 20 books a page; once page 1 tells `total_pages`, the core fetches the pages it
    /// still needs concurrently.
    struct Search: APIOperation {
        func request(_ call: Call<Void>, cursor: String?, remaining: Int) throws -> HTTPRequestSpec {
            HTTPRequestSpec(url: call.url("/v1/books", [("q", call[words]), ("page", cursor ?? "1")]))
        }

        func normalize(_ response: HTTPResponse, _ call: Call<Void>) throws -> Page {
            let json = try response.json()
            guard let books = json["results"]?.array else { throw AggregateError(.decoding, "the response has no 'results' list") }
            let items = books.compactMap { book -> Item? in
                guard let id = book["id"]?.idString, let title = book["title"]?.nonEmptyString else { return nil }
                var item = Item(provider: "bookshelf", kind: "book", id: id, title: title)
                item.author = book["author"]?.nonEmptyString
                item.url = book["url"]?.nonEmptyString
                return item
            }
            let page = json["page"]?.int ?? 1, pages = json["total_pages"]?.int ?? 1
            let next = page < pages ? Page.Next.numberedPages(current: page, total: pages, pageSize: 20) : nil
            return Page(items: items, next: next, totalCount: json["total_results"]?.int)
        }
    }

    /// `{"error": {"code", "message"}}` in the API's words; anything else in the standard ones.
    public func error(for response: HTTPResponse, call: Call<Void>) -> AggregateError {
        guard let error = APIErrorKit.codeMessage(try? response.json()["error"]) else {
            return APIErrorKit.standard(for: response, descriptor: Self.descriptor)
        }
        let advice = response.status == 401 ? ". \(Self.descriptor.checkCredentialsAdvice)." : ""
        return AggregateError(
            APIErrorKit.kind(forStatus: response.status), "\(error.message) (HTTP \(response.status))\(advice)", httpStatus: response.status)
    }
}
