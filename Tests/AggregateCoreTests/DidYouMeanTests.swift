import AggregateText
import Testing

/// The one helper every "did you mean" comes from: the distance, its bound by word length, and the ranking.
@Suite struct DidYouMeanTests {
    @Test(arguments: [
        ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("tmdb", "tmdb", 0),
        ("serch", "search", 1),  // a letter left out
        ("popularr", "popular", 1),  // one too many
        ("limt", "limit", 1), ("offlin", "offline", 1),
        ("tmbd", "tmdb", 1),  // two neighbours swapped count one edit (Levenshtein says 2)
        ("comapre", "compare", 1), ("verison", "version", 1),
        ("TMDB", "tmdb", 0),  // case does not count
        ("ca", "abc", 3),  // optimal string alignment: a swapped pair is not edited again
        ("kitten", "sitting", 3),
    ])
    func distance(a: String, b: String, edits: Int) {
        #expect(DidYouMean.distance(a, b) == edits)
        #expect(DidYouMean.distance(b, a) == edits, "symmetric")
    }

    @Test func theBoundGrowsWithTheWordsLength() {
        #expect((0...8).map(DidYouMean.maximumDistance(forLength:)) == [0, 0, 0, 1, 1, 1, 2, 2, 2])
    }

    @Test func suggestsTheClosestWithinTheBound() {
        #expect(DidYouMean.closest(to: "serch", among: ["search", "popular", "movie"]) == "search")
        #expect(DidYouMean.closest(to: "popularr", among: ["search", "popular", "movie"]) == "popular")
        #expect(DidYouMean.closest(to: "sett", among: ["path", "show", "get", "set", "unset"]) == "set")
        #expect(DidYouMean.closest(to: "tmbd", among: ["meetup", "kiva", "tmdb"]) == "tmdb")
        #expect(DidYouMean.closest(to: "Tmdb", among: ["tmdb"]) == "tmdb", "a word that differs only in case")
        #expect(DidYouMean.closest(to: "verbose", among: ["quiet", "verbose"]) == "verbose", "the name itself, given with one dash")
    }

    @Test func shortAndFarWordsGetNone() {
        // Below 3 letters nothing but case counts: `ls` is not a typo of `list`, nor `go` of `get`.
        #expect(DidYouMean.closest(to: "ls", among: ["list", "post"]) == nil)
        #expect(DidYouMean.closest(to: "ge", among: ["get"]) == nil)
        // 3 to 5 letters: one edit only, so real search words near an operation's name stay searches.
        #expect(DidYouMean.closest(to: "march", among: ["search", "popular", "movie"]) == nil, "2 edits from search")
        #expect(DidYouMean.closest(to: "bowie", among: ["search", "popular", "movie"]) == nil, "2 edits from movie")
        #expect(DidYouMean.closest(to: "batman", among: ["search", "popular", "movie"]) == nil)
    }

    @Test func ranksByDistanceThenByTheCandidatesOrder() {
        #expect(DidYouMean.ranked("stat", among: ["start", "stats", "state", "status"]) == ["start", "stats", "state"])
        #expect(DidYouMean.ranked("statts", among: ["stat", "stats"]) == ["stats", "stat"], "one edit before two, whatever the order")
    }

    @Test func theSuffixIsOneClauseOrTheFallback() {
        #expect(DidYouMean.suffix(for: "limt", among: ["limit", "format"], prefix: "--") == "; did you mean '--limit'?")
        #expect(DidYouMean.suffix(for: "nosuch", among: ["limit"]) == "")
        #expect(DidYouMean.suffix(for: "nosuch", among: ["limit"], otherwise: ".") == ".")
    }
}
