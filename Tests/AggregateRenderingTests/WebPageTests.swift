import AggregateCore
import AggregateJSON
@testable import AggregateRendering
import Foundation
import Testing

/// The web page of `aggregate serve` (`/` and `/compare`): the form generated from descriptors, the results table,
/// escaping of what APIs send, and reading the query string back.
@Suite struct WebPageTests {
    let descriptors = WebFixtures.descriptors

    /// The page's HTML between `start` and the next `end` after it.
    static func slice(_ html: String, from start: String, to end: String) -> String? {
        guard let from = html.range(of: start), let to = html.range(of: end, range: from.upperBound..<html.endIndex) else { return nil }
        return String(html[from.lowerBound..<to.upperBound])
    }

    /// Every value of `attribute` in `html`.
    static func values(of attribute: String, in html: String) -> [String] {
        html.components(separatedBy: " \(attribute)=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    // MARK: - The form

    @Test func eachParameterTypeHasItsControl() throws {
        let selection = QuerySelection(provider: "films", operation: "search")
        let html = QueryPage.render(descriptors: descriptors, selection: selection)
        let search = try #require(Self.slice(html, from: "<fieldset data-provider=\"films\" data-operation=\"search\">", to: "<fieldset data-provider=\"films\" data-operation=\"popular\""))
        // Text, required: marked for people and for the browser, with its help linked.
        #expect(search.contains("<label for=\"p-films-search-query\">query <span class=\"required\">(required)</span></label>"))
        #expect(search.contains("<input type=\"text\" id=\"p-films-search-query\" name=\"query\" required aria-describedby=\"p-films-search-query-help\">"))
        #expect(search.contains("<p class=\"help\" id=\"p-films-search-query-help\">The words to look for &lt;i&gt;&quot;in titles&quot;&lt;/i&gt;.</p>"))
        // Numbers with their ranges.
        #expect(search.contains("<input type=\"number\" id=\"p-films-search-year\" name=\"year\" step=\"1\" min=\"1874\" max=\"2100\" aria-describedby="))
        #expect(search.contains("<input type=\"number\" id=\"p-films-search-rating\" name=\"rating\" step=\"any\" min=\"0\" max=\"10\" aria-describedby="))
        // A choice with a default is preselected; one without starts empty; the provider's option comes first.
        #expect(search.contains("<option value=\"popularity\" selected>popularity</option>\n<option value=\"rating\">rating</option>"))
        #expect(search.contains("<select id=\"p-films-search-region\" name=\"region\" aria-describedby=\"p-films-search-region-help\">\n<option value=\"\" selected>(not given)</option>"))
        #expect(search.range(of: "name=\"api\"")?.lowerBound ?? search.endIndex < search.range(of: "name=\"query\"")?.lowerBound ?? search.startIndex)
        // A list of choices is checkboxes in a group; a flag is one checkbox; a default text is filled in.
        #expect(search.contains("<fieldset class=\"checks\" aria-describedby=\"p-films-search-genres-help\">\n<legend>genres</legend>"))
        #expect(search.contains("<input type=\"checkbox\" id=\"p-films-search-genres-2\" name=\"genres\" value=\"horror\"> horror</label>"))
        #expect(search.contains("<input type=\"checkbox\" id=\"p-films-search-adult\" name=\"adult\" value=\"true\" aria-describedby=\"p-films-search-adult-help\"> adult</label>"))
        #expect(search.contains("<input type=\"text\" id=\"p-films-search-language\" name=\"language\" value=\"en\" aria-describedby="))
        // A boolean that is not a flag chooses between true and false.
        let books = try #require(Self.slice(html, from: "<fieldset data-provider=\"books\"", to: "</fieldset>"))
        #expect(books.contains("<select id=\"p-books-find-verbose\" name=\"verbose\""))
        #expect(books.contains("<option value=\"true\">true</option>\n<option value=\"false\">false</option>"))
        // Every control has a label.
        for id in Self.values(of: "id", in: html) where html.contains(" id=\"\(id)\" name=") {
            #expect(html.contains("for=\"\(id)\""), "\(id) has no label")
        }
    }

    @Test func onlyTheSelectedOperationsFieldsAreSent() {
        let html = QueryPage.render(descriptors: descriptors, selection: QuerySelection(provider: "films", operation: "popular"))
        #expect(html.contains("<fieldset data-provider=\"films\" data-operation=\"popular\">\n"))
        #expect(html.contains("<fieldset data-provider=\"films\" data-operation=\"search\" hidden disabled>"))
        #expect(html.contains("<fieldset data-provider=\"books\" data-operation=\"find\" hidden disabled>"))
        #expect(html.contains("<p class=\"help span\">This operation takes no parameters.</p>") == false, "films has the api option")
        // One operation picker per provider; the others are hidden and disabled, so the form sends one operation.
        #expect(html.contains("<div data-operations=\"films\">"))
        #expect(html.contains("<div data-operations=\"books\" hidden>"))
        #expect(html.contains("<select id=\"operation-books\" name=\"operation\" disabled>"))
        #expect(html.contains("<option value=\"popular\" selected>popular: The most popular movies now.</option>"))
        #expect(html.contains("<option value=\"films\" selected>Films (films)</option>"))
        #expect(html.contains("<form id=\"query-form\" method=\"get\" action=\"/\">"))
        #expect(html.contains("<button type=\"submit\" name=\"choose\" value=\"1\" class=\"choose secondary\">Choose</button>"))
    }

    @Test func theFormShowsWhatWasAsked() {
        let selection = QuerySelection(
            provider: "films", operation: "search", values: ["query": "the \"dark\" knight", "genres": "drama,horror", "adult": "true", "sort": "rating"],
            limit: 7)
        let html = QueryPage.render(descriptors: descriptors, selection: selection)
        #expect(html.contains("name=\"query\" value=\"the &quot;dark&quot; knight\" required"))
        #expect(html.contains("name=\"genres\" value=\"drama\" checked>"))
        #expect(html.contains("name=\"genres\" value=\"comedy\">"))
        #expect(html.contains("name=\"genres\" value=\"horror\" checked>"))
        #expect(html.contains("name=\"adult\" value=\"true\" checked"))
        #expect(html.contains("<option value=\"rating\" selected>rating</option>"))
        #expect(html.contains("<input type=\"number\" id=\"limit\" name=\"limit\" min=\"1\" max=\"10000\" step=\"1\" placeholder=\"20\" value=\"7\""))
    }

    @Test func theFirstViewShowsTheFirstProvidersDefaultOperation() {
        let html = QueryPage.render(descriptors: descriptors, selection: nil)
        #expect(html.contains("<fieldset data-provider=\"films\" data-operation=\"search\">\n"))
        #expect(!html.contains("id=\"results-title\""))
        #expect(!html.contains("role=\"alert\""))
    }

    // MARK: - Results and escaping

    @Test func resultsAreATableWithLinksAndTheOutcome() {
        let selection = QuerySelection(provider: "films", operation: "search", values: ["query": "batman"], limit: 6)
        let html = QueryPage.render(descriptors: descriptors, selection: selection, result: WebFixtures.result(WebFixtures.batmanItems))
        #expect(html.contains("<caption>6 items</caption>"))
        #expect(html.contains("<a href=\"https://films.test/movie/4\" rel=\"noreferrer\">The Dark Knight</a></div><div class=\"sub\">2008 · Christopher Nolan</div>"))
        #expect(html.contains("<ul class=\"metrics\"><li>rating <strong>8.5</strong></li><li>votes <strong>31222</strong></li></ul>"))
        #expect(html.contains("<time datetime=\"1989-06-23T00:00:00Z\">1989-06-23</time>"))
        #expect(html.contains("<code>aggregate films search batman --limit 6</code>"))
        #expect(html.contains("<a href=\"/compare?i=films+search+batman+--limit+6\">compare with other sources</a>"))
        // The outcome is the compare report's card.
        let row = ComparisonRow(invocation: "films search batman --limit 6", result: WebFixtures.result(WebFixtures.batmanItems), descriptor: WebFixtures.films)
        #expect(html.contains("<div class=\"outcome\">\n" + CompareHTMLReport.card(row) + "</div>"))
        #expect(html.contains("<dt>requests</dt><dd>2</dd>") && html.contains("<dt>received</dt><dd>47.1 KiB</dd>") && html.contains("<dt>time</dt><dd>312 ms</dd>"))
        #expect(!html.contains("<th scope=\"col\">image</th>"), "no item has a picture")
    }

    @Test func aFailedResultShowsItsErrorLineAndNoTable() {
        let error = AggregateError(.rateLimited, "rate limit reached; resets at 03:00 UTC", provider: "films")
        let html = QueryPage.render(
            descriptors: descriptors, selection: QuerySelection(provider: "films", operation: "popular"), result: WebFixtures.result([], error: error))
        #expect(html.contains("<article class=\"card failed\">"))
        #expect(html.contains("<p class=\"error\" role=\"alert\">Error: films: rate limit reached; resets at 03:00 UTC</p>"))
        #expect(!html.contains("<table class=\"results\">"))
    }

    @Test func hostileTextIsEscapedAndOnlyHTTPLinksAreLinks() throws {
        let selection = QuerySelection(provider: "films", operation: "search", values: ["query": "</textarea><script>alert(8)</script>"])
        let html = QueryPage.render(
            descriptors: descriptors, selection: selection, result: WebFixtures.result(WebFixtures.hostileItems),
            error: AggregateError(.http, "<script>alert(9)</script>", provider: "films"))
        let lower = html.lowercased()
        // The page's own script is the only one, and nothing from the results opens an element.
        #expect(lower.components(separatedBy: "<script").count - 1 == 1)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;alert(4)&lt;/script&gt;"))
        #expect(html.contains("<td>&quot;&gt;&lt;img src=x onerror=alert(3)&gt;</td>"))
        #expect(html.contains("<li>&lt;b&gt;bold&lt;/b&gt; <strong>1</strong></li>"))
        #expect(html.contains("value=\"&lt;/textarea&gt;&lt;script&gt;alert(8)&lt;/script&gt;\""))
        #expect(html.contains("Error: films: &lt;script&gt;alert(9)&lt;/script&gt;"))
        for scheme in ["javascript:", "data:", "vbscript:", "//evil"] { #expect(!lower.contains(scheme), "\(scheme)") }
        // Links and images: only the safe item's own http(s) URLs and the page's own paths.
        let hrefs = Self.values(of: "href", in: html), sources = Self.values(of: "src", in: html)
        #expect(hrefs.allSatisfy { $0.hasPrefix("https://") || $0.hasPrefix("http://") || ($0.hasPrefix("/") && !$0.hasPrefix("//")) }, "\(hrefs)")
        #expect(hrefs.contains("https://films.test/movie/4?a=1&amp;b=&quot;2&quot;"))
        #expect(sources == ["http://img.films.test/4.png"])
        #expect(html.contains("<img src=\"http://img.films.test/4.png\" alt=\"\" width=\"48\" height=\"48\" loading=\"lazy\" referrerpolicy=\"no-referrer\">"))
        #expect(html.contains("<time datetime=\"2023-11-14T22:13:20Z\">2023-11-14 22:13:20 UTC</time>"))
        // The unsafe items are still listed, as plain text.
        #expect(html.contains("<div class=\"title\">Data link</div><div class=\"sub\">&lt;svg onload=alert(10)&gt;</div>") && html.contains("<div class=\"title\">Upper-case scheme</div>"))
    }

    @Test func thePageLoadsNothingAndCarriesOneHashedScriptAndStyle() throws {
        let html = QueryPage.render(descriptors: descriptors, selection: nil, result: nil)
        let lower = html.lowercased()
        for reference in ["<link", "<iframe", "<object", "<embed", "url(", "@import", "srcset", "<img", " style="] {
            #expect(!lower.contains(reference), "\(reference)")
        }
        // No inline event handlers either (`onclick=`): the policy would block them, and the script needs none.
        #expect(lower.range(of: " on[a-z]+=", options: .regularExpression) == nil)
        #expect(html.contains("<script>\(WebPage.script)</script>"))
        #expect(html.contains("<style>\(WebPage.style)</style>"))
        #expect(html.contains("<meta name=\"color-scheme\" content=\"light dark\">") && html.contains("@media (prefers-color-scheme: dark)"))
        let policy = WebPage.contentSecurityPolicy
        #expect(policy.hasPrefix("default-src 'none'; style-src 'sha256-"))
        #expect(policy.contains("script-src '\(WebPage.hashSource(WebPage.script))'") && policy.contains("style-src '\(WebPage.hashSource(WebPage.style))'"))
        #expect(!policy.contains("unsafe"))
        #expect(policy.hasSuffix("img-src http: https:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"))
    }

    /// CSP hashes are base64 SHA-256 of the element's exact text (known answers from the CSP specification's examples).
    @Test func hashSourcesAreBase64SHA256() {
        #expect(WebPage.hashSource("") == "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(WebPage.hashSource("alert('Hello, world.');") == "sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng=")
    }

    // MARK: - Reading the query string

    @Test func aQueryStringBecomesASelectionAndACommandLine() throws {
        let selection = try #require(
            try QuerySelection.parse(
                "?provider=films&operation=search&query=the+dark%20knight&year=2008&rating=&genres=drama&genres=horror&adult=true&limit=10",
                descriptors: descriptors))
        #expect(selection == QuerySelection(
            provider: "films", operation: "search", values: ["query": "the dark knight", "year": "2008", "genres": "drama,horror", "adult": "true"], limit: 10))
        #expect(selection.arguments(WebFixtures.films) == ["films", "search", "--year=2008", "--genres=drama,horror", "--adult", "--limit=10", "--", "the dark knight"])
        #expect(selection.commandLine(WebFixtures.films) == "films search 'the dark knight' --year 2008 --genres drama,horror --adult --limit 10")
        // The page's own link reads back to the same selection.
        let href = selection.href(WebFixtures.films)
        #expect(href == "/?provider=films&operation=search&query=the+dark+knight&year=2008&genres=drama%2Chorror&adult=true&limit=10")
        #expect(try QuerySelection.parse(String(href.dropFirst()), descriptors: descriptors) == selection)
    }

    @Test func aValueThatLooksLikeAnOptionStaysAValue() throws {
        let selection = try #require(try QuerySelection.parse("provider=films&query=-1&language=--help", descriptors: descriptors))
        #expect(selection.operation == "search", "the default operation")
        #expect(selection.arguments(WebFixtures.films) == ["films", "search", "--language=--help", "--", "-1"])
        #expect(selection.arguments(WebFixtures.films, adding: ["--offline"]) == ["films", "search", "--language=--help", "--offline", "--", "-1"])
        #expect(selection.commandLine(WebFixtures.films) == "films search --language --help -- -1")
    }

    @Test func anEmptyQueryIsTheFirstView() throws {
        #expect(try QuerySelection.parse("", descriptors: descriptors) == nil)
        #expect(try QuerySelection.parse("?", descriptors: descriptors) == nil)
        let request = QueryPage.request("", descriptors: descriptors)
        #expect(request.selection == nil && request.error == nil && !request.shouldRun)
    }

    @Test(arguments: [
        ("provider=flims&query=x", "unknown provider 'flims'; did you mean 'films'? (providers: films, books)"),
        ("operation=search", "missing provider (providers: films, books)"),
        ("provider=films&operation=serch&query=x", "unknown operation 'serch' for films; did you mean 'search'? (operations: search, popular)"),
        ("provider=films&query=x&yeer=1999", "unknown parameter 'yeer' for 'films search'; did you mean 'year'? (parameters: api, query, year, rating, sort, region, genres, adult, language)"),
        ("provider=books&title=x&query=y", "unknown parameter 'query' for 'books find' (parameters: title, verbose)"),
        ("provider=films&query=x&year=soon", "--year must be a whole number, not 'soon'"),
        ("provider=films&query=x&year=1700", "--year must be between 1874 and 2100, not 1700"),
        ("provider=films&query=x&rating=11", "--rating must be between 0 and 10, not 11"),
        ("provider=films&query=x&sort=loud", "--sort must be one of popularity, rating, not 'loud'"),
        ("provider=films&query=x&genres=drama&genres=western", "--genres accepts a comma-separated list of drama, comedy, horror, not 'western'"),
        ("provider=films&query=x&year=1990&year=1991", "--year is given 2 times; give it once"),
        ("provider=films&operation=search", "missing <query> for 'films search'"),
        ("provider=films&query=+++", "missing <query> for 'films search'"),
        ("provider=books", "missing --title for 'books find'"),
        ("provider=films&query=x&limit=0", "--limit must be a whole number from 1 to 10000, not '0'"),
        ("provider=films&query=x&limit=many", "--limit must be a whole number from 1 to 10000, not 'many'"),
        ("provider=films&query=%FF", "the query string is not UTF-8 text once its %-escapes are decoded"),
    ])
    func aBadQueryHasOneClearError(query: String, message: String) {
        #expect(throws: AggregateError.self) { try QuerySelection.parse(query, descriptors: descriptors) }
        do {
            _ = try QuerySelection.parse(query, descriptors: descriptors)
        } catch {
            #expect(error.kind == .usage)
            #expect(error.message == message)
        }
    }

    @Test func theErrorIsShownWithWhatWasTyped() {
        let request = QueryPage.request("provider=films&operation=search&query=batman&year=soon&limit=5", descriptors: descriptors)
        #expect(!request.shouldRun)
        #expect(request.error?.message == "--year must be a whole number, not 'soon'")
        #expect(request.selection?.values["query"] == "batman" && request.selection?.limit == 5)
        let html = QueryPage.render(descriptors: descriptors, selection: request.selection, error: request.error)
        #expect(html.contains("<p class=\"error alert\" role=\"alert\">Error: films: --year must be a whole number, not &#39;soon&#39;</p>"))
        #expect(html.contains("name=\"query\" value=\"batman\" required"))
        // A text in a number field stays visible: a browser would empty a type="number" field holding it.
        #expect(html.contains("<input type=\"text\" id=\"p-films-search-year\" name=\"year\" step=\"1\" min=\"1874\" max=\"2100\" value=\"soon\""))
        #expect(html.range(of: "role=\"alert\"")?.lowerBound ?? html.endIndex < html.range(of: "<form")?.lowerBound ?? html.startIndex, "the error comes first")
    }

    /// Without JavaScript, "Choose" sends the old operation and its fields with the new provider: the form
    /// switches to the new provider's default operation and runs nothing.
    @Test func chooseSwitchesTheFormWithoutRunning() {
        let request = QueryPage.request("provider=books&operation=search&query=batman&choose=1", descriptors: descriptors)
        #expect(!request.shouldRun && request.error == nil)
        #expect(request.selection == QuerySelection(provider: "books", operation: "find"))
        let run = QueryPage.request("provider=books&operation=find&title=dune", descriptors: descriptors)
        #expect(run.shouldRun && run.selection?.arguments(WebFixtures.books) == ["books", "find", "--title=dune"])
    }

    // MARK: - Compare

    @Test func theCompareQueryListsInvocations() throws {
        let selection = try #require(try CompareSelection.parse("i=films+search+batman&i=&i=books+find+--title+%22dune%22&limit=5", descriptors: descriptors))
        #expect(selection == CompareSelection(invocations: ["films search batman", "books find --title \"dune\""], limit: 5))
        #expect(ComparePage.href(invocations: selection.invocations, limit: 5) == "/compare?i=films+search+batman&i=books+find+--title+%22dune%22&limit=5")
        #expect(try CompareSelection.parse("i=&i=+", descriptors: descriptors) == nil)
        #expect(ComparePage.request("", descriptors: descriptors).shouldRun == false)
    }

    @Test(arguments: [
        ("i=films+popular&i=bokks+find", "invocation 2 'bokks find': unknown provider 'bokks'; did you mean 'books'? (providers: films, books)"),
        ("i=films+popular&limt=3", "unknown parameter 'limt' for the compare view; did you mean 'limit'? (parameters: i, limit)"),
        ("i=films+popular&limit=-1", "--limit must be a whole number from 1 to 10000, not '-1'"),
        (Array(repeating: "i=films", count: 11).joined(separator: "&"), "give at most 10 invocations to compare, not 11"),
    ])
    func aBadCompareQueryHasOneClearError(query: String, message: String) {
        let request = ComparePage.request(query, descriptors: descriptors)
        #expect(!request.shouldRun)
        #expect(request.error?.message == message)
    }

    @Test func theCompareViewShowsTheReportsSectionsForItsRows() {
        let failed = ProviderResult(
            provider: "books", operation: "find", error: AggregateError(.network, "cannot connect to 127.0.0.1:9: connection refused", provider: "books"),
            meta: ResultMeta(source: .live, requests: 4))
        let rows = [
            ComparisonRow(invocation: "films search batman", result: WebFixtures.result(WebFixtures.batmanItems), descriptor: WebFixtures.films),
            ComparisonRow(invocation: "books find --title x", result: failed, descriptor: WebFixtures.books),
        ]
        let selection = CompareSelection(invocations: rows.map(\.invocation))
        let html = ComparePage.render(descriptors: descriptors, selection: selection, rows: rows)
        #expect(html.contains(CompareHTMLReport.sections(rows)))
        #expect(html.contains("<p class=\"muted\">2 invocations: 1 succeeded, 1 failed.</p>"))
        #expect(html.contains("<input type=\"text\" id=\"i-2\" name=\"i\" value=\"books find --title x\" placeholder=\"e.g. books find --title dune\">"))
        #expect(html.contains("<input type=\"text\" id=\"i-3\" name=\"i\">"), "an empty field to add one")
        #expect(html.contains("<a href=\"/compare\" aria-current=\"page\">Compare</a>"))
        #expect(html.contains("Error: books: cannot connect to 127.0.0.1:9: connection refused"))
    }
}
