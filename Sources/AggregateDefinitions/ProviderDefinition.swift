public import AggregateCore
public import AggregateJSON
public import Foundation

/// A provider written as a JSON document (`docs/provider-definitions.md`, `Schemas/provider-definition.schema.json`),
/// read and checked: every template names declared parameters and every JSON path parses.
public struct ProviderDefinition: Sendable {
    /// A credential's declaration and the stand-in value the emulator accepts.
    public struct Credential: Sendable, Equatable {
        public var variable: AuthVariable
        public var sandboxValue: String
        /// `oauth2-client-id` or `oauth2-client-secret` for the two halves of an OAuth2 client (``DefinitionOAuth2``).
        public var oauth2Role: String? = nil
    }

    /// A name and a template (a query parameter or a header).
    public struct NamedTemplate: Sendable, Equatable {
        public var name: String
        public var template: Template
    }

    /// One operation: its descriptor, request, paging, records and mapping.
    public struct Operation: Sendable {
        public var descriptor: ProviderOperation
        public var method: String
        public var path: Template
        public var query: [NamedTemplate]
        public var headers: [NamedTemplate]
        public var pagination: Pagination
        public var records: JSONPath
        public var item: ItemMapping
        /// The sorts each page's items go through (the first decides, the next break ties), or none for the API's order.
        public var order: [ItemSort]
        /// The condition raw records must meet to become items (`filter`), or `nil` for every record.
        public var filter: RecordFilter? = nil
        /// The request whose records fill this one's parameters (`parent`), or `nil` for a plain operation.
        public var parent: ParentRequest? = nil
        /// Where the operation is in its definition (`/operations/0`), for messages about it.
        public var pointer = "/operations"
        /// How its emulator behaves (`sandbox`), or `nil` for the samples served as fixed pages.
        public var sandbox: DefinitionSandboxSpec? = nil
        /// Parameters sent only beside another (`onlyWith`).
        public var dependencies: [ParameterDependency] = []
        /// How `--since` asks for newer records only, or `nil` when the operation takes no `--since`.
        public var since: DefinitionSince? = nil
    }

    /// How an operation pages.
    public struct Pagination: Sendable, Equatable {
        /// The five kinds.
        public enum Kind: String, Sendable, CaseIterable {
            case pageNumber, offset, cursor, link, none
        }

        public var kind: Kind
        public var parameter: String?
        public var pageSize: Int?
        public var pageSizeParameter: String?
        public var totalCountPath: JSONPath?
        public var firstPage = 1
        public var totalPagesPath: JSONPath?
        public var maxPages: Int?
        public var maxResults: Int?
        public var cursorPath: JSONPath?

        static let none = Pagination(kind: .none)
    }

    /// How a record becomes a unified item.
    public struct ItemMapping: Sendable, Equatable {
        public var kind: ValueRule?
        public var id: ValueRule
        public var title: ValueRule
        public var text: [(field: Item.Field, rule: ValueRule)]
        public var createdAt: ValueRule?
        public var location: [(field: String, rule: ValueRule)]
        public var metrics: [(name: String, rule: ValueRule)]
        public var tags: ValueRule?
        public var extra: [(name: String, rule: ValueRule)]

        public static func == (lhs: ItemMapping, rhs: ItemMapping) -> Bool {
            lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.title == rhs.title && lhs.text.map(\.rule) == rhs.text.map(\.rule)
                && lhs.metrics.map(\.name) == rhs.metrics.map(\.name) && lhs.extra.map(\.name) == rhs.extra.map(\.name)
        }
    }

    /// How error bodies read.
    public struct Errors: Sendable, Equatable {
        public var message: ValueRule?
        public var statusKinds: [Int: AggregateError.Kind]
        public var unauthorizedHint: String?
        /// The emulator's error body, with `{status}` and `{message}` in its strings.
        public var body: JSONValue
    }

    /// The rate-limit headers.
    public struct RateLimit: Sendable, Equatable {
        public var statuses: [Int]
        public var remainingHeader: String?
        public var resetHeader: String?
        public var resetIsEpoch: Bool
        public var honoursRetryAfter: Bool
        /// The emulator's other headers of the counted budget: its size, the requests used, and its name.
        public var limitHeader: String? = nil
        public var usedHeader: String? = nil
        public var resourceHeader: String? = nil
    }

    /// The descriptor `describe`, the help and the argument parser use.
    public var descriptor: ProviderDescriptor
    /// The credentials with their emulator values.
    public var credentials: [Credential]
    /// Headers on every request.
    public var headers: [NamedTemplate]
    /// The operations, in order.
    public var operations: [Operation]
    public var errors: Errors
    public var rateLimit: RateLimit?
    /// The validators the emulator's successful GET answers carry (`sandboxCaching`; an ETag when absent).
    public var sandboxCaching: APICaching
    /// The text view's line, or `nil` for the generic list.
    public var textLine: Template?
    /// Sample files per operation, first page first, relative to the definition's folder.
    public var samples: [String: [String]]
    /// The file the definition was read from, as messages name it (`Providers/GitHub/provider.json`, a path).
    public var source = "provider.json"

    /// The OAuth2 client-credentials grant (`oauth2`), or `nil` when the credentials are sent as they are.
    public var oauth2: DefinitionOAuth2?

    /// The provider's name.
    public var name: String { descriptor.name }

    /// The operation called `name`.
    public func operation(named name: String) -> Operation? { operations.first { $0.descriptor.name == name } }

    /// Reads a definition from its JSON text.
    /// - Throws: ``DefinitionProblem`` naming the JSON pointer and what is wrong.
    public init(json data: Data) throws(DefinitionProblem) {
        let document: JSONValue
        do { document = try JSONParser().parse(data) } catch { throw DefinitionProblem("", "is not valid JSON: \(error)") }
        try self.init(reading: DefinitionReader(document))
    }

    static let topFields = [
        "$schema", "formatVersion", "name", "displayName", "summary", "docsURL", "baseURL", "baseURLVariables", "authStyle",
        "paginationStyle", "auth", "headers", "operations", "errors", "rateLimit", "textView", "examples", "samples",
        "rateBudgets", "cache", "sandboxCaching", "oauth2",
    ]

    init(reading reader: DefinitionReader) throws(DefinitionProblem) {
        let top = try reader.object(allowed: Self.topFields, required: ["name", "summary", "docsURL", "baseURL", "operations"])
        if let version = top["formatVersion"], try version.integer() != 1 { throw version.problem("must be 1, the only version") }
        let name = try top.required("name").identifier()
        let baseURL: String?
        if case .null = top.required("baseURL").value { baseURL = nil } else { baseURL = try top.required("baseURL").string() }
        credentials = try top["auth"]?.array().map { (entry) throws(DefinitionProblem) in try Self.credential(entry) } ?? []
        oauth2 = try DefinitionOAuth2(reading: top["oauth2"], credentials: credentials, auth: top["auth"])
        headers = try Self.templates(top["headers"], parameters: [], operation: nil)
        operations = try top.required("operations").array(minimum: 1).map { (entry) throws(DefinitionProblem) in try Self.operation(entry) }
        for (index, operation) in operations.enumerated() where operations[..<index].contains(where: { $0.descriptor.name == operation.descriptor.name }) {
            throw DefinitionProblem("/operations/\(index)/name", "two operations are named '\(operation.descriptor.name)'")
        }
        try ParentRequest.check(operations)
        let read = operations
        operations = read.map { $0.withParentCost(in: read) }
        errors = try Self.errors(top["errors"])
        rateLimit = try top["rateLimit"].map { (entry) throws(DefinitionProblem) in try Self.rateLimit(entry) }
        textLine = try top["textView"].map { (view) throws(DefinitionProblem) in
            let line = try view.object(allowed: ["line"], required: ["line"]).required("line")
            let template = try line.template()
            let fields = Set(Item.Field.allCases.map(\.rawValue))
            for placeholder in template.names {
                let root = placeholder.split(separator: ".").first.map(String.init) ?? placeholder
                guard fields.contains(root) else {
                    throw line.problem("the placeholder '{\(placeholder)}' is not an item field (fields: \(Item.Field.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
            }
            return template
        }
        let examples = try top["examples"]?.array().map { (entry) throws(DefinitionProblem) -> ProviderExample in
            let fields = try entry.object(allowed: ["arguments", "summary"], required: ["arguments", "summary"])
            let arguments = try fields.required("arguments").array(minimum: 1).map { (word) throws(DefinitionProblem) in try word.string(nonEmpty: false) }
            // The first word is the provider: a renamed copy (`"name": "gh2"`) keeps working examples.
            return ProviderExample([name] + arguments.dropFirst(), try fields.required("summary").string(), file: "provider.json", line: 1)
        } ?? []
        var samples: [String: [String]] = [:]
        for (operation, files) in try top["samples"]?.members() ?? [] {
            guard try SampleKey.check(operation, files, operations: operations) else {
                throw files.problem("'\(operation)' is not an operation of this definition")
            }
            samples[operation] = try files.array(minimum: 1).map { (file) throws(DefinitionProblem) in try file.string() }
        }
        self.samples = samples
        var descriptor = ProviderDescriptor(
            name: name, displayName: try top["displayName"]?.string() ?? name, summary: try top.required("summary").string(),
            docsURL: try top.required("docsURL").string(), defaultBaseURL: baseURL,
            baseURLVariables: try top["baseURLVariables"]?.array().map { (entry) throws(DefinitionProblem) in try entry.string() } ?? [],
            auth: credentials.map(\.variable),
            authStyle: try top["authStyle"]?.string() ?? oauth2?.authStyle ?? Self.authStyle(credentials.map(\.variable)),
            paginationStyle: try top["paginationStyle"]?.string() ?? Self.paginationStyle(operations[0].pagination),
            operations: operations.map(\.descriptor), examples: examples)
        // The reset of a rate limit is told in local time: the run's TZ.
        if rateLimit != nil { descriptor.settingVariables = ["TZ"] }
        descriptor.rateBudgets = try DefinitionLimits.rateBudgets(top["rateBudgets"], credentials: credentials.map(\.variable.name))
        descriptor.cacheFreshness = try DefinitionLimits.cacheFreshness(top["cache"], operations: operations.map(\.descriptor.name))
        sandboxCaching = try DefinitionLimits.sandboxCaching(top["sandboxCaching"])
        // Every operation's mapped metrics, once each, in the order the definition names them.
        var metrics: [String] = []
        for name in operations.flatMap(\.item.metrics).map(\.name) where !metrics.contains(name) { metrics.append(name) }
        descriptor.metrics = metrics
        self.descriptor = descriptor
    }

    // MARK: Parts

    private static func credential(_ reader: DefinitionReader) throws(DefinitionProblem) -> Credential {
        let fields = try reader.object(allowed: ["variable", "in", "parameter", "required", "usage", "label", "sandboxValue"], required: ["variable", "in"])
        let variable = try fields.required("variable").string()
        guard variable.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }), !(variable.first?.isNumber ?? true) else {
            throw fields.required("variable").problem("'\(variable)' is not an environment variable name")
        }
        let placement: CredentialPlacement?
        let usage: String
        let sent = try fields.required("in").word(["bearer", "query", "header"] + DefinitionOAuth2.roles)
        switch sent {
        case let role where DefinitionOAuth2.roles.contains(role):
            // Never sent to the API: the engine trades it for a token (the `oauth2` section).
            placement = nil
            usage = DefinitionOAuth2.usage(of: role)
        case "bearer":
            placement = .bearer
            usage = "sent as 'Authorization: Bearer'"
        case "query":
            guard let parameter = try fields["parameter"]?.string() else { throw reader.problem("misses 'parameter': the query parameter's name") }
            placement = .queryParameter(parameter)
            usage = "sent as the query parameter '\(parameter)'"
        default:
            guard let parameter = try fields["parameter"]?.string() else { throw reader.problem("misses 'parameter': the header's name") }
            placement = .header(parameter)
            usage = "sent as the header '\(parameter)'"
        }
        let declared = AuthVariable(
            variable, usage: try fields["usage"]?.string() ?? usage, sent: placement, required: try fields["required"]?.bool() ?? false,
            label: try fields["label"]?.string())
        let fallback = "sandbox-" + variable.lowercased().replacingOccurrences(of: "_", with: "-")
        return Credential(
            variable: declared, sandboxValue: try fields["sandboxValue"]?.string() ?? fallback, oauth2Role: DefinitionOAuth2.roles.contains(sent) ? sent : nil)
    }

    /// Name → template members; in a request, each name must be one of `parameters`.
    private static func templates(_ reader: DefinitionReader?, parameters: [Parameter], operation: String?) throws(DefinitionProblem) -> [NamedTemplate] {
        guard let reader else { return [] }
        return try reader.members().map { (member) throws(DefinitionProblem) in
            let template = try member.value.template()
            try checkNames(template, member.value, parameters: parameters, operation: operation)
            return NamedTemplate(name: member.key, template: template)
        }
    }

    private static func checkNames(_ template: Template, _ reader: DefinitionReader, parameters: [Parameter], operation: String?) throws(DefinitionProblem) {
        let declared = parameters.map(\.name)
        for name in template.names where !declared.contains(name) {
            let list = declared.isEmpty ? "it declares none" : "declared: \(declared.joined(separator: ", "))"
            let owner = operation.map { "a parameter of '\($0)'" } ?? "a parameter (headers for every request can name none)"
            throw reader.problem("the template names '\(name)', which is not \(owner) (\(list))")
        }
    }

    private static func operation(_ reader: DefinitionReader) throws(DefinitionProblem) -> Operation {
        let fields = try reader.object(
            allowed: ["name", "summary", "kind", "parameters", "request", "pagination", "records", "item", "order", "filter", "parent", "sandbox", "since"],
            required: ["name", "summary", "kind", "request", "records", "item"])
        let name = try fields.required("name").identifier()
        let item = try item(fields.required("item"))
        let since = try fields["since"].map { (entry) throws(DefinitionProblem) in try DefinitionSince(reading: entry, hasCreatedAt: item.createdAt != nil) }
        var parameters = try fields["parameters"]?.array().map { (entry) throws(DefinitionProblem) in try parameter(entry) } ?? []
        if since != nil {
            guard !parameters.contains(where: { $0.name == DefinitionSince.parameterName }) else {
                throw fields.required("since").problem("the operation declares a parameter 'since' of its own; --since is this section's")
            }
            parameters.append(DefinitionSince.parameter)
        }
        for (index, parameter) in parameters.enumerated() where parameters[..<index].contains(where: { $0.name == parameter.name }) {
            throw DefinitionProblem(reader.pointer(to: "parameters") + "/\(index)/name", "two parameters are named '\(parameter.name)'")
        }
        let parent = try fields["parent"].map { (entry) throws(DefinitionProblem) in try ParentRequest.reading(entry, declared: parameters.map(\.name)) }
        // The request's templates may also name what the parent's records fill, which every child request has.
        let filled = parent?.parameters.map { Parameter($0.name, required: true, help: "filled from the parent's records") } ?? []
        let request = try fields.required("request").object(allowed: ["method", "path", "query", "headers"], required: ["path"])
        let path = try request.required("path").template()
        try checkNames(path, request.required("path"), parameters: parameters + filled, operation: name)
        for placeholder in path.parts.compactMap({ part -> String? in if case .value(let name) = part { return name } else { return nil } }) {
            let parameter = (parameters + filled).first { $0.name == placeholder }
            guard parameter?.isRequired == true || parameter?.defaultValue != nil else {
                throw request.required("path").problem("the path names '\(placeholder)', which is neither required nor has a default")
            }
        }
        let pagination = try fields["pagination"].map { (entry) throws(DefinitionProblem) in try Self.pagination(entry) } ?? .none
        let method = try request["method"]?.word(["GET", "POST", "PUT", "PATCH", "DELETE"]) ?? "GET"
        let order = try fields["order"].map { (entry) throws(DefinitionProblem) in try Self.order(entry) } ?? []
        let kind = try fields.required("kind").string()
        guard DefinitionLimits.isItemKind(kind) else {
            throw fields.required("kind").problem("'\(kind)' must be lower-case letters, digits and '-', starting with a letter (an item kind)")
        }
        let descriptor = ProviderOperation(
            name: name, summary: try fields.required("summary").string(), itemKind: kind,
            parameters: parameters, writes: !["GET", "HEAD"].contains(method),
            // A paged operation without a declared page size may get one item a page: the bound that always holds.
            cost: RequestCost(pageSize: pagination.kind == .none ? nil : pagination.pageSize ?? 1))
        var operation = Operation(
            descriptor: descriptor, method: method, path: path,
            query: try templates(request["query"], parameters: parameters + filled, operation: name),
            headers: try templates(request["headers"], parameters: parameters + filled, operation: name),
            pagination: pagination, records: try fields.required("records").jsonPath(), item: item,
            order: order, filter: try fields["filter"].map { (entry) throws(DefinitionProblem) in try RecordFilter(reading: entry) }, parent: parent,
            pointer: reader.pointer, since: since)
        operation.dependencies = try ParameterDependency.read(fields["parameters"], declared: parameters.map(\.name))
        operation.sandbox = try fields["sandbox"].map { (entry) throws(DefinitionProblem) in try DefinitionSandboxSpec(reading: entry) }
        return operation
    }

    private static func order(_ reader: DefinitionReader) throws(DefinitionProblem) -> [ItemSort] {
        let fields = try reader.object(allowed: ["by", "descending"], required: ["by"])
        let descending = try fields["descending"]?.bool() ?? false
        return try fields.required("by").array(minimum: 1).map { (entry) throws(DefinitionProblem) -> ItemSort in
            let text = try entry.string()
            do { return try ItemSort(parsing: (descending ? "-" : "") + text) } catch { throw entry.problem("'\(text)' cannot order items: \(error)") }
        }
    }

    private static func parameter(_ reader: DefinitionReader) throws(DefinitionProblem) -> Parameter {
        let fields = try reader.object(
            allowed: ["name", "type", "values", "minimum", "maximum", "required", "default", "positional", "freeText", "valueName", "help", "onlyWith"], required: ["name", "help"])
        let name = try fields.required("name").identifier()
        let typeName = try fields["type"]?.word(["string", "integer", "number", "boolean", "enum"]) ?? "string"
        let minimum = try fields["minimum"]?.number(), maximum = try fields["maximum"]?.number()
        if let minimum, let maximum, minimum > maximum { throw reader.problem("minimum is above maximum") }
        let type: Parameter.ValueType
        switch typeName {
        case "integer":
            let low = minimum.map { Int(max(Double(Int.min / 2), $0).rounded(.up)) }, high = maximum.map { Int(min(Double(Int.max / 2), $0).rounded(.down)) }
            type = .integer(low == nil && high == nil ? nil : (low ?? Int.min)...(high ?? Int.max))
        case "number":
            type = .number(minimum == nil && maximum == nil ? nil : (minimum ?? -Double.greatestFiniteMagnitude)...(maximum ?? Double.greatestFiniteMagnitude))
        case "boolean": type = .boolean
        case "enum":
            guard let values = fields["values"] else { throw reader.problem("an enum needs 'values'") }
            type = .choice(try values.array(minimum: 1).map { (word) throws(DefinitionProblem) in try word.string() })
        default: type = .string
        }
        if fields["values"] != nil, typeName != "enum" { throw fields.required("values").problem("only an enum takes 'values'") }
        let positional = try fields["positional"]?.bool() ?? false
        if positional, typeName == "boolean" { throw fields.required("positional").problem("a boolean is a flag (--\(name)); it cannot be positional") }
        let defaultValue: String? = try fields["default"].map { (value) throws(DefinitionProblem) in
            guard let text = ValueRule.text(value.value) else { throw value.problem("must be a string, number or boolean") }
            return text
        }
        let parameter = Parameter(
            name, style: typeName == "boolean" ? .flag : positional ? .positional : .option, type: type,
            required: try fields["required"]?.bool() ?? false, default: defaultValue, valueName: try fields["valueName"]?.string(),
            freeText: try fields["freeText"]?.bool(), help: try fields.required("help").string())
        if let defaultValue {
            do { _ = try parameter.value(from: defaultValue) } catch { throw fields.required("default").problem("is not a valid value: \(error.message)") }
        }
        return parameter
    }

    private static func pagination(_ reader: DefinitionReader) throws(DefinitionProblem) -> Pagination {
        let all = ["kind", "parameter", "pageSize", "pageSizeParameter", "totalCountPath", "firstPage", "totalPagesPath", "maxPages", "maxResults", "cursorPath"]
        let kind = try (try reader.object(allowed: all, required: ["kind"])).required("kind").word(Pagination.Kind.self)
        let allowed: [String]
        let required: [String]
        switch kind {
        case .pageNumber:
            allowed = all.filter { $0 != "cursorPath" }
            required = ["parameter", "pageSize"]
        case .offset:
            allowed = ["kind", "parameter", "pageSize", "pageSizeParameter", "totalCountPath", "maxPages", "maxResults"]
            required = ["parameter", "pageSize"]
        case .cursor:
            allowed = ["kind", "parameter", "pageSize", "pageSizeParameter", "totalCountPath", "cursorPath"]
            required = ["parameter", "cursorPath"]
        case .link:
            allowed = ["kind", "pageSize", "pageSizeParameter", "totalCountPath", "maxResults"]
            required = []
        case .none:
            allowed = ["kind", "totalCountPath"]
            required = []
        }
        let fields = try reader.object(allowed: allowed, required: required)
        if kind == .pageNumber, fields["totalPagesPath"] == nil, fields["maxPages"] == nil {
            throw reader.problem("page-number paging needs totalPagesPath or maxPages (a cap)")
        }
        if fields["pageSizeParameter"] != nil, fields["pageSize"] == nil { throw reader.problem("pageSizeParameter needs pageSize") }
        let firstPage = try fields["firstPage"]?.integer(in: 0...1) ?? 1
        return Pagination(
            kind: kind, parameter: try fields["parameter"]?.string(), pageSize: try fields["pageSize"]?.integer(in: 1...100_000),
            pageSizeParameter: try fields["pageSizeParameter"]?.string(), totalCountPath: try fields["totalCountPath"]?.jsonPath(),
            firstPage: firstPage, totalPagesPath: try fields["totalPagesPath"]?.jsonPath(), maxPages: try fields["maxPages"]?.integer(in: 1...100_000),
            maxResults: try fields["maxResults"]?.integer(in: 1...Int.max), cursorPath: try fields["cursorPath"]?.jsonPath())
    }

    static let textFields: [Item.Field] = [.subtitle, .summary, .url, .imageUrl, .author]

    private static func item(_ reader: DefinitionReader) throws(DefinitionProblem) -> ItemMapping {
        let names = ["kind", "id", "title"] + textFields.map(\.rawValue) + ["createdAt", "location", "metrics", "tags", "extra"]
        let fields = try reader.object(allowed: names, required: ["id", "title"])
        func rule(_ key: String) throws(DefinitionProblem) -> ValueRule? { try fields[key].map { (entry) throws(DefinitionProblem) in try ValueRule(reading: entry) } }
        func rules(_ entry: DefinitionReader?) throws(DefinitionProblem) -> [(String, ValueRule)] {
            try entry?.members().map { (member) throws(DefinitionProblem) in (member.key, try ValueRule(reading: member.value)) } ?? []
        }
        var text: [(Item.Field, ValueRule)] = []
        for field in textFields {
            if let found = try rule(field.rawValue) { text.append((field, found)) }
        }
        var location: [(String, ValueRule)] = []
        if let entry = fields["location"] {
            let parts = try entry.object(allowed: ["city", "country", "latitude", "longitude"])
            for key in ["city", "country", "latitude", "longitude"] {
                if let part = parts[key] { location.append((key, try ValueRule(reading: part))) }
            }
        }
        let kind = try rule("kind")
        for case .constant(let value) in kind?.sources.map(\.origin) ?? [] {
            guard let text = ValueRule.text(value), DefinitionLimits.isItemKind(text) else {
                throw fields.required("kind").problem("the constant kind \(value) must be lower-case letters, digits and '-', starting with a letter")
            }
        }
        // `object(allowed:required:)` above has made sure both are there.
        let id = try ValueRule(reading: fields.required("id")), title = try ValueRule(reading: fields.required("title"))
        return ItemMapping(
            kind: kind, id: id, title: title, text: text, createdAt: try rule("createdAt"),
            location: location, metrics: try rules(fields["metrics"]), tags: try rule("tags"), extra: try rules(fields["extra"]))
    }

    private static func errors(_ reader: DefinitionReader?) throws(DefinitionProblem) -> Errors {
        let fallbackBody: JSONValue = ["message": "{message}"]
        guard let reader else { return Errors(message: nil, statusKinds: [:], unauthorizedHint: nil, body: fallbackBody) }
        let fields = try reader.object(allowed: ["message", "statusKinds", "unauthorizedHint", "body"])
        var kinds: [Int: AggregateError.Kind] = [:]
        let allowedKinds = ["usage", "auth", "notFound", "rateLimited", "http", "config", "decoding"]
        for (status, kind) in try fields["statusKinds"]?.members() ?? [] {
            guard let code = Int(status), (100...599).contains(code), status.count == 3 else { throw kind.problem("'\(status)' is not an HTTP status") }
            kinds[code] = AggregateError.Kind(rawValue: try kind.word(allowedKinds))
        }
        if let body = fields["body"], body.value.object == nil { throw body.problem("must be an object, not \(body.value.typeName)") }
        return Errors(
            message: try fields["message"].map { (entry) throws(DefinitionProblem) in try ValueRule(reading: entry) }, statusKinds: kinds,
            unauthorizedHint: try fields["unauthorizedHint"]?.string(), body: fields["body"]?.value ?? fallbackBody)
    }

    private static func rateLimit(_ reader: DefinitionReader) throws(DefinitionProblem) -> RateLimit {
        let fields = try reader.object(allowed: ["statuses", "remainingHeader", "resetHeader", "reset", "retryAfter", "limitHeader", "usedHeader", "resourceHeader"])
        var limit = RateLimit(
            statuses: try fields["statuses"]?.array().map { (status) throws(DefinitionProblem) in try status.integer(in: 400...599) } ?? [429],
            remainingHeader: try fields["remainingHeader"]?.string(), resetHeader: try fields["resetHeader"]?.string(),
            resetIsEpoch: try fields["reset"]?.word(["epoch-seconds", "seconds"]) != "seconds",
            honoursRetryAfter: try fields["retryAfter"]?.bool() ?? true)
        (limit.limitHeader, limit.usedHeader) = (try fields["limitHeader"]?.string(), try fields["usedHeader"]?.string())
        limit.resourceHeader = try fields["resourceHeader"]?.string()
        return limit
    }

    // MARK: Derived wording

    static func authStyle(_ auth: [AuthVariable]) -> String {
        guard let first = auth.first else { return "none" }
        let how: String
        switch first.placement {
        case .bearer?: how = "bearer token"
        case .queryParameter(let name)?: how = "API key in the query parameter '\(name)'"
        case .header(let name)?: how = "key in the header '\(name)'"
        case nil: how = "credential"
        }
        return (first.isRequired ? "" : "optional ") + how
    }

    static func paginationStyle(_ pagination: Pagination) -> String {
        let size = pagination.pageSize.map { ", \($0) a page" } ?? ""
        switch pagination.kind {
        case .pageNumber: return "numbered pages from \(pagination.firstPage)\(size)"
        case .offset: return "offset and limit\(size)"
        case .cursor: return "a cursor from the response\(size)"
        case .link: return "the Link header's rel=\"next\"\(size)"
        case .none: return "none (one request)"
        }
    }
}
