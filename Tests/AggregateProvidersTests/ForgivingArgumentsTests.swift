import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Testing

/// The core's reading of a provider's command line (issue 26): a mistyped operation is refused rather than taken
/// for the default operation's text, and a free-text parameter takes several words.
@Suite struct ForgivingArgumentsTests {
    let registry: ProviderRegistry

    init() throws { registry = try TestRegistry.providers() }

    func values(_ words: [String]) throws(AggregateError) -> JSONObject {
        let arguments = try ProviderArguments(words, registry: registry)
        return try arguments.values(from: try ArgumentParser(options: arguments.optionSpecs).parse(arguments.rest))
    }

    func usageError(_ words: [String]) -> AggregateError? {
        do {
            _ = try values(words)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (["tmdb", "popularr"], "unknown operation 'popularr'; did you mean 'popular'? (for the <title> 'popularr' itself, say 'tmdb search popularr' or 'tmdb -- popularr')"),
        (["tmdb", "serch", "batman"], "unknown operation 'serch'; did you mean 'search'? (for the <title> 'serch' itself, say 'tmdb search serch' or 'tmdb -- serch')"),
        (["tmdb", "movi", "1930"], "unknown operation 'movi'; did you mean 'movie'? (for the <title> 'movi' itself, say 'tmdb search movi' or 'tmdb -- movi')"),
        (["kiva", "serch"], "unknown operation 'serch'; did you mean 'search'?"),
        (["twitter", "archiv", "x.zip"], "unknown operation 'archiv'; did you mean 'archive'? (for the <username> 'archiv' itself, say 'twitter timeline archiv' or 'twitter -- archiv')"),
    ])
    func aWordCloseToAnOperationIsRefused(words: [String], message: String) {
        let error = usageError(words)
        #expect(error?.kind == .usage)
        #expect(error?.provider == words[0])
        #expect(error?.message == message)
    }

    @Test func namingTheOperationOrDashDashMeansTheWordAsItIs() throws {
        #expect(try values(["tmdb", "search", "popularr"])["query"] == "popularr")
        #expect(try values(["tmdb", "--", "popularr"])["query"] == "popularr")
        #expect(try values(["tmdb", "--", "serch", "batman"])["query"] == "serch batman")
        #expect(try values(["twitter", "@archiv"])["username"] == "@archiv", "a word no operation could be named is text")
    }

    @Test(arguments: ["batman", "march", "bowie", "the", "up", "poppy"])
    func realSearchWordsStaySearches(word: String) throws {
        #expect(try values(["tmdb", word])["query"] == .string(word))
    }

    @Test func aFreeTextParameterJoinsTheWordsLeft() throws {
        #expect(try values(["tmdb", "search", "the", "amazing", "spider-man", "--year", "2012"])["query"] == "the amazing spider-man")
        #expect(try values(["tmdb", "the", "amazing", "spider-man"])["query"] == "the amazing spider-man", "the default operation too")
        #expect(try values(["github", "search", "swift", "lang"])["query"] == "swift lang", "a definition's positional text")
        #expect(try values(["hackernews", "search", "rust", "async", "--by-date"])["query"] == "rust async")
        #expect(try values(["tmdb", "search", "one"])["query"] == "one")
    }

    @Test func otherPositionalsStillTakeOneWord() {
        #expect(usageError(["twitter", "jack", "dorsey"])?.message == "unexpected argument 'dorsey'", "a user name is not free text")
        #expect(usageError(["tmdb", "movie", "1930", "1931"])?.message == "unexpected argument '1931'")
        #expect(usageError(["tmdb", "popular", "extra"])?.message == "unexpected argument 'extra' (operations: search, popular, movie)")
    }

    @Test func positionalTextIsFreeTextUnlessDeclaredOtherwise() {
        #expect(Parameter("q", style: .positional, help: "").isFreeText)
        #expect(!Parameter("q", style: .positional, freeText: false, help: "").isFreeText)
        #expect(!Parameter("id", style: .positional, type: .integer(nil), help: "").isFreeText)
        #expect(!Parameter("query", help: "").isFreeText, "an option takes one value")
    }
}
