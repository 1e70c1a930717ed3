import AggregateJSON
import Foundation

/// One parameter of an operation as the document declares it, read into what a definition can send.
struct OpenAPIParameter {
    /// The API's name (`order_by`, `Api-Username`).
    var name: String
    /// `path`, `query`, `header` or `cookie`.
    var location: String
    var required: Bool
    var schema: OpenAPISchema?
    var description: String?
    /// The parameter's own `example` (or first of `examples`), before the schema's.
    var example: JSONValue?
    /// Whether an array is sent as one comma-separated value (`explode: false`, Swagger's `collectionFormat: csv`).
    var commaSeparated: Bool
    var style: String?
    var pointer: String
    /// For an array: a value one of its items may take (its first enum word, example or default).
    var itemSample: String?

    /// The parameters an operation takes: the path item's, overridden by the operation's of the same name and place.
    static func all(pathItem: JSONObject, operation: JSONObject, pointer: String, pathPointer: String, document: OpenAPIDocument) -> [OpenAPIParameter] {
        var found: [OpenAPIParameter] = []
        let lists = [(pathItem["parameters"]?.array ?? [], pathPointer + "/parameters"), (operation["parameters"]?.array ?? [], pointer + "/parameters")]
        for (list, base) in lists {
            for (index, raw) in list.enumerated() {
                guard let (value, at) = document.resolve(raw, pointer: base + "/\(index)"), let parameter = read(value, pointer: at, document: document) else { continue }
                found.removeAll { $0.name == parameter.name && $0.location == parameter.location }
                found.append(parameter)
            }
        }
        return found
    }

    private static func read(_ value: JSONValue, pointer: String, document: OpenAPIDocument) -> OpenAPIParameter? {
        guard let name = value["name"]?.string, let location = value["in"]?.string else { return nil }
        // Swagger 2.0 declares the type on the parameter itself; 3.x in its schema.
        let schema = value["schema"].flatMap { OpenAPISchema.read($0, pointer: pointer + "/schema", in: document) }
            ?? (value["type"] != nil ? OpenAPISchema.read(value, pointer: pointer, in: document) : nil)
        let firstExample: JSONValue? = value["examples"]?.object?.members.first?.value["value"]
        let example: JSONValue? = value["example"] ?? firstExample ?? value["x-example"]
        let style = value["style"]?.string ?? "form"
        let explode = value["explode"]?.bool ?? (style == "form")
        let comma = value["collectionFormat"]?.string.map { $0 == "csv" } ?? !explode
        return OpenAPIParameter(
            name: name, location: location, required: value["required"]?.bool == true || location == "path", schema: schema,
            description: value["description"]?.string ?? value["schema"]?["description"]?.string, example: example, commaSeparated: comma,
            style: value["style"]?.string, pointer: pointer,
            itemSample: schema?.itemSchema(in: document).flatMap { item in
                [item.enumValues.first, item.example, item.defaultValue].lazy.compactMap { $0.flatMap(text) }.first
            })
    }

    /// A value the parameter accepts, for the examples: its example, default, first enum word, else one by type.
    var sampleValue: String {
        for value in [example, schema?.example, schema?.defaultValue, schema?.enumValues.first] {
            // Examples are sometimes written as they go in a URL (`remaster%20track:Doxy`): the command line takes them plain.
            if let text = value.flatMap(OpenAPIParameter.text), !text.isEmpty { return text.removingPercentEncoding ?? text }
        }
        if let itemSample, !itemSample.isEmpty { return itemSample }
        switch schema?.type {
        case "integer", "number": return String(Int(max(schema?.minimum ?? 1, 1)))
        case "boolean": return "true"
        default: return location == "path" ? "1" : "example"
        }
    }

    /// A scalar as the text a command line gives it.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    /// The help line: the description's first line, else a few words naming the parameter.
    var help: String { OpenAPINames.oneLine(description) ?? "The API's '\(name)' \(location) parameter." }
}

/// Turns the document's parameters into the definition's: path parameters positional, query parameters options,
/// required headers options sent as headers; what cannot be sent is reported.
struct OpenAPIParameterMapping {
    /// The definition's `parameters`.
    var parameters: [JSONValue] = []
    /// `request.query`: API name → template.
    var query: [JSONObject.Member] = []
    /// `request.headers`.
    var headers: [JSONObject.Member] = []
    /// The path with its placeholders renamed to the command-line names.
    var path: String
    /// The command line of an example: positional values, then required options.
    var exampleArguments: [String] = []
    var report = ImportReport()
    /// Why the operation cannot be imported: a required parameter it cannot send.
    var unsendable: String?

    /// Options every provider command has, which a parameter may not shadow: such a parameter gets `query-` before
    /// its name.
    static let reservedNames: Set<String> = ["allow-http", "base-url", "fields", "format", "help", "limit", "no-pager", "offline", "profile", "quiet", "raw", "timeout", "verbose", "since", "to", "record", "replay"]

    /// Header parameters that are credentials: the security mapping sends them, not the command line.
    static func isCredentialHeader(_ name: String) -> Bool {
        ["apikey", "xapikey", "authorization", "token", "xauthtoken", "accesstoken"].contains(FieldWords.key(name))
    }

    init(_ parameters: [OpenAPIParameter], path: String, skipping handled: Set<String>) {
        self.path = path
        var used: Set<String> = []
        // Path parameters come in the order the path names them.
        let order = Self.placeholders(in: path)
        let sorted = parameters.enumerated().sorted { a, b in
            let ia = a.element.location == "path" ? (order.firstIndex(of: a.element.name) ?? order.count) : Int.max
            let ib = b.element.location == "path" ? (order.firstIndex(of: b.element.name) ?? order.count) : Int.max
            return (ia, a.offset) < (ib, b.offset)
        }.map(\.element)
        for parameter in sorted {
            if parameter.location == "query", handled.contains(parameter.name) {
                report.add(.mapped, parameter.pointer, "'\(parameter.name)' is sent by the paging")
                continue
            }
            switch parameter.location {
            case "path", "query": break
            case "header" where parameter.required && !Self.isCredentialHeader(parameter.name): break
            case "header":
                report.add(.skipped, parameter.pointer, "header '\(parameter.name)' left out: \(Self.isCredentialHeader(parameter.name) ? "a credential, sent by auth" : "not required")")
                continue
            default:
                if parameter.required { unsendable = "the required \(parameter.location) parameter '\(parameter.name)' cannot be sent" }
                report.add(.skipped, parameter.pointer, "\(parameter.location) parameter '\(parameter.name)' left out: definitions send path, query and header parameters only")
                continue
            }
            guard var entry = Self.definition(parameter) else {
                let why = "'\(parameter.name)' is \(parameter.schema?.type ?? "a value") in \(parameter.style ?? "form") style, which a definition cannot send"
                if parameter.required { unsendable = "the required parameter " + why } else { report.add(.skipped, parameter.pointer, why) }
                continue
            }
            var name = parameter.location == "path" ? Self.pathParameterName(parameter.name, in: self.path) : Self.optionName(parameter.name)
            if Self.reservedNames.contains(name) { name = "query-" + name }
            let unique = OpenAPINames.unique(name, taken: &used)
            entry.insert(.init("name", .string(unique)), at: 0)
            let template = JSONValue.string("{\(unique)}")
            switch parameter.location {
            case "path":
                self.path = self.path.replacingOccurrences(of: "{\(parameter.name)}", with: "{\(unique)}")
                exampleArguments.append(parameter.sampleValue)
            case "query": query.append(.init(parameter.name, template))
            default: headers.append(.init(parameter.name, template))
            }
            if parameter.required, parameter.location != "path" { exampleArguments += ["--\(unique)", parameter.sampleValue] }
            self.parameters.append(.object(JSONObject(entry)))
            report.add(.mapped, parameter.pointer, "\(parameter.location) parameter '\(parameter.name)' → \(parameter.location == "path" ? "positional <\(unique)>" : "--\(unique)")")
        }
        for placeholder in Self.placeholders(in: self.path) where !used.contains(placeholder) {
            unsendable = "the path names '{\(placeholder)}', which no parameter declares"
        }
    }

    /// The definition's parameter (without its name), or `nil` for an array or object it cannot send as one value.
    static func definition(_ parameter: OpenAPIParameter) -> [JSONObject.Member]? {
        var entry: [JSONObject.Member] = []
        let schema = parameter.schema
        switch schema?.type {
        case "array", "object":
            guard schema?.type == "array", parameter.commaSeparated else { return nil }
            entry.append(.init("help", .string(parameter.help + " (comma-separated)")))
        case "integer", "number", "boolean":
            entry.append(.init("type", .string(schema?.type ?? "string")))
        default:
            let words = (schema?.enumValues ?? []).compactMap(OpenAPIParameter.text).filter { !$0.isEmpty }
            if !words.isEmpty {
                entry.append(.init("type", "enum"))
                entry.append(.init("values", .array(words.map(JSONValue.string))))
            }
        }
        if schema?.type == "integer" || schema?.type == "number" {
            if let minimum = schema?.minimum { entry.append(.init("minimum", .double(minimum))) }
            if let maximum = schema?.maximum { entry.append(.init("maximum", .double(maximum))) }
        }
        if parameter.required { entry.append(.init("required", true)) }
        if let value = schema?.defaultValue, let text = OpenAPIParameter.text(value), schema?.type != "array" {
            let values = (schema?.enumValues ?? []).compactMap(OpenAPIParameter.text)
            if values.isEmpty || values.contains(text) {
                entry.append(.init("default", value.string != nil || schema?.type == "string" || !values.isEmpty ? .string(text) : value))
            }
        }
        if parameter.location == "path" {
            entry.append(.init("positional", true))
            if schema?.type == nil || schema?.type == "string" { entry.append(.init("freeText", false)) }
        }
        if !entry.contains(where: { $0.key == "help" }) { entry.append(.init("help", .string(parameter.help))) }
        return entry
    }

    /// A path parameter's name, from the segment before it when the document's is only `id`: in
    /// `/anime/{id}/characters` the id is the anime's, so the positional is `<anime-id>` (and its SQL key column
    /// `anime_id`), not an id of the characters listed.
    static func pathParameterName(_ name: String, in path: String) -> String {
        let option = optionName(name)
        guard option == "id", let segments = Optional(path.split(separator: "/")),
              let index = segments.firstIndex(of: "{\(name)}"), index > 0, !segments[index - 1].hasPrefix("{")
        else { return option }
        var noun = optionName(String(segments[index - 1]))
        if noun.count > 3, noun.hasSuffix("s"), !noun.hasSuffix("ss") { noun.removeLast() }
        return noun + "-id"
    }

    /// `order_by` → `order-by`, `sortOrder` → `sort-order`, `Api-Username` → `api-username`.
    static func optionName(_ name: String) -> String {
        let words = OpenAPINames.words(name)
        let joined = words.joined(separator: "-")
        guard let first = joined.first, first.isLetter else { return "p-" + (joined.isEmpty ? "value" : joined) }
        return joined
    }

    /// The `{placeholder}` names of a path, in order.
    static func placeholders(in path: String) -> [String] {
        var names: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
