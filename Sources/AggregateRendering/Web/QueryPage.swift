package import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// The web page at `/` of `aggregate serve`: a form generated from the providers' descriptors (a provider, one of
/// its operations, that operation's parameters as typed inputs, and a limit), and below it the result of the
/// selection as a table with links and the same per-source outcome as the compare report.
///
/// It is rendered on the server and submits with GET to `/`, so it works with JavaScript off; with it on, the
/// page's one script switches the fields when the provider or the operation changes (see ``WebPage/script``).
/// Serve it with ``WebPage/contentSecurityPolicy``. Everything from a result is escaped, and only http(s) URLs
/// become links or images.
package enum QueryPage {
    /// What a request for `/` asks the server to do, read from its query string by ``request(_:descriptors:)``.
    package struct Request: Sendable {
        /// What the form shows, or `nil` for its first view (the first provider's default operation).
        package var selection: QuerySelection?
        /// The one problem with the query string, to show on the page (render it with status 400).
        package var error: AggregateError?
        /// Whether the server should run ``QuerySelection/arguments(_:)`` and render the result: the query was
        /// valid and was not the no-JavaScript "Choose" button.
        package var shouldRun: Bool
    }

    /// Reads the query string of a request for `/`.
    ///
    /// The "Choose" button (`choose=1`, for browsers without JavaScript) only switches the form to the provider and
    /// operation picked; an invalid query keeps what can be kept of it in the form and carries the error.
    package static func request(_ query: String, descriptors: [ProviderDescriptor]) -> Request {
        let choosing = (try? WebQuery(query))?.values("choose").isEmpty == false
        do throws(AggregateError) {
            if choosing { return Request(selection: try QuerySelection.choose(query, descriptors: descriptors), error: nil, shouldRun: false) }
            let selection = try QuerySelection.parse(query, descriptors: descriptors)
            return Request(selection: selection, error: nil, shouldRun: selection != nil)
        } catch {
            return Request(selection: try? QuerySelection.choose(query, descriptors: descriptors), error: error, shouldRun: false)
        }
    }

    /// The whole page.
    /// - Parameters:
    ///   - descriptors: every provider the server offers, in the order to list them.
    ///   - selection: what the form shows (`nil`: the first provider's default operation, with defaults).
    ///   - result: the selection's result, to show below the form.
    ///   - error: a problem to show instead of (or before) a result, e.g. ``Request/error``.
    package static func render(
        descriptors: [ProviderDescriptor], selection: QuerySelection?, result: ProviderResult? = nil, error: AggregateError? = nil
    ) -> String {
        let current = selection.flatMap { selection in descriptors.first { $0.name == selection.provider } } ?? descriptors.first
        let operation = current.flatMap { descriptor in selection.flatMap { descriptor.operation(named: $0.operation) } ?? descriptor.operations.first }
        var main = "<section aria-labelledby=\"form-title\">\n<h1 id=\"form-title\">Query a provider</h1>\n"
        // Above the form, which can be long, so the one line saying what to fix is seen first.
        if let error { main += WebPage.errorAlert(error) }
        main += form(descriptors: descriptors, current: current, operation: operation, selection: selection)
        main += "</section>\n"
        if let result, let current { main += resultSection(result, descriptor: current, selection: selection) }
        var title = "aggregate"
        if let selection, result != nil { title = "\(selection.provider) \(selection.operation) · aggregate" }
        return WebPage.document(title: title, current: .query, main: main)
    }

    // MARK: - The form

    private static func form(descriptors: [ProviderDescriptor], current: ProviderDescriptor?, operation: ProviderOperation?, selection: QuerySelection?) -> String {
        let escape = CompareHTMLReport.escape
        var html = "<form id=\"query-form\" method=\"get\" action=\"/\">\n<div class=\"pickers\">\n"
        html += WebPage.field(id: "provider", label: "Provider", help: nil) { _ in
            "<select id=\"provider\" name=\"provider\">\n" + descriptors.map { descriptor in
                let selected = descriptor.name == current?.name ? " selected" : ""
                return "<option value=\"\(escape(descriptor.name))\"\(selected)>\(escape(descriptor.displayName)) (\(escape(descriptor.name)))</option>\n"
            }.joined() + "</select>"
        }
        for descriptor in descriptors {
            let shown = descriptor.name == current?.name
            let id = "operation-\(descriptor.name)"
            html += "<div data-operations=\"\(escape(descriptor.name))\"\(shown ? "" : " hidden")>\n"
            html += WebPage.field(id: id, label: "Operation", help: nil) { _ in
                "<select id=\"\(escape(id))\" name=\"operation\"\(shown ? "" : " disabled")>\n" + descriptor.operations.map { candidate in
                    let selected = shown && candidate.name == operation?.name ? " selected" : ""
                    let summary = TextLayout.truncate(candidate.summary, to: 60)
                    return "<option value=\"\(escape(candidate.name))\"\(selected)>\(escape(candidate.name)): \(escape(summary))</option>\n"
                }.joined() + "</select>"
            }
            html += "</div>\n"
        }
        html += "<div class=\"field\"><span class=\"help\">&#160;</span><button type=\"submit\" name=\"choose\" value=\"1\" class=\"choose secondary\">Choose</button></div>\n"
        html += "</div>\n"
        for descriptor in descriptors {
            for candidate in descriptor.operations {
                let shown = descriptor.name == current?.name && candidate.name == operation?.name
                html += fieldset(descriptor, candidate, values: shown ? selection?.values : nil, shown: shown)
            }
        }
        html += "<div class=\"pickers\">\n"
        html += WebPage.field(id: "limit", label: "Limit", help: "The most items to return (default: 20).") { describedBy in
            let value = selection?.limit.map { " value=\"\($0)\"" } ?? ""
            let range = QuerySelection.limitRange
            return "<input type=\"number\" id=\"limit\" name=\"limit\" min=\"\(range.lowerBound)\" max=\"\(range.upperBound)\" step=\"1\" placeholder=\"20\"\(value)\(describedBy)>"
        }
        html += "</div>\n<div class=\"actions\"><button type=\"submit\">Run</button></div>\n</form>\n"
        return html
    }

    /// One operation's fields: the provider's options, then the operation's parameters. Only the selected
    /// operation's fieldset is shown and enabled, so without JavaScript the form sends only its fields.
    private static func fieldset(_ descriptor: ProviderDescriptor, _ operation: ProviderOperation, values: [String: String]?, shown: Bool) -> String {
        let escape = CompareHTMLReport.escape
        var html = "<fieldset data-provider=\"\(escape(descriptor.name))\" data-operation=\"\(escape(operation.name))\"\(shown ? "" : " hidden disabled")>\n"
        html += "<legend>\(escape(descriptor.displayName)) · \(escape(operation.name))</legend>\n"
        html += "<p class=\"help span\">\(escape(operation.summary)) \(escape(descriptor.summary))</p>\n"
        let parameters = descriptor.options + operation.parameters
        if parameters.isEmpty { html += "<p class=\"help span\">This operation takes no parameters.</p>\n" }
        for parameter in parameters {
            let id = "p-\(descriptor.name)-\(operation.name)-\(parameter.name)"
            html += ParameterField.html(parameter, id: id, value: values?[parameter.name] ?? parameter.defaultValue)
        }
        return html + "</fieldset>\n"
    }

    // MARK: - The result

    private static func resultSection(_ result: ProviderResult, descriptor: ProviderDescriptor, selection: QuerySelection?) -> String {
        let escape = CompareHTMLReport.escape
        let command = selection.map { $0.commandLine(descriptor) } ?? "\(result.provider) \(result.operation)"
        var html = "<section aria-labelledby=\"results-title\">\n<h2 id=\"results-title\">Results</h2>\n"
        html += "<p class=\"command\"><code>aggregate \(escape(command))</code> · "
        html += "<a href=\"\(escape(ComparePage.href(invocations: [command])))\">compare with other sources</a></p>\n"
        let row = ComparisonRow(invocation: command, result: result, authStyle: descriptor.authStyle, paginationStyle: descriptor.paginationStyle)
        html += "<div class=\"result-layout\">\n<div class=\"outcome\">\n" + CompareHTMLReport.card(row) + "</div>\n"
        if result.error == nil { html += "<div class=\"items\">\n" + ResultTable.html(result.items) + "</div>\n" }
        return html + "</div>\n</section>\n"
    }
}

/// One parameter as a form control, typed from its descriptor.
enum ParameterField {
    /// The field for `parameter`: text, a number with its range, a `<select>` of its choices, checkboxes for a list
    /// of choices, a checkbox for a flag; its help as the description, required ones marked, `value` filled in.
    static func html(_ parameter: Parameter, id: String, value: String?) -> String {
        let escape = CompareHTMLReport.escape
        let name = escape(parameter.name)
        let required = parameter.isRequired && parameter.defaultValue == nil
        let requiredAttribute = required ? " required" : ""
        let help = parameter.help.isEmpty ? nil : parameter.help
        let valueAttribute = value.map { " value=\"\(escape($0))\"" } ?? ""
        switch parameter.type {
        case .string:
            return WebPage.field(id: id, label: parameter.name, required: required, help: help) { describedBy in
                "<input type=\"text\" id=\"\(escape(id))\" name=\"\(name)\"\(valueAttribute)\(requiredAttribute)\(describedBy)>"
            }
        case .integer(let range):
            return WebPage.field(id: id, label: parameter.name, required: required, help: help) { describedBy in
                let bounds = range.map { " min=\"\($0.lowerBound)\" max=\"\($0.upperBound)\"" } ?? ""
                return "<input type=\"\(numberType(value))\" id=\"\(escape(id))\" name=\"\(name)\" step=\"1\"\(bounds)\(valueAttribute)\(requiredAttribute)\(describedBy)>"
            }
        case .number(let range):
            return WebPage.field(id: id, label: parameter.name, required: required, help: help) { describedBy in
                let bounds = range.map { " min=\"\(JSONNumberFormat.text(for: $0.lowerBound))\" max=\"\(JSONNumberFormat.text(for: $0.upperBound))\"" } ?? ""
                return "<input type=\"\(numberType(value))\" id=\"\(escape(id))\" name=\"\(name)\" step=\"any\"\(bounds)\(valueAttribute)\(requiredAttribute)\(describedBy)>"
            }
        case .choice(let choices):
            return select(parameter, id: id, choices: choices, value: value, required: required, help: help)
        case .boolean where parameter.style != .flag:
            return select(parameter, id: id, choices: ["true", "false"], value: value, required: required, help: help)
        case .boolean:
            let checked = value.map { ["true", "yes", "1", "on"].contains($0.lowercased()) } == true ? " checked" : ""
            let helpID = "\(id)-help"
            var html = "<div class=\"field\">\n<label class=\"check\" for=\"\(escape(id))\">"
            html += "<input type=\"checkbox\" id=\"\(escape(id))\" name=\"\(name)\" value=\"true\"\(checked)\(help == nil ? "" : " aria-describedby=\"\(escape(helpID))\"")> \(name)</label>\n"
            if let help { html += "<p class=\"help\" id=\"\(escape(helpID))\">\(escape(help))</p>\n" }
            return html + "</div>\n"
        case .choiceList(let choices):
            let picked = Set((value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            let helpID = "\(id)-help"
            var html = "<fieldset class=\"checks\"\(help == nil ? "" : " aria-describedby=\"\(escape(helpID))\"")>\n<legend>\(name)</legend>\n"
            for (index, choice) in choices.enumerated() {
                let choiceID = escape("\(id)-\(index)")
                let checked = picked.contains(choice.lowercased()) ? " checked" : ""
                html += "<label class=\"check\" for=\"\(choiceID)\"><input type=\"checkbox\" id=\"\(choiceID)\" name=\"\(name)\" value=\"\(escape(choice))\"\(checked)> \(escape(choice))</label>\n"
            }
            if let help { html += "<p class=\"help\" id=\"\(escape(helpID))\">\(escape(help))</p>\n" }
            return html + "</fieldset>\n"
        }
    }

    /// `number`, or `text` for a value that is not a number: a browser empties a number field holding text, and
    /// the page must show what was typed beside its error.
    private static func numberType(_ value: String?) -> String {
        guard let value, Double(value.trimmingCharacters(in: .whitespaces)) == nil else { return "number" }
        return "text"
    }

    /// A `<select>` of `choices`; an optional one without a default starts with an empty choice, meaning "not given".
    private static func select(_ parameter: Parameter, id: String, choices: [String], value: String?, required: Bool, help: String?) -> String {
        let escape = CompareHTMLReport.escape
        return WebPage.field(id: id, label: parameter.name, required: required, help: help) { describedBy in
            var html = "<select id=\"\(escape(id))\" name=\"\(escape(parameter.name))\"\(required ? " required" : "")\(describedBy)>\n"
            if parameter.defaultValue == nil { html += "<option value=\"\"\(value == nil ? " selected" : "")>\(required ? "(choose one)" : "(not given)")</option>\n" }
            for choice in choices {
                let selected = value?.lowercased() == choice.lowercased() ? " selected" : ""
                html += "<option value=\"\(escape(choice))\"\(selected)>\(escape(choice))</option>\n"
            }
            return html + "</select>"
        }
    }
}
