/// The most requests one run of an operation sends, declared with the operation so that `aggregate sql --plan`
/// can say what a statement will cost before anything is sent.
public struct RequestCost: Sendable, Equatable {
    /// The fewest items a full page holds (`nil`: one request answers the whole run, whatever the limit).
    public var pageSize: Int?
    /// The requests a run may send before its first page (an id or the API's configuration), at most.
    public var lookups: Int

    /// Creates a cost; an unknown page size should be given as 1, the bound that always holds.
    public init(pageSize: Int?, lookups: Int = 0) { (self.pageSize, self.lookups) = (pageSize, lookups) }

    /// The pages a run for `limit` items fetches at most.
    public func pages(forLimit limit: Int) -> Int { pageSize.map { max(1, (limit + max(1, $0) - 1) / max(1, $0)) } ?? 1 }
}
