import AggregateCore
import AggregateJSON
import Foundation

/// The parts of a definition that feed the rate limiter, the cache and the emulator's conditional answers:
/// `rateBudgets` (onto ``RateBudget``), `cache` (onto ``CacheFreshness``) and `sandboxCaching` (onto ``APICaching``).
enum DefinitionLimits {
    /// Item kinds, constant or read from a record: lower-case letters, digits and `-`, starting with a letter, as
    /// the result schema's `kind` pattern says (`^[a-z][a-z0-9-]*$`).
    static func isItemKind(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLowercase else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }

    /// `rateBudgets`: each `whenSet` must be a variable declared in `auth`, and a tier after one that always applies
    /// could never be chosen.
    static func rateBudgets(_ reader: DefinitionReader?, credentials: [String]) throws(DefinitionProblem) -> [RateBudget] {
        guard let reader else { return [] }
        var budgets: [RateBudget] = []
        for entry in try reader.array() {
            let fields = try entry.object(
                allowed: ["name", "requests", "window", "paths", "whenSet", "perEndpoint"], required: ["name", "requests", "window"])
            let name = try fields.required("name").identifier()
            let requests = try fields.required("requests").integer(in: 1...1_000_000)
            let window = try fields.required("window").number()
            guard window >= 0.001, window <= 86_400 else {
                throw fields.required("window").problem("must be seconds between 0.001 and 86400 (a day), not \(JSONNumberFormat.text(for: window))")
            }
            let paths = try fields["paths"]?.array().map { (path) throws(DefinitionProblem) -> PathPattern in
                let text = try path.string()
                guard text.hasPrefix("/") else { throw path.problem("'\(text)' must start with '/' (a path below the base URL, e.g. /search/**)") }
                return PathPattern(text)
            } ?? []
            let whenSet = try fields["whenSet"].map { (variable) throws(DefinitionProblem) -> String in
                let text = try variable.string()
                guard credentials.contains(text) else {
                    let declared = credentials.isEmpty ? "it declares none" : "declared: \(credentials.joined(separator: ", "))"
                    throw variable.problem("'\(text)' is not a variable this definition declares in auth (\(declared))")
                }
                return text
            }
            if budgets.contains(where: { $0.name == name && $0.whenSet == nil }) {
                throw fields.required("name").problem("an earlier '\(name)' tier without whenSet always applies, so this one never would: put it first")
            }
            budgets.append(
                RateBudget(name, requests: requests, per: window, paths: paths, whenSet: whenSet, perEndpoint: try fields["perEndpoint"]?.bool() ?? false))
        }
        return budgets
    }

    /// `cache`, in the shape `describe --format json` prints (``CacheFreshness/jsonValue``); operations must be declared.
    static func cacheFreshness(_ reader: DefinitionReader?, operations: [String]) throws(DefinitionProblem) -> CacheFreshness {
        guard let reader else { return .standard }
        let fields = try reader.object(allowed: ["defaultSeconds", "operations", "endpoints"])
        func seconds(_ entry: DefinitionReader) throws(DefinitionProblem) -> TimeInterval {
            TimeInterval(try entry.integer(in: 0...31_536_000))
        }
        var perOperation: [String: TimeInterval] = [:]
        for (operation, value) in try fields["operations"]?.members() ?? [] {
            guard operations.contains(operation) else {
                throw value.problem("'\(operation)' is not an operation of this definition (operations: \(operations.joined(separator: ", ")))")
            }
            perOperation[operation] = try seconds(value)
        }
        let endpoints = try fields["endpoints"]?.array().map { (entry) throws(DefinitionProblem) -> CacheFreshness.Endpoint in
            let endpoint = try entry.object(allowed: ["pathPrefix", "seconds"], required: ["pathPrefix", "seconds"])
            let prefix = try endpoint.required("pathPrefix").string()
            guard prefix.hasPrefix("/") else { throw endpoint.required("pathPrefix").problem("'\(prefix)' must start with '/' (a path below the base URL)") }
            return CacheFreshness.Endpoint(prefix, seconds: try seconds(endpoint.required("seconds")))
        } ?? []
        return CacheFreshness(
            defaultSeconds: try fields["defaultSeconds"].map { (entry) throws(DefinitionProblem) in try seconds(entry) } ?? CacheFreshness.standardSeconds,
            operations: perOperation, endpoints: endpoints)
    }

    /// `sandboxCaching`: the validators the real API sends, for the emulator; an ETag when absent (as for Swift emulators).
    static func sandboxCaching(_ reader: DefinitionReader?) throws(DefinitionProblem) -> APICaching {
        guard let reader else { return .etag }
        let fields = try reader.object(allowed: ["validators", "cacheControl"], required: ["validators"])
        let validators: APICaching.Validators
        switch try fields.required("validators").word(["etag", "lastModified", "etagAndLastModified", "none"]) {
        case "etag": validators = .etag
        case "lastModified": validators = .lastModified
        case "etagAndLastModified": validators = .etagAndLastModified
        default: validators = .none
        }
        return APICaching(validators: validators, cacheControl: try fields["cacheControl"]?.string())
    }
}
