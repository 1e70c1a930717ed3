import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Testing

/// The core's reading of a provider's command line (issue 26): a free-text parameter takes several words.
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
