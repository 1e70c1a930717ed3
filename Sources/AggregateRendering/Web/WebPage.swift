import AggregateCore
import AggregateText
import Foundation

/// The frame every page of `aggregate serve`'s web view shares: the document head, the navigation, one inline
/// style sheet (the compare report's palette, light and dark, plus the form's rules) and one inline script, both
/// fixed texts, so the Content-Security-Policy can allow exactly them by hash (``contentSecurityPolicy``).
package enum WebPage {
    /// The `Content-Security-Policy` header the server sends with every page: nothing may load but the page's own
    /// style sheet and script (allowed by their SHA-256, so neither `unsafe-inline` is needed) and the results'
    /// http(s) thumbnails; forms submit only to the server itself, and no site may frame the page.
    package static let contentSecurityPolicy =
        "default-src 'none'; style-src '\(hashSource(style))'; script-src '\(hashSource(script))'; img-src http: https:; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The CSP source of an inline element's text: `sha256-<base64 of its SHA-256>`.
    package static func hashSource(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(Array(text.utf8))).base64EncodedString()
    }

    /// A whole page: the head with `title`, the navigation with `current` marked, `main`, and the script.
    /// - Parameters:
    ///   - title: the page's title, as text (it is escaped here).
    ///   - current: the navigation entry of this page.
    ///   - main: the content of `<main>`, already HTML.
    package static func document(title: String, current: Section, main: String) -> String {
        let links = Section.allCases.map { section in
            "<a href=\"\(section.path)\"\(section == current ? " aria-current=\"page\"" : "")>\(section.label)</a>"
        }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            <title>\(CompareHTMLReport.escape(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <header class="site">
            <p class="brand">aggregate</p>
            <nav aria-label="Views">
            \(links)
            </nav>
            </header>
            <main>
            \(main)</main>
            <script>\(script)</script>
            </body>
            </html>

            """
    }

    /// The views the navigation links to.
    package enum Section: CaseIterable, Sendable {
        /// The query form at `/`.
        case query
        /// The compare view at `/compare`.
        case compare

        /// The view's path on the server.
        package var path: String { self == .query ? "/" : "/compare" }
        var label: String { self == .query ? "Query" : "Compare" }
    }

    /// A form field's wrapper: its label, the control and its help text (linked by `aria-describedby`).
    static func field(id: String, label: String, required: Bool = false, help: String?, control: (_ describedBy: String) -> String) -> String {
        let helpID = "\(id)-help"
        let describedBy = help == nil ? "" : " aria-describedby=\"\(helpID)\""
        var html = "<div class=\"field\">\n<label for=\"\(id)\">\(CompareHTMLReport.escape(label))"
        if required { html += " <span class=\"required\">(required)</span>" }
        html += "</label>\n" + control(describedBy) + "\n"
        if let help { html += "<p class=\"help\" id=\"\(helpID)\">\(CompareHTMLReport.escape(help))</p>\n" }
        return html + "</div>\n"
    }

    /// An error the page shows above its results: the one line `aggregate` would print.
    static func errorAlert(_ error: AggregateError) -> String {
        "<p class=\"error alert\" role=\"alert\">\(CompareHTMLReport.errorLine(error))</p>\n"
    }

    // MARK: - Style and script

    /// The compare report's style sheet (its palette in light and dark, cards, charts, heat map), then the rules of
    /// the forms and the results table.
    package static let style = CompareHTMLReport.style + """
        header.site { display: flex; align-items: baseline; gap: 1.5rem; border-bottom: 1px solid var(--border);
          padding-bottom: .5rem; margin-bottom: 1rem; }
        .brand { margin: 0; font-size: 1.4rem; font-weight: 700; }
        nav a { margin-right: 1rem; font-weight: 600; text-decoration: none; }
        nav a[aria-current=page] { text-decoration: underline; text-underline-offset: .3em; }
        form { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 1rem 1.25rem; }
        .pickers, fieldset { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: .75rem 1.25rem;
          align-items: start; }
        fieldset { border: 0; border-top: 1px solid var(--border); margin: 1rem 0 0; padding: .75rem 0 0; }
        fieldset[hidden], [hidden] { display: none; }
        legend { font-weight: 700; padding: 0 .25rem 0 0; }
        .field { display: flex; flex-direction: column; gap: .2rem; min-width: 0; }
        .field label, .checks legend { font-weight: 600; }
        .required { color: var(--failed); font-weight: 400; font-size: .85em; }
        .help { margin: 0; color: var(--muted); font-size: .85rem; }
        .span { grid-column: 1 / -1; }
        form > .help { margin-bottom: .75rem; }
        .checks .help { flex-basis: 100%; }
        input[type=text], input[type=number], select { font: inherit; color: var(--fg); background: var(--bg);
          border: 1px solid var(--border); border-radius: 6px; padding: .35rem .5rem; width: 100%; }
        input:focus-visible, select:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--link);
          outline-offset: 1px; }
        .check { display: flex; align-items: center; gap: .4rem; font-weight: 400; }
        .checks { display: flex; flex-wrap: wrap; gap: .2rem 1rem; border: 0; margin: 0; padding: 0; grid-column: 1 / -1; }
        .actions { display: flex; gap: .75rem; align-items: center; margin-top: 1rem; flex-wrap: wrap; }
        button { font: inherit; font-weight: 600; border-radius: 6px; padding: .4rem 1.1rem; cursor: pointer;
          border: 1px solid var(--link); background: var(--link); color: var(--bg); }
        button.secondary { background: transparent; color: var(--link); }
        .js .choose { display: none; }
        .alert { background: var(--card); border: 1px solid var(--failed); border-radius: 6px; padding: .5rem .75rem;
          margin: 0 0 1rem; }
        .command { overflow-wrap: anywhere; }
        table.results { border-collapse: collapse; width: 100%; }
        .results caption { text-align: left; color: var(--muted); padding: .25rem 0; }
        .results th, .results td { border-bottom: 1px solid var(--border); padding: .4rem .6rem; text-align: left;
          vertical-align: top; }
        .results thead th { font-size: .85rem; color: var(--muted); }
        .results td.num { text-align: right; color: var(--muted); }
        .results .title { font-weight: 600; overflow-wrap: anywhere; }
        .results .sub { color: var(--muted); font-size: .9rem; }
        .results img { width: 48px; height: 48px; object-fit: cover; border-radius: 4px; background: var(--card); }
        .results time { white-space: nowrap; }
        ul.metrics { list-style: none; margin: 0; padding: 0; font-size: .9rem; }
        ul.metrics li { white-space: nowrap; }
        .result-layout { display: grid; grid-template-columns: minmax(220px, 300px) minmax(0, 1fr); gap: 1.25rem;
          align-items: start; }
        @media (max-width: 760px) { .result-layout { grid-template-columns: minmax(0, 1fr); } }
        .result-layout .results caption { padding-top: 0; }

        """

    /// With JavaScript on, switching the provider or the operation shows that operation's fields at once: every
    /// operation's fields are in the page, and the hidden ones are disabled so the form sends only the shown ones.
    /// Without JavaScript the page works the same through the "Choose" button. A fixed text, hashed in the CSP.
    package static let script = """

        (function () {
          var form = document.getElementById("query-form");
          if (!form) { return; }
          document.documentElement.className = "js";
          var provider = document.getElementById("provider");
          function sync() {
            var operation = null;
            var pickers = form.querySelectorAll("[data-operations]");
            for (var i = 0; i < pickers.length; i++) {
              var on = pickers[i].getAttribute("data-operations") === provider.value;
              var select = pickers[i].querySelector("select");
              pickers[i].hidden = !on;
              select.disabled = !on;
              if (on) { operation = select.value; }
            }
            var sets = form.querySelectorAll("fieldset[data-provider]");
            for (var j = 0; j < sets.length; j++) {
              var shown = sets[j].getAttribute("data-provider") === provider.value &&
                sets[j].getAttribute("data-operation") === operation;
              sets[j].hidden = !shown;
              sets[j].disabled = !shown;
            }
          }
          form.addEventListener("change", function (event) {
            if (event.target.name === "provider" || event.target.name === "operation") { sync(); }
          });
          sync();
        })();

        """
}
