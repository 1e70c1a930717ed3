public import AggregateJSON
import AggregateText
public import Foundation

extension Parameter {
    /// `text` converted to this parameter's type.
    /// - Throws: a `usage` error naming the parameter and what it accepts.
    public func value(from text: String) throws(AggregateError) -> JSONValue {
        let label = style == .positional ? "<\(valueName.lowercased())>" : "--\(name)"
        switch type {
        case .string:
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw AggregateError(.usage, "\(label) must not be empty")
            }
            return .string(text)
        case .integer(let range):
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw AggregateError(.usage, "\(label) must be a whole number, not '\(text)'")
            }
            if let range, !range.contains(number) {
                throw AggregateError(.usage, "\(label) must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
            }
            return .int(number)
        case .number(let range):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let number = DecimalText.number(trimmed) else {
                throw AggregateError(.usage, "\(label) must be a decimal number, not '\(text)'")
            }
            if let range, !range.contains(number) {
                throw AggregateError(
                    .usage, "\(label) must be between \(JSONNumberFormat.text(for: range.lowerBound)) and \(JSONNumberFormat.text(for: range.upperBound)), not \(trimmed)")
            }
            // Keep the text as typed ("51.509980"), so the query echoes exactly what was asked.
            let typed = (try? JSONParser().parse(trimmed))?.numberText
            return .number(typed ?? JSONNumberFormat.text(for: number))
        case .choice(let choices):
            let lowered = text.lowercased()
            guard let match = choices.first(where: { $0.lowercased() == lowered }) else {
                throw AggregateError(.usage, "\(label) must be one of \(choices.joined(separator: ", ")), not '\(text)'\(DidYouMean.suffix(for: text, among: choices))")
            }
            return .string(match)
        case .choiceList(let choices):
            var picked: [JSONValue] = []
            for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !part.isEmpty {
                guard let match = choices.first(where: { $0.lowercased() == part }) else {
                    throw AggregateError(
                        .usage, "\(label) accepts a comma-separated list of \(choices.joined(separator: ", ")), not '\(part)'\(DidYouMean.suffix(for: part, among: choices))")
                }
                if !picked.contains(.string(match)) { picked.append(.string(match)) }
            }
            return .array(picked)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw AggregateError(.usage, "\(label) must be true or false, not '\(text)'")
            }
        }
    }
}

extension ProviderDescriptor {
    /// The base URL for a run: `override` (`--base-url`), else `AGGREGATE_<NAME>_BASE_URL`, else the provider's
    /// own variables, else ``defaultBaseURL``.
    /// - Parameter allowHTTP: accept plain http to hosts other than this machine (see ``PlainHTTP``).
    /// - Throws: a `config` error when none is set, or when the URL is not https (plain http only for this
    ///   machine, unless `allowHTTP`).
    public func baseURL(override: String?, environment: [String: String], allowHTTP: Bool = false) throws(AggregateError) -> URL {
        if let override, override.trimmingCharacters(in: .whitespaces).isEmpty {
            // An empty --base-url is a mistake (an unset shell variable), never a request for the live API.
            throw AggregateError(.config, "--base-url is empty: give a URL such as http://127.0.0.1:8787, or leave the option out", provider: name)
        }
        let candidates = [override] + ([baseURLVariable] + baseURLVariables).map { environment[$0] } + [defaultBaseURL]
        guard let text = candidates.compactMap({ $0?.trimmingCharacters(in: .whitespaces) }).first(where: { !$0.isEmpty }) else {
            let variables = ([baseURLVariable] + baseURLVariables).reversed().joined(separator: " or ")
            throw AggregateError(.config, "no server address: set \(variables), pass --base-url URL, or use --offline", provider: name)
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
            throw AggregateError(.config, "the base URL '\(text)' is not a valid http(s) URL", provider: name)
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw AggregateError(.config, "the base URL '\(text)' has port \(port); a port must be from 1 to 65535", provider: name)
        }
        switch scheme {
        case "https": return url
        case "http" where PlainHTTP.isAllowed(url, allowHTTP: allowHTTP): return url
        case "http":
            throw AggregateError(.config, PlainHTTP.refusal(host: url.host ?? text), provider: name)
        default:
            throw AggregateError(.config, "the base URL '\(text)' must start with https:// (or http:// for loopback)", provider: name)
        }
    }
}
