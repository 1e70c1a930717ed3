import AggregateCore


extension CommonOptions {
    /// Applies `--sort` and `--fields` to a fetched result (failed results pass through unchanged).
    func shape(_ result: ProviderResult) -> ProviderResult {
        guard result.error == nil else { return result }
        var shaped = result
        if let sort { shaped = shaped.sorted(by: sort) }
        if let fields { shaped = shaped.selecting(fields) }
        return shaped
    }
}

/// Notes about `--fields` and `--sort` names that were valid but matched nothing.
enum FieldWarnings {
    /// `no item has metrics.stars (the metrics here: members, rating)` when a named metric is absent from every item.
    static func absentMetrics(in result: ProviderResult) -> String? {
        guard !result.items.isEmpty else { return nil }
        var names = (result.meta.selectedFields ?? []).filter { $0.field == .metrics }.compactMap(\.part)
        if let sorted = result.meta.sortedLocally, let sort = try? ItemSort(parsing: sorted), sort.path.field == .metrics, let part = sort.path.part {
            names.append(part)
        }
        let present = Set(result.items.flatMap(\.metrics.keys))
        let absent = names.filter { !present.contains($0) }
        guard let first = absent.first else { return nil }
        let known = present.isEmpty ? "these items have no metrics" : "the metrics here: \(present.sorted().joined(separator: ", "))"
        return "no item has metrics.\(first) (\(known))"
    }
}
