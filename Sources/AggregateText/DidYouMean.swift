/// The names a mistyped word was likely meant to be: the one place the command line decides what counts as a typo,
/// for providers, commands, operations, options and actions alike.
///
/// Closeness is the Damerau–Levenshtein distance (optimal string alignment: an insertion, a deletion, a
/// substitution or a swap of two neighbouring letters each count one edit, so `tmbd` is one edit from `tmdb`),
/// compared without regard to case. How many edits a word may be off grows with its length
/// (``maximumDistance(forLength:)``): short words are too easily near a real name by chance.
public enum DidYouMean {
    /// The most edits a typed word of `length` characters may be from a name to count as a typo of it: none below
    /// 3 characters (only a difference of case), 1 for 3 to 5, 2 from 6.
    public static func maximumDistance(forLength length: Int) -> Int {
        switch length {
        case ..<3: 0
        case 3...5: 1
        default: 2
        }
    }

    /// The candidates `word` is close enough to, closest first; among equally close ones, in the candidates' order.
    /// A candidate equal to `word` comes first: `-verbose` means `--verbose`.
    public static func ranked(_ word: String, among candidates: [String]) -> [String] {
        let bound = maximumDistance(forLength: word.count)
        let scored = candidates.enumerated().compactMap { index, candidate -> (String, Int, Int)? in
            let edits = distance(word, candidate)
            return edits <= bound ? (candidate, edits, index) : nil
        }
        return scored.sorted { ($0.1, $0.2) < ($1.1, $1.2) }.map(\.0)
    }

    /// The candidate `word` is most likely a typo of, if any is close enough.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        ranked(word, among: candidates).first
    }

    /// `; did you mean 'popular'?` for a close candidate, else `otherwise`, to append to an error message.
    /// - Parameters:
    ///   - prefix: what the suggestion is written with and the comparison leaves out, e.g. `--` for options.
    ///   - otherwise: the text without a suggestion, e.g. the `.` that ends a sentence the question would end.
    public static func suffix(for word: String, among candidates: [String], prefix: String = "", otherwise: String = "") -> String {
        closest(to: word, among: candidates).map { "; did you mean '\(prefix)\($0)'?" } ?? otherwise
    }

    /// The number of edits between `a` and `b`, ignoring case (see the type's summary).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        // Three rows of the table suffice: a swap looks two rows back.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
