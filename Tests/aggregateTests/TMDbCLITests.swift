import AggregateCore
import AggregateJSON
import AggregateText
import Foundation
import MeetupProvider
import Testing

/// The TMDb provider's command line: usage and configuration errors, describe, and the text views.
@Suite struct TMDbCLITests {
    @Test func missingCredentialsExit78NamingBothVariables() async {
        let output = await CLIHarness().run(["tmdb", "popular"])
        #expect(output.code == .config)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr == "Error: tmdb: no credentials: set TMDB_ACCESS_TOKEN (API Read Access Token, preferred) or TMDB_API_KEY (v3 API key), or use --offline to see sample data\n")
    }

    @Test(arguments: [
        (["tmdb", "search"], "Error: tmdb: missing <title> for 'tmdb search'"),
        (["tmdb", "movie"], "Error: tmdb: missing <id> for 'tmdb movie'"),
        (["tmdb", "movie", "abc"], "Error: tmdb: <id> must be a whole number, not 'abc'"),
        (["tmdb", "movie", "0"], "Error: tmdb: <id> must be between 1 and 999999999, not 0"),
        (["tmdb", "search", "dune", "--year", "3000"], "Error: tmdb: --year must be between 1870 and 2100, not 3000"),
        (["tmdb", "popular", "extra"], "Error: tmdb: unexpected argument 'extra' (operations: search, popular, movie)"),
    ])
    func badCommandLinesExit64(arguments: [String], firstLine: String) async {
        let output = await CLIHarness().run(arguments + ["--offline"])
        #expect(output.code == .usage)
        #expect(output.stderr.hasPrefix(firstLine + "\n"), "got: \(output.stderr)")
    }

    @Test func describeDocumentsTheOperations() async throws {
        let text = await CLIHarness().run(["describe", "tmdb"])
        #expect(text.code == .success)
        for expected in [
            "search (default)", "popular", "movie", "<title>", "--year <YEAR>", "<id>", "TMDB_ACCESS_TOKEN", "TMDB_API_KEY",
            "https://api.themoviedb.org/3", "aggregate tmdb movie 1930 --offline", "aggregate tmdb search 'the amazing spider-man' --offline",
        ] {
            #expect(text.stdout.contains(expected), "describe lacks \(expected)")
        }
        let json = try JSONParser().parse(await CLIHarness().run(["describe", "tmdb", "--format", "json"]).stdout)
        #expect(json["operations"]?.array?.compactMap { $0["name"]?.string } == ["search", "popular", "movie"])
    }

    @Test func theMovieViewListsTenCastMembersOrLimit() async {
        let standard = await CLIHarness().run(["tmdb", "movie", "1930", "--offline"])
        let castLines = standard.stdout.components(separatedBy: "\nCast\n")[1].split(separator: "\n")
        #expect(castLines.count == 11)
        #expect(castLines.last == "  … and 3 more (--limit 13 lists them all)")
        let three = await CLIHarness().run(["tmdb", "movie", "1930", "--offline", "--limit", "3"])
        #expect(three.stdout.hasSuffix("  Rhys Ifans as Dr. Curt Connors / The Lizard\n  … and 10 more (--limit 13 lists them all)\n"))
        let twenty = await CLIHarness().run(["tmdb", "movie", "1930", "--offline", "--limit", "20"])
        #expect(twenty.stdout.components(separatedBy: "\nCast\n")[1].split(separator: "\n").count == 13, "an explicit --limit 20 lists up to 20")
        let all = await CLIHarness().run(["tmdb", "movie", "1930", "--offline", "--limit", "50"])
        #expect(all.stdout.hasSuffix("  Stan Lee as School Librarian\n"))
    }

    @Test func aMovieWithoutDateCreditsOrVotesShowsWhatIsKnown() async {
        let output = await CLIHarness().run(["tmdb", "movie", "9000001", "--offline"])
        #expect(output.code == .success)
        #expect(output.stdout == "Untitled Lighthouse Documentary\n\nGenres  Documentary\n")
        let several = await CLIHarness().run(["tmdb", "movie", "9000002", "--offline"])
        #expect(several.stdout.contains("\nDirector  Inès Barbier\n"))
        #expect(several.stdout.contains("\n  Hélène Roussel\n"), "no character: the name alone")
        #expect(!several.stdout.contains("Rating"), "no votes: no rating")
    }

    @Test func listLinesFitTheTerminalWidth() async {
        var harness = CLIHarness()
        harness.width = 40
        let output = await harness.run(["tmdb", "search", "tokyo ramen", "--offline"])
        #expect(output.stdout == "Tokyo Ramen 🍜 Diaries (2023)  ★ 6.8  D…\n")
        for line in output.stdout.split(separator: "\n") { #expect(TextLayout.width(String(line)) <= 40) }
        let detail = await harness.run(["tmdb", "movie", "129", "--offline"])
        for line in detail.stdout.split(separator: "\n") { #expect(TextLayout.width(String(line)) <= 40, "\(line)") }
        #expect(detail.stdout.contains("Original  千と千尋の神隠し\n"))
    }
}
