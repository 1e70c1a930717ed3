package import AggregateCore
import AggregateText
import Foundation

/// What the compare view asks for: invocations written as after `aggregate` (as `aggregate compare` and
/// `POST /v1/compare` take them) and one limit for all of them.
///
/// The query string is `/compare?i=<invocation>&i=<invocation>...&limit=N`, e.g.
/// `/compare?i=tmdb+search+batman&i=kiva+newest&limit=5`.
package struct CompareSelection: Sendable, Equatable {
    /// The invocations in order, e.g. `tmdb search batman`.
    package var invocations: [String]
    /// The limit for every invocation that sets none of its own, or `nil` for the default.
    package var limit: Int?

    /// Creates a selection.
    package init(invocations: [String], limit: Int? = nil) {
        self.invocations = invocations
        self.limit = limit
    }

    /// The most invocations one view compares.
    package static let maximumInvocations = 10

    /// Reads the compare view's query string. Each invocation must start with a provider's name; the rest of it is
    /// checked when the server parses it as `aggregate compare` does.
    /// - Returns: the selection, or `nil` when no invocation is given (the view's empty form).
    /// - Throws: one `usage` error for an unknown query parameter, too many invocations, an unknown provider or a
    ///   bad limit.
    package static func parse(_ query: String, descriptors: [ProviderDescriptor]) throws(AggregateError) -> CompareSelection? {
        let query = try WebQuery(query)
        for name in query.names where !["i", "limit"].contains(name) {
            throw AggregateError(.usage, "unknown parameter '\(name)' for the compare view\(DidYouMean.suffix(for: name, among: ["i", "limit"])) (parameters: i, limit)")
        }
        let invocations = query.values("i").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var selection = CompareSelection(invocations: invocations)
        if let text = query.values("limit").last, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let limit = Int(text.trimmingCharacters(in: .whitespaces)), QuerySelection.limitRange.contains(limit) else {
                throw AggregateError(.usage, "--limit must be a whole number from 1 to 10000, not '\(text)'")
            }
            selection.limit = limit
        }
        guard !invocations.isEmpty else { return nil }
        guard invocations.count <= maximumInvocations else {
            throw AggregateError(.usage, "give at most \(maximumInvocations) invocations to compare, not \(invocations.count)")
        }
        for (index, invocation) in invocations.enumerated() {
            let first = invocation.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            do {
                _ = try QuerySelection.descriptor(first, among: descriptors)
            } catch {
                throw AggregateError(.usage, "invocation \(index + 1) '\(invocation)': \(error.message)")
            }
        }
        return selection
    }
}

/// The compare view at `/compare` of `aggregate serve`: a form of invocations, then the compare report's sections
/// for their results (a card per source with its outcome, time and bytes, field coverage, first items), built by
/// the same code as `aggregate compare --format html`. Serve it with ``WebPage/contentSecurityPolicy``.
package enum ComparePage {
    /// What a request for `/compare` asks the server to do, read by ``request(_:descriptors:)``.
    package struct Request: Sendable {
        /// The invocations to compare, or `nil` for the empty form.
        package var selection: CompareSelection?
        /// The one problem with the query string, to show on the page (render it with status 400).
        package var error: AggregateError?
        /// Whether the server should run the invocations, as `aggregate compare` does, and render their rows.
        package var shouldRun: Bool { selection != nil && error == nil }
    }

    /// Reads the query string of a request for `/compare`; an invalid one keeps its invocations in the form.
    package static func request(_ query: String, descriptors: [ProviderDescriptor]) -> Request {
        do throws(AggregateError) {
            return Request(selection: try CompareSelection.parse(query, descriptors: descriptors), error: nil)
        } catch {
            let invocations = ((try? WebQuery(query))?.values("i") ?? []).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            return Request(selection: CompareSelection(invocations: Array(invocations.prefix(CompareSelection.maximumInvocations))), error: error)
        }
    }

    /// The link to the compare view of `invocations`: `/compare?i=tmdb+search+batman&i=...`.
    package static func href(invocations: [String], limit: Int? = nil) -> String {
        var pairs = invocations.map { (name: "i", value: $0) }
        if let limit { pairs.append(("limit", String(limit))) }
        return WebPage.Section.compare.path + (pairs.isEmpty ? "" : "?" + WebQuery(pairs: pairs).encoded)
    }

    /// The whole page.
    /// - Parameters:
    ///   - descriptors: every provider the server offers (for the form's examples).
    ///   - selection: the invocations the form shows.
    ///   - rows: their results, in the same order, built as `aggregate compare` builds them
    ///     (``ComparisonRow/init(invocation:result:descriptor:)``); empty before a run.
    ///   - error: a problem to show, e.g. ``Request/error`` or an invocation the server could not parse.
    package static func render(
        descriptors: [ProviderDescriptor], selection: CompareSelection?, rows: [ComparisonRow] = [], error: AggregateError? = nil
    ) -> String {
        let escape = CompareHTMLReport.escape
        let invocations = selection?.invocations ?? []
        let examples = descriptors.compactMap { $0.examples.first?.arguments.filter { $0 != "--offline" }.map(shellQuoted).joined(separator: " ") }
        var main = "<section aria-labelledby=\"form-title\">\n<h1 id=\"form-title\">Compare sources</h1>\n"
        if let error { main += WebPage.errorAlert(error) }
        main += "<form id=\"compare-form\" method=\"get\" action=\"/compare\">\n"
        main += "<p class=\"help\">Each invocation is written as after <code>aggregate</code>, as <code>aggregate compare</code> takes it; they run at once.</p>\n"
        main += "<div class=\"pickers\">\n"
        // Every invocation, plus empty fields to add more (at least three fields in all).
        let count = min(CompareSelection.maximumInvocations, max(3, invocations.count + 1))
        for index in 0..<count {
            let value = index < invocations.count ? " value=\"\(escape(invocations[index]))\"" : ""
            let placeholder = index < examples.count ? " placeholder=\"\(escape("e.g. " + examples[index]))\"" : ""
            main += WebPage.field(id: "i-\(index + 1)", label: "Invocation \(index + 1)", help: nil) { _ in
                "<input type=\"text\" id=\"i-\(index + 1)\" name=\"i\"\(value)\(placeholder)>"
            }
        }
        main += WebPage.field(id: "limit", label: "Limit", help: "The most items per source (default: 20, or each invocation's own --limit).") { describedBy in
            let value = selection?.limit.map { " value=\"\($0)\"" } ?? ""
            return "<input type=\"number\" id=\"limit\" name=\"limit\" min=\"1\" max=\"10000\" step=\"1\" placeholder=\"20\"\(value)\(describedBy)>"
        }
        main += "</div>\n<div class=\"actions\"><button type=\"submit\">Compare</button></div>\n</form>\n</section>\n"
        if !rows.isEmpty {
            main += "<p class=\"muted\">\(CompareHTMLReport.escape(CompareHTMLReport.tally(rows)))</p>\n"
            main += CompareHTMLReport.sections(rows)
        }
        let title = rows.isEmpty ? "compare · aggregate" : "compare: \(rows.map(\.result.provider).joined(separator: ", ")) · aggregate"
        return WebPage.document(title: title, current: .compare, main: main)
    }
}

extension ComparisonRow {
    /// The row `aggregate compare` shows for one invocation of the provider `descriptor` describes.
    package init(invocation: String, result: ProviderResult, descriptor: ProviderDescriptor) {
        self.init(invocation: invocation, result: result, authStyle: descriptor.authStyle, paginationStyle: descriptor.paginationStyle)
    }
}
