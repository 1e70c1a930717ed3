import AggregateCore
import Foundation

/// The value rules TMDb documents for the parameters of the sandbox's endpoints (`language` as `xx-YY`, `region` as
/// an upper-case ISO 3166-1 code, `include_adult` a boolean, years as numbers), answered with TMDb's documented
/// "invalid input" error (HTTP 400, `status_code` 47). `query` and `page` keep their own documented answers, and
/// parameters TMDb does not document are ignored, as TMDb does.
enum TMDbParameterRules {
    /// The rule each checked parameter follows, by endpoint.
    static func rules(for route: TMDbSandbox.Route) -> [(name: String, isValid: (String) -> Bool)] {
        let language = ("language", isLanguage as (String) -> Bool)
        let region = ("region", isRegion as (String) -> Bool)
        switch route {
        case .searchMovie:
            return [language, region, ("include_adult", isBoolean), ("year", isYear), ("primary_release_year", isYear)]
        case .popular: return [language, region]
        case .movie, .credits: return [language]
        case .configuration, .unknown: return []
        }
    }

    /// TMDb's 400 for the first parameter that breaks its rule, or `nil`.
    static func check(_ request: SandboxRequest, route: TMDbSandbox.Route) -> SandboxResponse? {
        for rule in rules(for: route) {
            guard let value = request.queryValue(rule.name), !rule.isValid(value) else { continue }
            return TMDbSandbox.statusError(400, code: 47, "The input is not valid: \(rule.name) '\(value)'.")
        }
        return nil
    }

    /// ISO 639-1, optionally with an ISO 3166-1 region: `en`, `en-US`, `pt-BR`.
    static func isLanguage(_ text: String) -> Bool {
        text.wholeMatch(of: #/[a-z]{2}(-[A-Z]{2})?/#) != nil
    }

    static func isRegion(_ text: String) -> Bool { text.wholeMatch(of: #/[A-Z]{2}/#) != nil }

    static func isBoolean(_ text: String) -> Bool { text == "true" || text == "false" }

    static func isYear(_ text: String) -> Bool { text.wholeMatch(of: #/[0-9]{4}/#) != nil }
}
