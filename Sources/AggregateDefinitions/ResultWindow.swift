import AggregateCore
import AggregateJSON
import Foundation

/// Where a page starts among a query's results, to keep a run within the definition's `maxResults` (the API's
/// result window) even where the API serves a page that crosses it.
struct ResultWindow {
    /// The page's first result (0-based) and the window's size.
    var start: Int
    var maxResults: Int

    /// The window of the page fetched from `url`, or `nil` when the paging declares no `maxResults` or the page's
    /// place cannot be told.
    init?(paging: ProviderDefinition.Pagination, url: URL?) {
        guard let maxResults = paging.maxResults, let url else { return nil }
        let size = paging.pageSizeParameter.flatMap { url.queryValue($0) }.flatMap { Int($0) } ?? paging.pageSize
        func number(_ name: String) -> Int? { url.queryValue(name).flatMap { Int($0) } }
        switch paging.kind {
        case .pageNumber:
            guard let size else { return nil }
            start = ((number(paging.parameter ?? "page") ?? paging.firstPage) - paging.firstPage) * size
        case .link:
            guard let size else { return nil }
            start = ((number("page") ?? 1) - 1) * size
        case .offset:
            start = number(paging.parameter ?? "offset") ?? 0
        case .cursor, .none:
            return nil
        }
        self.maxResults = maxResults
    }

    /// How many of a page's `count` records lie inside the window.
    func kept(of count: Int) -> Int { min(count, max(0, maxResults - start)) }

    /// The usage error for a parameter given without the one the API needs beside it (`onlyWith`), naming both.
    static func checkDependencies(of operation: ProviderDefinition.Operation, query: Query) throws(AggregateError) {
        func isSet(_ name: String) -> Bool {
            guard let value = query.parameters[name] else { return false }
            if case .bool(false) = value { return false }
            return true
        }
        for dependency in operation.dependencies where isSet(dependency.parameter) && !isSet(dependency.needs) {
            let values = operation.descriptor.parameters.first { $0.name == dependency.needs }.map(\.type).flatMap { type -> String? in
                if case .choice(let choices) = type { return " " + choices.joined(separator: "|") }
                return nil
            } ?? " VALUE"
            throw AggregateError(
                .usage,
                "\(operation.descriptor.name): --\(dependency.parameter) only applies with --\(dependency.needs) (the API ignores it without); add --\(dependency.needs)\(values) or leave out --\(dependency.parameter)")
        }
    }
}

extension ProviderDefinition {
    /// The result window of the operation `name` (`pagination.maxResults`), or `nil` when it declares none.
    public func resultWindow(of name: String) -> Int? { operation(named: name)?.pagination.maxResults }
}
