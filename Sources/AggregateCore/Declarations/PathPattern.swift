/// A pattern of request paths, e.g. `/2/users/*/tweets`: the paths a rate budget covers, and the paths an emulator
/// owns at the sandbox's root.
///
/// Segments are literals, `*` (exactly one segment) or a final `**` (the rest, possibly nothing). Ownership is
/// decided by pattern, never by the order of the providers: `SandboxCatalog` (in `AggregateSandboxKit`) refuses two
/// emulators whose patterns could both match one path, so Meetup's `/2/groups` and X's `/2/users/**` live side by
/// side while two claims on `/2/users/**` are an error at start-up.
public struct PathPattern: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The pattern's segments, e.g. `["2", "users", "*", "tweets"]`.
    public let segments: [String]

    /// Creates a pattern from its text, e.g. `/v1/**`.
    public init(_ text: String) {
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Creates a pattern from a literal, e.g. `"/v1/**"`.
    public init(stringLiteral text: String) { self.init(text) }

    /// The pattern as written, with a leading `/`.
    public var description: String { "/" + segments.joined(separator: "/") }

    /// Whether `path` (as received, without the query) is one of the pattern's paths.
    public func matches(_ path: String) -> Bool {
        Self.overlap(segments[...], path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)[...], literalRight: true)
    }

    /// Whether some path matches both patterns.
    public func overlaps(_ other: PathPattern) -> Bool {
        Self.overlap(segments[...], other.segments[...], literalRight: false)
    }

    /// Walks both segment lists; `literalRight` means the right side is a path, whose `*` is just a segment.
    private static func overlap(_ left: ArraySlice<String>, _ right: ArraySlice<String>, literalRight: Bool) -> Bool {
        if left.first == "**" || (!literalRight && right.first == "**") { return true }
        guard let leftHead = left.first, let rightHead = right.first else { return left.isEmpty && right.isEmpty }
        let wildcard = leftHead == "*" || (!literalRight && rightHead == "*")
        guard wildcard || leftHead == rightHead else { return false }
        return overlap(left.dropFirst(), right.dropFirst(), literalRight: literalRight)
    }
}
