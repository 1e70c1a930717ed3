import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateText
import Foundation

/// `aggregate normalize <provider> [<operation>] [FILE|-]`: runs a provider's normalizer over responses the user
/// already has (a saved `--raw` output, a `curl` download) and prints the unified result like a normal run.
enum NormalizeCommand {
    static let options: [OptionSpec] = [
        OptionSpec("pages", arity: .flag, help: "The input holds several responses: one per line (NDJSON), or a JSON array of them (what --raw prints for several pages)."),
        OptionSpec("limit", valueName: "N", help: "The most items to print (default: all)."),
        OptionSpec("max-size", valueName: "SIZE", help: "The largest input read, in bytes or with K, M or G (binary units); a larger file is refused before it is read, a larger stream as soon as it passes the size (default: 64M)."),
        OptionSpec("api", valueName: "API", help: "Which of the provider's APIs answered, as for its own command (e.g. kiva --api rest, meetup --api v2)."),
        OptionSpec("verbose", short: "v", arity: .flag, help: "Say on stderr how many pages and items were read, and what had to be repaired (lone UTF-16 surrogates)."),
    ] + CommonOptions.specs.filter { ["format", "help"].contains($0.name) }

    static let command = HelpText.Command(
        name: "normalize", summary: "Turn saved raw API responses into the unified result, without any request.",
        usage: "aggregate normalize <provider> [<operation>] [<file>|-] [--api <API>] [--pages] [--format <FORMAT>]",
        arguments: [
            ("<provider>", "Whose responses these are, e.g. tmdb."),
            ("<operation>", "Which operation they answer (default: the provider's default operation)."),
            ("<file>|-", "The response body: a file, or - for standard input (the default)."),
        ],
        options: options,
        discussion: """
            Reads one response body (or several with --pages), runs the provider's normalizer on each as if it had just arrived with HTTP 200, and prints the items in any format. Nothing is sent anywhere and no credentials are needed. For a provider with several APIs, --api names the one that answered (kiva --api rest, meetup --api v2, twitter --api v1.1), as for the provider's own command.

            Exit codes: 0 success; 1 the input is over --max-size; 64 usage error; 65 the input is not JSON, or not the shape this API answers (the message names the file and what is missing); 66 the file does not exist or cannot be opened, or standard input is closed; 74 reading failed.

            Example: aggregate tmdb search "fight club" --raw > page.json && aggregate normalize tmdb search page.json --format csv
            """)

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            var words = parsed.positionals[...]
            guard let name = words.popFirst() else {
                throw AggregateError(.usage, "missing <provider>: name whose responses these are (\(context.registry.names.joined(separator: ", ")))")
            }
            let provider = try context.registry.require(name)
            let descriptor = provider.descriptor
            var operation = descriptor.defaultOperation
            if let word = words.first, let named = descriptor.operation(named: word) {
                operation = named
                words.removeFirst()
            } else if words.count > 1, let word = words.first {
                // Two words left: the first can only be the operation (one word alone is the file), so it is the one to blame.
                let operations = descriptor.operations.map(\.name)
                let hint = DidYouMean.suffix(for: word, among: operations, otherwise: " (operations: \(operations.joined(separator: ", ")))")
                throw AggregateError(.usage, "unknown operation '\(word)'\(hint)", provider: descriptor.name)
            }
            let file = words.popFirst() ?? "-"
            if let extra = words.first { throw AggregateError(.usage, "unexpected argument '\(extra)': normalize reads one input") }
            var common = CommonOptions()
            if let format = parsed.value("format") { common.format = try CommonOptions.format(from: format) }
            var limit = Int.max
            if let text = parsed.value("limit") {
                guard let value = Int(text), value >= 1 else { throw AggregateError(.usage, "--limit must be a whole number of at least 1, not '\(text)'") }
                limit = value
            }
            let source = file == "-" ? "standard input" : file
            let maxBytes = try SizeCap.maxBytes(parsed.value("max-size"), default: JSONInput.defaultMaxBytes)
            let bodies = try NormalizeInput.pages(from: file, name: source, split: parsed.has("pages"), maxBytes: maxBytes)
            let parameters = try self.parameters(provider, operation: operation, api: parsed.value("api"))
            var query = query(provider, operation: operation, parameters: parameters, sandboxes: context.catalog)
            query.limit = limit
            var items: [Item] = []
            var notes = JSONParseNotes()
            for (number, body) in bodies.enumerated() where items.count < limit {
                do {
                    let response = HTTPResponse(status: 200, body: body)
                    let (page, repairs) = try JSONParseNotes.collecting { try provider.normalize(response, for: query) }
                    items += page.items.prefix(limit - items.count)
                    notes.replacedSurrogates += repairs.replacedSurrogates
                } catch {
                    throw shapeError(error, body: body, name: bodies.count > 1 ? "\(source), page \(number + 1)" : source, provider: descriptor.name)
                }
            }
            if parsed.has("verbose") {
                console.err("\(descriptor.name): normalized \(bodies.count) page\(bodies.count == 1 ? "" : "s") from \(source) into \(items.count) item\(items.count == 1 ? "" : "s")\n")
                if let summary = notes.summary { console.err("\(descriptor.name): \(summary)\n") }
            }
            let result = ProviderResult(
                provider: descriptor.name, operation: operation.name, query: parameters, items: items,
                meta: ResultMeta(source: .offline, pages: bodies.count, bytes: bodies.reduce(0) { $0 + $1.count }),
                rawBodies: bodies)
            let invocation = ProviderInvocation(provider: provider, operation: operation, parameters: parameters, common: common)
            ProviderCommand.render(result, invocation: invocation, context: context)
            return .success
        } catch {
            return Diagnostics.report(error.kind == .usage ? error : error.attributed(to: "normalize"), console: console, usage: error.kind == .usage ? command.usage : nil)
        }
    }

    /// The parameters the responses answer: the operation's defaults, and `--api` when given.
    /// - Throws: a usage error for an `--api` the provider does not have or does not take.
    static func parameters(_ provider: any RunnableProvider, operation: ProviderOperation, api: String?) throws(AggregateError) -> JSONObject {
        let descriptor = provider.descriptor
        var parameters = JSONObject()
        for parameter in descriptor.options + operation.parameters {
            if let fallback = parameter.defaultValue, let value = try? parameter.value(from: fallback) { parameters[parameter.name] = value }
        }
        guard let api else { return parameters }
        guard let parameter = descriptor.options.first(where: { $0.name == "api" }) else {
            throw AggregateError(.usage, "--api does not apply: this provider has one API; leave it out", provider: descriptor.name)
        }
        do {
            parameters[parameter.name] = try parameter.value(from: api)
        } catch {
            throw error.attributed(to: descriptor.name)
        }
        return parameters
    }

    /// The query a normalizer sees: `parameters`, and the plan `configure` records (API variant), made with the
    /// emulator's stand-in credentials from `sandboxes`. A required parameter that a body cannot tell (twitter's
    /// username) takes the value of the provider's example of the operation, so that `configure` can make a plan;
    /// the result shows only `parameters`.
    static func query(_ provider: any RunnableProvider, operation: ProviderOperation, parameters: JSONObject, sandboxes: SandboxCatalog) -> Query {
        let descriptor = provider.descriptor
        var parameters = parameters
        let missing = (descriptor.options + operation.parameters).filter { $0.isRequired && parameters[$0.name] == nil }
        if !missing.isEmpty {
            let examples = descriptor.examples.lazy.compactMap { try? ProviderInvocation.parse($0.arguments, registry: sandboxes.registry) }
            if let example = examples.first(where: { $0.operation.name == operation.name }) {
                for parameter in missing { parameters[parameter.name] = example.parameters[parameter.name] }
            }
        }
        var query = Query(
            provider: descriptor.name, operation: operation.name, parameters: parameters, limit: Int.max,
            baseURL: (try? descriptor.baseURL(override: nil, environment: [:])) ?? InvocationRunner.offlineBaseURL(for: descriptor.name),
            environment: sandboxes.sandbox(named: descriptor.name)?.sandboxEnvironment ?? [:])
        query.source = .offline
        do {
            try provider.configure(&query)
        } catch {
            // Configuration only checks credentials and picks variants; the sandbox's stand-ins satisfy it.
        }
        return query
    }

    /// A normalizer's complaint about a body, as bad data (65) naming the input: invalid JSON gets its line and
    /// column, a body of another shape the normalizer's own reason.
    static func shapeError(_ error: any Error, body: Data, name: String, provider: String) -> AggregateError {
        do {
            _ = try JSONInput.decode(body, name: name)
        } catch {
            return AggregateError(.invalidInput, error.message, provider: provider)
        }
        let reason = (error as? AggregateError)?.message ?? "\(error)"
        return AggregateError(.invalidInput, "\(name): not a \(provider) response of this kind: \(reason)", provider: provider)
    }
}

/// Splits normalize's input into response bodies.
enum NormalizeInput {
    /// The bodies in `file` (`-` for standard input): one, or with `split` one per NDJSON line or array element.
    static func pages(from file: String, name: String, split: Bool, maxBytes: Int) throws(AggregateError) -> [Data] {
        let data = file == "-"
            ? try StandardStreams.readInput(maxBytes: maxBytes, hint: JSONInput.maxSizeHint)
            : try JSONInput.readFile(atPath: file, maxBytes: maxBytes)
        guard split else { return [data] }
        // A JSON array of pages is one document; NDJSON is one document per line.
        if let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }), first == UInt8(ascii: "["),
            let value = try? JSONParser().parse(data), let pages = value.array
        {
            return pages.map { JSONWriter().data($0) }
        }
        var pages: [Data] = []
        var lineStart = data.startIndex
        for index in data.indices where data[index] == 0x0A || index == data.endIndex - 1 {
            let line = data[lineStart...index]
            lineStart = index + 1
            if line.contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) { pages.append(Data(line)) }
        }
        if pages.isEmpty { throw AggregateError(.invalidInput, "\(name): the input is empty; expected one response per line, or a JSON array of responses") }
        return pages
    }
}
