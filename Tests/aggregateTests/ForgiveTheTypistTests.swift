import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing

/// Issue 26, "forgive the typist", through the built binary: mistyped operations are refused with a suggestion,
/// every unknown name gets a "did you mean", several search words are one text, and -v/-q are short flags that
/// cannot be used together.
@Suite struct ForgiveTheTypistTests {
    static let usageTail = "  See 'aggregate --help' for more information.\n"

    /// The first line of stderr.
    func firstLine(_ output: Binary.Output) -> String { output.stderr.split(separator: "\n").first.map(String.init) ?? "" }

    // MARK: - Did you mean, everywhere

    @Test(arguments: [
        (["tmbd"], "Error: unknown provider or command 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["comapre"], "Error: unknown provider or command 'comapre'; did you mean 'compare'? Valid providers: "),
        (["--verison"], "Error: unknown option '--verison'; did you mean '--version'?"),
        (["help", "tmbd"], "Error: no help topic 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["describe", "tmbd"], "Error: unknown provider 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["tmdb", "popular", "--limt", "3"], "Error: tmdb: unknown option '--limt'; did you mean '--limit'?"),
        (["tmdb", "popular", "--offlin"], "Error: tmdb: unknown option '--offlin'; did you mean '--offline'?"),
        (["tmdb", "popular", "-verbose"], "Error: tmdb: unknown option '-verbose'; did you mean '--verbose'?"),
        (["compare", "tmbd popular"], "Error: invocation 1 ('tmbd popular'): unknown provider 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["compare", "--offlin", "--all"], "Error: unknown option '--offlin'; did you mean '--offline'?"),
        (["browse", "x.json", "--dpth", "2"], "Error: browse: unknown option '--dpth'; did you mean '--depth'?"),
        (["config", "sett"], "Error: unknown config action 'sett'; use path, show, get, set or unset; did you mean 'set'?"),
        (["cache", "clar"], "Error: unknown action 'clar': use stats, clear or path; did you mean 'clear'?"),
        (["cache", "clear", "tmbd"], "Error: unknown provider 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["limits", "shw"], "Error: unknown action 'shw': use show or reset; did you mean 'show'?"),
        (["auth", "stats"], "Error: unknown auth action 'stats'; use status; did you mean 'status'?"),
        (["auth", "status", "tmbd"], "Error: unknown provider 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["completions", "bsh"], "Error: bsh is not supported: use bash, zsh or fish; did you mean 'bash'?"),
        (["normalize", "tmbd"], "Error: unknown provider 'tmbd'; did you mean 'tmdb'? Valid providers: "),
        (["new-provider", "books", "--defintion"], "Error: unknown option '--defintion'; did you mean '--definition'?"),
        (["sandbox", "--prot", "0"], "Error: unknown option '--prot'; did you mean '--port'?"),
        (["tmdb", "popular", "--offline", "--format", "jsno"], "Error: tmdb: --format must be one of text, json, ndjson, csv, markdown, not 'jsno'; did you mean 'json'?"),
        (["tmdb", "popular", "--offline", "--fields", "tilte"], "Error: tmdb: unknown field 'tilte'; did you mean 'title'? Valid fields: provider, "),
        (["kiva", "--offline", "--api", "grapql"], "Error: kiva: --api must be one of graphql, rest, not 'grapql'; did you mean 'graphql'?"),
        (["twitter", "nasa", "--offline", "--exclude", "replys"], "Error: twitter: --exclude accepts a comma-separated list of replies, retweets, not 'replys'; did you mean 'replies'?"),
    ])
    func unknownNamesSuggestTheClosest(arguments: [String], prefix: String) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == 64)
        #expect(firstLine(output).hasPrefix(prefix), "\(output.stderr)")
        #expect(output.stderr.hasSuffix(Self.usageTail))
    }

    @Test func farNamesKeepTheMessageAsItWas() throws {
        let output = try Binary.run(["nosuch"])
        #expect(firstLine(output).hasPrefix("Error: unknown provider or command 'nosuch'. Valid providers: "))
        #expect(!output.stderr.contains("did you mean"))
        let option = try Binary.run(["tmdb", "popular", "--offline", "--zzzzzz"])
        #expect(firstLine(option) == "Error: tmdb: unknown option '--zzzzzz'")
    }

    // MARK: - Several words are one search text

    @Test(arguments: [
        (["tmdb", "search", "the", "amazing", "spider-man", "--offline", "--format", "json"], "the amazing spider-man"),
        (["github", "search", "swift", "lang", "--offline", "--format", "json"], "swift lang"),
        (["hackernews", "search", "rust", "async", "--offline", "--format", "json"], "rust async"),
    ])
    func severalSearchWordsAreJoined(arguments: [String], query: String) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("\"query\": \"\(query)\""), "\(output.stdout.prefix(400))")
    }

    @Test func helpSaysSoInTheUsageAndTheArgument() throws {
        let help = try Binary.run(["help", "tmdb"]).stdout
        #expect(help.contains("aggregate tmdb [search] <title>... [--year <YEAR>] [<options>]"))
        #expect(help.contains("Several words are joined with single spaces."))
        #expect(try Binary.run(["help", "twitter"]).stdout.contains("aggregate twitter [timeline] <username> "), "a user name takes one word")
    }

    // MARK: - A mistyped operation

    @Test(arguments: [
        (["tmdb", "popularr", "--offline"],
         "Error: tmdb: unknown operation 'popularr'; did you mean 'popular'? (for the <title> 'popularr' itself, say 'tmdb search popularr' or 'tmdb -- popularr')"),
        (["tmdb", "serch", "batman", "--offline"],
         "Error: tmdb: unknown operation 'serch'; did you mean 'search'? (for the <title> 'serch' itself, say 'tmdb search serch' or 'tmdb -- serch')"),
        (["kiva", "serch", "--offline"], "Error: kiva: unknown operation 'serch'; did you mean 'search'?"),
        (["twitter", "archiv", "x.zip"],
         "Error: twitter: unknown operation 'archiv'; did you mean 'archive'? (for the <username> 'archiv' itself, say 'twitter timeline archiv' or 'twitter -- archiv')"),
        (["normalize", "tmdb", "serch", "page.json"], "Error: tmdb: unknown operation 'serch'; did you mean 'search'?"),
    ])
    func aMistypedOperationIsAUsageError(arguments: [String], line: String) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(firstLine(output) == line, "\(output.stderr)")
        #expect(output.stderr.contains("\nUsage: aggregate "), "with the usage line")
        #expect(output.stderr.hasSuffix(Self.usageTail))
    }

    @Test func namingTheOperationSearchesForTheWord() throws {
        let output = try Binary.run(["tmdb", "search", "popularr", "--offline"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "(no results from tmdb)\n")
    }

    @Test func dashDashSearchesForTheWord() throws {
        let sandbox = try LoopbackSandbox()
        let environment = ["AGGREGATE_TMDB_BASE_URL": "\(sandbox.url)/tmdb", "TMDB_API_KEY": "sandbox"]
            .merging(try TestRegistry.builtIn().sandbox(named: "tmdb")?.sandboxEnvironment ?? [:]) { _, sandbox in sandbox }
        let typo = try Binary.run(["tmdb", "--", "popularr"], environment: environment)
        #expect(typo.status == 0, "\(typo.stderr)")
        #expect(typo.stdout == "(no results from tmdb)\n")
        let words = try Binary.run(["tmdb", "--", "the", "amazing", "spider-man"], environment: environment)
        #expect(words.status == 0, "\(words.stderr)")
        #expect(words.stdout.hasPrefix("The Amazing Spider-Man (2012)"), "\(words.stdout)")
    }

    @Test func helpExplainsTheRule() throws {
        let help = try Binary.run(["help", "tmdb"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains(
            "A first word that names no operation is the <title> of search, except one that is one or two letters off an operation's name, "
                + "which is refused as a likely typo. To mean such a word as it is, name the operation ('tmdb search WORD') or put -- before it ('tmdb -- WORD')."))
        #expect(!(try Binary.run(["help", "kiva"]).stdout.contains("likely typo")), "kiva's default operation takes no word")
    }

    @Test func aRealWordNearNoOperationIsStillASearch() throws {
        let output = try Binary.run(["tmdb", "leon", "--offline"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.hasPrefix("Léon: The Professional"), "\(output.stdout)")
    }

    // MARK: - -v and -q

    @Test func shortVerboseAndQuietWork() throws {
        let verbose = try Binary.run(["tmdb", "popular", "--offline", "--limit", "1", "-v"])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("tmdb: → GET "), "\(verbose.stderr)")
        let quiet = try Binary.run(["tmdb", "popular", "--offline", "--limit", "1", "-q"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "no offline note: \(quiet.stderr)")
        let normalize = try Binary.run(["normalize", "tmdb", "popular", "-v"], stdin: #"{"page": 1, "results": [], "total_pages": 1, "total_results": 0}"#)
        #expect(normalize.stderr.contains("tmdb: normalized 1 page from standard input"), "\(normalize.stderr)")
        #expect(try Binary.run(["help", "tmdb"]).stdout.contains("  -v, --verbose "))
        #expect(try Binary.run(["help", "tmdb"]).stdout.contains("  -q, --quiet "))
    }

    @Test(arguments: [
        ["tmdb", "popular", "--offline", "--quiet", "--verbose"],
        ["tmdb", "popular", "--offline", "-q", "-v"],
        ["meetup", "--lat", "1", "--lon", "2", "--offline", "-v", "--quiet"],
    ])
    func quietAndVerboseTogetherAreAUsageError(arguments: [String]) throws {
        let output = try Binary.run(arguments)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(firstLine(output) == "Error: \(arguments[0]): --quiet and --verbose cannot be used together")
        #expect(output.stderr.hasSuffix(Self.usageTail))
    }

    @Test func compareRefusesThemTogetherToo() throws {
        let output = try Binary.run(["compare", "--all", "--offline", "-q", "-v"])
        #expect(output.status == 64)
        #expect(firstLine(output) == "Error: --quiet and --verbose cannot be used together")
        let inherited = try Binary.run(["compare", "tmdb popular -q", "--offline", "--verbose"])
        #expect(inherited.status == 64)
        #expect(firstLine(inherited) == "Error: invocation 1 ('tmdb popular -q'): tmdb: --quiet and --verbose cannot be used together")
    }
}
