public import AggregateCore
public import AggregateDefinitions
import AggregateJSON
import AggregateText
public import AggregateSandboxKit
public import Foundation

/// The emulator of a provider definition: its samples served under `/<name>/...` with the definition's auth
/// checks, paging (page number, offset, cursor, `Link` header), rate-limit headers and error shape. An operation
/// with a `sandbox` section is answered from one pool of its samples' records (``SamplePool``); one without it gets
/// its sample files as fixed pages (``SamplePages``).
public struct DefinitionSandbox: SandboxServing {
    /// The definition emulated.
    public let definition: ProviderDefinition
    /// A sample file's text by its path as the definition lists it, or `nil` when it cannot be read.
    public let sample: @Sendable (String) -> String?
    private let parsed = ParsedSamples()

    /// Creates the emulator of `definition`, reading samples through `sample`.
    public init(_ definition: ProviderDefinition, sample: @escaping @Sendable (String) -> String?) {
        self.definition = definition
        self.sample = sample
    }

    /// The emulator of a run-time definition, whose samples are files beside it.
    public init(_ definition: ProviderDefinition, folder: URL) {
        self.init(definition) { path in
            (try? Data(contentsOf: folder.appendingPathComponent(path))).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    public var providerName: String { definition.name }

    /// The validators the definition's `sandboxCaching` declares (an ETag when it declares none).
    public var sandboxCaching: APICaching { definition.sandboxCaching }

    /// The caching of the operation `request` is for, when its `sandbox` section declares one.
    public func sandboxCaching(for request: SandboxRequest) -> APICaching {
        let operation = definition.operations.first { SamplePath.matches($0.path, request.path) && $0.method == request.method }
        return operation?.sandbox?.caching ?? definition.sandboxCaching
    }

    public var sandboxEnvironment: [String: String] {
        Dictionary(definition.credentials.map { ($0.variable.name, $0.sandboxValue) }, uniquingKeysWith: { first, _ in first })
    }

    /// None: a definition's emulator is mounted under `/<name>/...` only, so it never clashes with another's paths.
    public var sandboxPaths: [PathPattern] { [] }

    public func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        if let token = DefinitionTokenEndpoint(definition)?.response(for: request, context: context) { return token }
        let matching = definition.operations.filter { SamplePath.matches($0.path, request.path) }
        guard !matching.isEmpty else { return nil }
        guard let operation = matching.first(where: { $0.method == request.method }) else {
            return error(405, "\(request.method) is not allowed on \(request.path)", context: context)
        }
        if let rejected = checkCredentials(request, context: context) { return rejected }
        let budget = countAgainstBudgets(request, context: context)
        if let refused = budget.refused { return refused }
        func fail(_ status: Int, _ message: String) -> SandboxResponse { error(status, message, context: context, window: budget.window) }
        guard let files = KeyedSamples.files(definition, operation, path: request.path) else { return fail(404, "Not Found") }
        guard !files.isEmpty else {
            return fail(404, "the definition of \(definition.name) lists no samples for '\(operation.descriptor.name)'")
        }
        do throws(SandboxExit) {
            var response: SandboxResponse
            if let spec = operation.sandbox {
                response = try SamplePool(operation: operation, spec: spec, files: files, sample: sample, parsed: parsed).response(for: request, context: context, error: fail)
            } else {
                response = try SamplePages(operation: operation, files: files, sample: sample).response(for: request, context: context, error: fail)
            }
            for (name, value) in rateLimitHeaders(exhausted: false, now: context.now, window: budget.window) where response.headers[name] == nil {
                response.headers.add(name, value)
            }
            return response
        } catch {
            return error.response
        }
    }

    public func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        error(status, HTTPStatus.reason(status), context: context)
    }

    // MARK: Parts

    /// The value `request` carries for `credential`, where the definition says it is sent.
    private func sentValue(of credential: ProviderDefinition.Credential, in request: SandboxRequest) -> String? {
        switch credential.variable.placement {
        case .bearer?: return request.bearerToken
        case .queryParameter(let name)?: return request.queryValue(name)
        case .header(let name)?: return request.headers[name]
        case nil: return nil
        }
    }

    /// Enforces the declared `rateBudgets` as the real API does, when the sandbox counts requests (the server, not
    /// `--offline`): the tier is the first whose `whenSet` credential the request carries (or that has none), and
    /// `aggregate sandbox --rate-limit <name>=N/WINDOW` shrinks it. Over the budget: the first rate-limit status.
    /// - Returns: the refusal, if any, and the counted window with the fewest requests left, which the rate-limit
    ///   headers report as the real API does (`nil` when nothing is counted).
    private func countAgainstBudgets(_ request: SandboxRequest, context: SandboxContext) -> (refused: SandboxResponse?, window: CountedWindow?) {
        var counted: [String] = []
        var tightest: CountedWindow?
        for budget in definition.descriptor.rateBudgets where !counted.contains(budget.name) {
            if let variable = budget.whenSet {
                let credential = definition.credentials.first { $0.variable.name == variable }
                guard let credential, sentValue(of: credential, in: request) != nil else { continue }
            }
            counted.append(budget.name)
            let pattern = budget.paths.first { $0.matches(request.path) }
            guard budget.paths.isEmpty || pattern != nil else { continue }
            let key = budget.perEndpoint ? "\(budget.bucketName) \(pattern.map { "\($0)" } ?? "")" : budget.bucketName
            guard let counted = context.countRequest(provider: definition.name, budget: key, limit: budget.requests, window: budget.window) else {
                // Not counted (`--offline`): the headers tell this request as the first of a fresh window.
                let fresh = CountedWindow(budget: budget.name, window: SandboxRateWindow(limit: budget.requests, used: 1, resets: context.now.addingTimeInterval(budget.window)))
                if tightest == nil { tightest = fresh }
                continue
            }
            let window = CountedWindow(budget: budget.name, window: counted)
            if counted.isExceeded {
                let status = definition.rateLimit?.statuses.first ?? 429
                return (error(status, "rate limit exceeded (\(counted.limit) requests per window)", context: context, window: window), window)
            }
            if tightest.map({ counted.remaining < $0.window.remaining }) ?? true { tightest = window }
        }
        return (nil, tightest)
    }

    /// A 401 in the definition's shape when a credential is missing (and required) or not the sandbox's value.
    private func checkCredentials(_ request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        if let endpoint = DefinitionTokenEndpoint(definition) {
            return endpoint.rejection(of: request, context: context).map { error(401, $0, context: context) }
        }
        var sentAny = false
        for credential in definition.credentials {
            guard let sent = sentValue(of: credential, in: request) else { continue }
            guard sent == credential.sandboxValue else { return error(401, "the credential in \(credential.variable.name) was rejected", context: context) }
            sentAny = true
        }
        if definition.descriptor.requiresCredentials, !sentAny { return error(401, "a credential is required", context: context) }
        return nil
    }

    /// The definition's error body (`errors.body`, `{status}` and `{message}` filled in) with `status`.
    func error(_ status: Int, _ message: String, context: SandboxContext, window: CountedWindow? = nil) -> SandboxResponse {
        func fill(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string(let text):
                return .string(text.replacingOccurrences(of: "{status}", with: String(status)).replacingOccurrences(of: "{message}", with: message))
            case .array(let elements): return .array(elements.map(fill))
            case .object(let object): return .object(JSONObject(object.members.map { JSONObject.Member($0.key, fill($0.value)) }))
            default: return value
            }
        }
        let limited = definition.rateLimit?.statuses.contains(status) ?? false
        var headers = HTTPHeaders()
        for (name, value) in rateLimitHeaders(exhausted: limited, now: context.now, window: window) { headers.add(name, value) }
        return .json(fill(definition.errors.body), status: status, headers: headers)
    }

    /// The declared rate-limit headers. When the sandbox counts requests, they tell the counted `window` (requests
    /// left, and when it closes); otherwise (`--offline`, or no budget declared) some requests left, or none left
    /// with the reset a minute ahead.
    private func rateLimitHeaders(exhausted: Bool, now: Date, window counted: CountedWindow?) -> [(String, String)] {
        guard let limit = definition.rateLimit else { return [] }
        let window = counted?.window
        var headers: [(String, String)] = []
        // Without a counted window, some requests left of 60: `remaining` and `used` still add up to `limit`.
        let size = window?.limit ?? 60
        let used = exhausted ? size : window.map { min($0.used, $0.limit) } ?? 1
        if let name = limit.limitHeader { headers.append((name, String(size))) }
        if let name = limit.remainingHeader {
            headers.append((name, String(exhausted ? 0 : window?.remaining ?? 59)))
        }
        if let name = limit.usedHeader { headers.append((name, String(used))) }
        if let name = limit.resourceHeader, let budget = counted?.budget { headers.append((name, budget)) }
        if let name = limit.resetHeader {
            let value: Int
            if let resets = window?.resets {
                // Whole seconds, rounded up: a client waiting until then finds the window closed.
                value = Int((limit.resetIsEpoch ? resets.timeIntervalSince1970 : max(0, resets.timeIntervalSince(now))).rounded(.up))
            } else {
                value = limit.resetIsEpoch ? Int(now.timeIntervalSince1970) + 60 : 60
            }
            headers.append((name, String(value)))
        }
        return headers
    }
}

/// A budget's counted window, with the budget's name (what GitHub's `x-ratelimit-resource` tells).
struct CountedWindow {
    var budget: String
    var window: SandboxRateWindow
}

/// An operation's sample pages, served by its paging kind.
struct SamplePages {
    let operation: ProviderDefinition.Operation
    let files: [String]
    let sample: @Sendable (String) -> String?

    /// The page `request` asks for.
    func response(
        for request: SandboxRequest, context: SandboxContext, error: (Int, String) -> SandboxResponse
    ) throws(SandboxExit) -> SandboxResponse {
        let paging = operation.pagination
        let index: Int
        switch paging.kind {
        case .pageNumber:
            let parameter = paging.parameter ?? "page"
            let page = try request.integer(parameter, default: paging.firstPage, in: paging.firstPage...Int.max) { error(400, "\(parameter) must be a whole number from \(paging.firstPage), not '\($0)'") }
            index = page - paging.firstPage
        case .offset:
            let parameter = paging.parameter ?? "offset"
            let offset = try request.integer(parameter, default: 0, in: 0...Int.max) { error(400, "\(parameter) must be a whole number from 0, not '\($0)'") }
            index = offset / max(1, paging.pageSize ?? 1)
        case .cursor:
            guard let cursor = request.queryValue(paging.parameter ?? "cursor") else {
                index = 0
                break
            }
            guard let previous = (0..<files.count).first(where: { cursorValue(at: $0) == cursor }) else {
                throw SandboxExit(error(400, "the cursor '\(cursor)' is not one this server gave"))
            }
            index = previous + 1
        case .link:
            index = try request.integer("page", default: 1, in: 1...Int.max) { error(400, "page must be a whole number from 1, not '\($0)'") } - 1
        case .none:
            index = 0
        }
        guard index < files.count else { return try emptyPage(error: error) }
        guard let text = sample(files[index]), let body = try? JSONParser().parse(Data(text.utf8)) else {
            throw SandboxExit(error(500, "the sample \(files[index]) cannot be read as JSON"))
        }
        var headers = HTTPHeaders()
        if paging.kind == .link, let links = SamplePool.linkHeader(page: index + 1, last: files.count, request: request, context: context) {
            headers.add("Link", links)
        }
        return .json(DefinitionSinceFilter(operation: operation).filtered(body, request: request), headers: headers)
    }

    /// The value at the paging's cursor path in sample `index`.
    private func cursorValue(at index: Int) -> String? {
        guard let path = operation.pagination.cursorPath, let text = sample(files[index]),
              let body = try? JSONParser().parse(Data(text.utf8)), let value = try? path.resolve(in: body)
        else { return nil }
        return value.string ?? value.numberText
    }

    /// Past the samples: the first sample with its records emptied (the shape a real API gives past the end).
    private func emptyPage(error: (Int, String) -> SandboxResponse) throws(SandboxExit) -> SandboxResponse {
        guard let text = sample(files[0]), let body = try? JSONParser().parse(Data(text.utf8)) else {
            throw SandboxExit(error(500, "the sample \(files[0]) cannot be read as JSON"))
        }
        return .json(Self.replacing(operation.records.segments[...], in: body, with: .array([])))
    }

    /// `body` with the value at `path` replaced.
    static func replacing(_ path: ArraySlice<JSONPath.Segment>, in body: JSONValue, with value: JSONValue) -> JSONValue {
        guard let segment = path.first else { return value }
        switch (segment, body) {
        case (.key(let key), .object(var object)), (.name(let key), .object(var object)):
            guard let inner = object[key] else { return body }
            object.set(key, replacing(path.dropFirst(), in: inner, with: value))
            return .object(object)
        case (.index, .array(var elements)), (.name, .array(var elements)):
            let index: Int
            switch segment {
            case .index(let number): index = number
            case .name(let text): index = Int(text) ?? Int.min
            case .key: index = Int.min
            }
            let position = index < 0 ? elements.count + index : index
            guard elements.indices.contains(position) else { return body }
            elements[position] = replacing(path.dropFirst(), in: elements[position], with: value)
            return .array(elements)
        default:
            return body
        }
    }
}

/// Whether a request path matches an operation's path template: each `{name}` matches one segment, and a
/// `{name?TEXT}` part may be there or not.
enum SamplePath {
    static func matches(_ template: Template, _ path: String) -> Bool {
        variants(template.parts).contains { pattern in match(pattern[...], Substring(path)) }
    }

    /// Every way the template can be written, with `\u{0}` where a value goes.
    private static func variants(_ parts: [Template.Part]) -> [String] {
        var results = [""]
        for part in parts {
            switch part {
            case .text(let text): results = results.map { $0 + text }
            case .value: results = results.map { $0 + "\u{0}" }
            case .ifPresent(_, let inner):
                let options = variants(inner)
                results = results.flatMap { prefix in [prefix] + options.map { prefix + $0 } }
            }
        }
        return results
    }

    private static func match(_ pattern: Substring, _ path: Substring) -> Bool {
        guard let head = pattern.first else { return path.isEmpty || path == "/" }
        if head == "\u{0}" {
            var end = path.startIndex
            while end < path.endIndex, path[end] != "/" {
                end = path.index(after: end)
                if match(pattern.dropFirst(), path[end...]) { return true }
            }
            return false
        }
        guard path.first == head else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }
}

extension SandboxCatalog {
    /// The catalog the command line uses: the Swift providers and emulators, the compiled-in definitions
    /// (`(folder, provider.json)` with their embedded samples by folder and path) and the run-time definition
    /// `files`, each definition with its generic emulator. A definition that cannot be used is listed as broken and
    /// fails only when used.
    /// - Throws: as ``ProviderRegistry/init(providers:origins:broken:)`` and ``SandboxCatalog/init(_:sandboxes:)``.
    public static func withDefinitions(
        swift providers: [any Provider.Type], sandboxes: [any SandboxProviding.Type], builtIn: [(folder: String, json: String)],
        samples: [String: [String: String]], files: [URL]
    ) throws -> SandboxCatalog {
        let (deferred, loaded) = DefinitionCatalog.loadDeferring(builtIn: builtIn, files: files, reserved: Set(providers.map { $0.providerName }))
        var emulators: [any SandboxServing] = sandboxes.map(SandboxOfType.init)
        for definition in deferred {
            emulators.append(DeferredDefinitionSandbox(definition) { embedded in
                let samples = samples[embedded] ?? [:]
                return { samples[$0] }
            })
        }
        for entry in loaded {
            guard let definition = entry.definition else { continue }
            if let folder = entry.folder {
                emulators.append(DefinitionSandbox(definition, folder: folder))
            } else {
                let embedded = samples[entry.embeddedFolder ?? ""] ?? [:]
                emulators.append(DefinitionSandbox(definition) { embedded[$0] })
            }
        }
        return try SandboxCatalog(try ProviderRegistry.withDefinitions(swift: providers, deferred: deferred, loaded: loaded), sandboxes: emulators)
    }
}

/// The emulator of a compiled-in definition that is read on first use (``DeferredDefinition``): it is named by the
/// definition's name and claims no root path (as every ``DefinitionSandbox``), so making the catalog reads nothing;
/// anything else reads the definition and makes its ``DefinitionSandbox``, once. A definition that cannot be read
/// answers nothing (its provider is broken, so no run reaches it).
struct DeferredDefinitionSandbox: SandboxServing {
    private let emulator: DeferredEmulator

    init(_ definition: DeferredDefinition, samples: @escaping @Sendable (String) -> @Sendable (String) -> String?) {
        emulator = DeferredEmulator(definition, samples: samples)
    }

    var providerName: String { emulator.definition.name }
    var sandboxPaths: [PathPattern] { [] }
    var sandboxEnvironment: [String: String] { emulator.made?.sandboxEnvironment ?? [:] }
    var sandboxCaching: APICaching { emulator.made?.sandboxCaching ?? .etag }

    func sandboxCaching(for request: SandboxRequest) -> APICaching { emulator.made?.sandboxCaching(for: request) ?? sandboxCaching }

    func sandboxResponse(for request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        emulator.made?.sandboxResponse(for: request, context: context)
    }

    func sandboxFaultResponse(status: Int, request: SandboxRequest, context: SandboxContext) -> SandboxResponse? {
        emulator.made?.sandboxFaultResponse(status: status, request: request, context: context)
    }
}

/// The one ``DefinitionSandbox`` of a deferred definition, made on first use (it keeps parsed samples); `nil` when
/// the definition cannot be read.
private final class DeferredEmulator: Sendable {
    let definition: DeferredDefinition
    private let emulator: Once<DefinitionSandbox?>

    init(_ definition: DeferredDefinition, samples: @escaping @Sendable (String) -> @Sendable (String) -> String?) {
        self.definition = definition
        emulator = Once { (try? definition.definition.get()).map { DefinitionSandbox($0, sample: samples(definition.embeddedFolder)) } }
    }

    var made: DefinitionSandbox? { emulator.value }
}
