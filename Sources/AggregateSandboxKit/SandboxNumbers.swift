public import AggregateJSON



/// Bounds-checked reading and saturating arithmetic for numbers that arrive in sandbox requests.
///
/// Every number a client sends (a page, an offset, a GraphQL `first` or `limit`) goes through here before it
/// indexes an array, so no request can make a route trap: values are read as whole decimal numbers inside a
/// documented range (the route answers its API's own 400 otherwise), and list positions are computed with
/// arithmetic that saturates instead of overflowing.
public enum SandboxNumbers {
    /// GraphQL's `Int` is a signed 32-bit integer; larger values are a validation error on real servers.
    public static let graphQLIntRange = Int(Int32.min)...Int(Int32.max)

    /// A whole decimal number (an optional `-`, then ASCII digits) within `range`, or `nil` for anything else:
    /// hexadecimal, exponents, fractions, spaces, or a value outside the range (including one beyond `Int`).
    public static func integer(_ text: String, in range: ClosedRange<Int>) -> Int? {
        let digits = text.hasPrefix("-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ (48...57).contains($0) }), let value = Int(text) else {
            return nil
        }
        return range.contains(value) ? value : nil
    }

    /// A JSON number that is a whole value within `range` (GraphQL variables), or `nil`.
    /// `1e400`, `1.5`, strings and numbers beyond `Int` are all `nil`.
    public static func integer(_ value: JSONValue, in range: ClosedRange<Int>) -> Int? {
        guard let number = value.int else { return nil }
        return range.contains(number) ? number : nil
    }

    /// `a + b`, or the nearest bound instead of overflowing.
    public static func sum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return result }
        return b > 0 ? .max : .min
    }

    /// `a × b`, or the nearest bound instead of overflowing.
    public static func product(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        guard overflow else { return result }
        return (a < 0) == (b < 0) ? .max : .min
    }

    /// The positions `offset ..< offset + length` of a list of `count` items, clipped to the list: an offset past
    /// the end (or a huge length) gives an empty or shortened range, never one that traps when used as an index.
    public static func window(offset: Int, length: Int, count: Int) -> Range<Int> {
        let start = min(max(0, offset), max(0, count))
        let end = min(max(start, sum(start, max(0, length))), max(0, count))
        return start..<end
    }

    /// The positions of 1-based page `page` of `size` items in a list of `count` (an empty range past the end).
    public static func page(_ page: Int, size: Int, count: Int) -> Range<Int> {
        window(offset: product(sum(page, -1), size), length: size, count: count)
    }
}
