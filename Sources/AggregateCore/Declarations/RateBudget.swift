import AggregateJSON
import AggregateText
public import Foundation

/// A request budget an API publishes, as plain data in the provider's descriptor: at most ``requests`` requests in
/// any ``window`` seconds, for the requests whose path matches ``paths``.
///
/// The limiter (``RateLimitMiddleware``) spends one token per request sent, retries and every concurrent page
/// included, and across processes. Declare tiers of one budget under the same ``name``, the most specific first:
/// the first whose ``whenSet`` variable is set (or that has none) applies, e.g. Kiva REST's 500 a minute with
/// `KIVA_APP_ID` before its 60 a minute without.
///
/// ```swift
/// rateBudgets: [
///     RateBudget("rest", requests: 500, per: 60, paths: ["/v1/**"], whenSet: "KIVA_APP_ID"),
///     RateBudget("rest", requests: 60, per: 60, paths: ["/v1/**"]),
/// ]
/// ```
public struct RateBudget: Sendable, Equatable {
    /// The budget's name, e.g. `rest` or `search`: tiers of one budget share it (see ``bucketName``).
    public var name: String
    /// The requests allowed in one window.
    public var requests: Int
    /// The window, in seconds.
    public var window: TimeInterval
    /// The request paths it covers, below the base URL's path (``PathPattern`` syntax, e.g. `/v1/**`);
    /// empty covers every request.
    public var paths: [PathPattern]
    /// The environment variable (usually a credential) that must be set for this tier to apply, or `nil`.
    public var whenSet: String?
    /// Whether each of ``paths`` is its own budget (X counts per endpoint) rather than all of them one.
    public var perEndpoint: Bool

    /// Creates a budget of `requests` per `window` seconds.
    public init(
        _ name: String, requests: Int, per window: TimeInterval, paths: [PathPattern] = [], whenSet: String? = nil,
        perEndpoint: Bool = false
    ) {
        self.name = name
        self.requests = requests
        self.window = window
        self.paths = paths
        self.whenSet = whenSet
        self.perEndpoint = perEndpoint
    }

    /// The name this tier is counted under: `search`, or `search with GITHUB_TOKEN` for a tier that applies when a
    /// variable is set. Tiers are counted apart, as APIs count a token's requests apart from an address's: what the
    /// API reported about the unauthenticated tier says nothing about the token's.
    public var bucketName: String { whenSet.map { "\(name) with \($0)" } ?? name }

    /// `60 requests a minute`, `40 requests a second`, `300 requests per 15 min`.
    public var summary: String {
        let unit: String
        switch window {
        case 1: unit = "a second"
        case 60: unit = "a minute"
        case 3600: unit = "an hour"
        default: unit = window.truncatingRemainder(dividingBy: 60) == 0 ? "per \(Int(window / 60)) min" : "per \(JSONNumberFormat.text(for: window)) s"
        }
        return "\(requests) request\(requests == 1 ? "" : "s") \(unit)"
    }

    /// `N/WINDOW` as the override variable and the sandbox's `--rate-limit` take it: `5/2s`, `60/1m`, `40/1`.
    /// - Returns: the requests and the window in seconds, or `nil` when `text` is not of that form.
    public static func parseRate(_ text: String) -> (requests: Int, window: TimeInterval)? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let requests = Int(parts[0]), requests > 0 else { return nil }
        var window = parts[1].lowercased()
        var scale: TimeInterval = 1
        for (suffix, factor) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] where window.hasSuffix(suffix) {
            window.removeLast(suffix.count)
            scale = factor
            break
        }
        guard let amount = DecimalText.number(window.isEmpty ? "1" : window, in: 0.001...86_400) else { return nil }
        let seconds = amount * scale
        guard seconds >= 0.001, seconds <= 86_400 else { return nil }
        return (requests, seconds)
    }
}

/// The budgets that apply to one provider's requests in one run: its declared tiers chosen by the environment,
/// or the override variable `AGGREGATE_<NAME>_RATE_LIMIT` (`N/WINDOW`) for every one of them.
public struct RateBudgetPlan: Sendable, Equatable {
    /// The provider's name.
    public var provider: String
    /// The chosen budget per name, in declaration order.
    public var budgets: [RateBudget]

    /// The variable that overrides a provider's budgets, e.g. `AGGREGATE_KIVA_RATE_LIMIT`.
    public static func overrideVariable(for provider: String) -> String { "AGGREGATE_\(provider.uppercased())_RATE_LIMIT" }

    /// Chooses `descriptor`'s tiers for `environment`.
    /// - Throws: a `config` error when the override variable is not of the form `N/WINDOW`.
    public init(descriptor: ProviderDescriptor, environment: [String: String]) throws(AggregateError) {
        provider = descriptor.name
        var chosen: [RateBudget] = []
        for budget in descriptor.rateBudgets where !chosen.contains(where: { $0.name == budget.name }) {
            if let variable = budget.whenSet, environment[variable]?.trimmingCharacters(in: .whitespaces).isEmpty ?? true { continue }
            chosen.append(budget)
        }
        let variable = Self.overrideVariable(for: descriptor.name)
        if let text = environment[variable], !text.isEmpty {
            guard let (requests, window) = RateBudget.parseRate(text) else {
                throw AggregateError(.config, "\(variable) must be N/WINDOW, e.g. 60/1m or 5/2s, not '\(text)'")
            }
            chosen = chosen.isEmpty ? [RateBudget("override", requests: requests, per: window)] : chosen.map {
                var budget = $0
                (budget.requests, budget.window) = (requests, window)
                return budget
            }
        }
        budgets = chosen
    }

    /// The buckets a request to `url` spends from: one per budget whose paths match, named for the state files.
    /// - Parameter baseURL: the provider's base URL (paths are matched below its path).
    public func buckets(for url: URL, baseURL: URL) -> [(key: String, budget: RateBudget)] {
        let basePath = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
        var path = url.path
        if !basePath.isEmpty, path.hasPrefix(basePath) { path = String(path.dropFirst(basePath.count)) }
        if path.isEmpty { path = "/" }
        return budgets.compactMap { budget in
            if budget.paths.isEmpty { return (budget.bucketName, budget) }
            guard let pattern = budget.paths.first(where: { $0.matches(path) }) else { return nil }
            return (budget.perEndpoint ? "\(budget.bucketName) \(pattern)" : budget.bucketName, budget)
        }
    }
}
