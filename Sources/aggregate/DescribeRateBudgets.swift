import AggregateCore
import AggregateJSON


/// How `describe` shows a provider's declared rate budgets (``ProviderDescriptor/rateBudgets``).
enum DescribeRateBudgets {
    /// One line for the text view, e.g. `search: 30 requests a minute with GITHUB_TOKEN, else 10 requests a minute
    /// (/search/**)`; `nil` when the provider declares none.
    static func text(_ budgets: [RateBudget]) -> String? {
        guard !budgets.isEmpty else { return nil }
        var names: [String] = []
        for budget in budgets where !names.contains(budget.name) { names.append(budget.name) }
        return names.map { name in
            let tiers = budgets.filter { $0.name == name }
            let sizes = tiers.map { tier in tier.summary + (tier.whenSet.map { " with \($0)" } ?? "") }.joined(separator: ", else ")
            let paths = tiers[0].paths.map(\.description).joined(separator: ", ")
            let scope = paths.isEmpty ? "" : " (\(tiers[0].perEndpoint ? "each of " : "")\(paths))"
            return "\(name): \(sizes)\(scope)"
        }.joined(separator: "; ")
    }

    /// The budgets in the shape a provider definition declares them (`rateBudgets`).
    static func json(_ budgets: [RateBudget]) -> JSONValue {
        .array(budgets.map { budget in
            [
                "name": .string(budget.name), "requests": .int(budget.requests), "window": .number(JSONNumberFormat.text(for: budget.window)),
                "paths": .array(budget.paths.map { .string($0.description) }), "whenSet": .optional(budget.whenSet),
                "perEndpoint": .bool(budget.perEndpoint),
            ]
        })
    }
}
