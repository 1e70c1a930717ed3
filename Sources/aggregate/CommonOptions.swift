import AggregateCore
import AggregateHTTP
import AggregateRendering
import Foundation

/// Options every provider command accepts.
struct CommonOptions: Sendable, Equatable {
    var limit = 20
    var limitIsExplicit = false
    var format: OutputFormat = .text
    var offline = false
    var baseURL: String?
    var timeout: TimeInterval = 15
    var verbose = false
    var quiet = false
    var raw = false
    var help = false
    /// `--to FILE`: the SQLite file to keep the items in as well (``SQLItemStore``), or `nil`.
    var to: String?
    /// `--fields`: the item fields to output, or `nil` for the format's usual view.
    var fields: [ItemFieldPath]?
    /// `--sort`: the order to put items in after fetching, or `nil` for the API's order.
    var sort: ItemSort?
    /// `--profile`: the config file's profile to use (else `AGGREGATE_PROFILE`).
    var profile: String?
    /// Whether plain `http://` may go to hosts other than this machine (a LAN server), with a warning.
    ///
    /// The one place the opt-in lands: `--allow-http` or the config file's `allowHTTP` set it, and the run hands it
    /// to the base URL check and to ``FetchOptions/allowHTTP`` (which also covers redirects).
    var allowHTTP = false
    /// Credentials the config file supplies, by the provider's variable name; never printed.
    var configCredentials: [String: String] = [:]
    /// Where each effective setting came from, for `--verbose`.
    var origins: [SettingOrigin] = []
    /// The options given on the command line.
    var given: Set<String> = []
    /// `--no-rate-limit`, `--record DIR` and `--replay DIR` (see ``RunTools``).
    var tools = RunToolOptions()
    /// `--no-cache`, `--refresh` and `--cache-ttl`: how live runs use the disk cache.
    var cache = CacheChoice()
    /// `--color`: whether text output is coloured (``ColorChoice``).
    var color = ColorChoice.auto
    /// `--no-pager`: long text output is written directly (``Pager``).
    var noPager = false

    static let specs: [OptionSpec] = [
        ProviderRunner.Settings.optionSpec("limit"),
        OptionSpec("format", valueName: "FORMAT", help: "Output format: text, json, ndjson, csv or markdown (default: text)."),
        ProviderRunner.Settings.optionSpec("offline"),
        ProviderRunner.Settings.optionSpec("base-url"),
        ProviderRunner.Settings.optionSpec("timeout"),
        ProviderRunner.Settings.optionSpec("allow-http"),
        OptionSpec("verbose", short: "v", arity: .flag, help: "Trace requests, responses and retries on stderr (secrets redacted)."),
        OptionSpec("quiet", short: "q", arity: .flag, help: "Print no notes or progress on stderr (errors are still printed)."),
        OptionSpec("fields", valueName: "FIELDS", help: "Output only these item fields, comma-separated, e.g. title,url,metrics.stars."),
        OptionSpec("sort", valueName: "FIELD", help: "Sort the items after fetching by a field, e.g. createdAt, -createdAt (newest first), title, metrics.<name>."),
        OptionSpec("profile", valueName: "NAME", help: "Use this profile of the config file (default: $AGGREGATE_PROFILE)."),
        OptionSpec("raw", arity: .flag, help: "Print the raw response body instead (several pages as a JSON array)."),
        toSpec,
        ColorChoice.spec, noPagerSpec,
    ] + RunToolOptions.specs + CacheChoice.specs + [
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    /// `--to FILE`, declared apart so that completions can find it and give it file names.
    static let toSpec = OptionSpec(
        "to", valueName: "FILE",
        help: "Also keep the items in the SQLite database FILE (created if missing): a table per operation (e.g. tmdb_search), a row per provider and id, updated by later runs.")

    /// `--no-pager` (``Pager``), declared here so that the options need nothing of the pager itself.
    static let noPagerSpec = OptionSpec("no-pager", arity: .flag, help: "Write long text output directly, not through $AGGREGATE_PAGER, $PAGER or less -FRX.")

    /// The common option `name`, with `help` worded for a command that passes it on (compare).
    static func spec(_ name: String, help: String) -> OptionSpec {
        // Every caller names one of `specs` (compare's help test shows them all); were one not to, it would appear as
        // a plain value option rather than trap.
        var spec = specs.first { $0.name == name } ?? OptionSpec(name, valueName: "VALUE", help: help)
        spec.help = help
        return spec
    }

    /// The options an enclosing command (compare) passes on to each invocation.
    static let inherited: Set<String> = ["limit", "timeout", "profile", "offline", "verbose"]

    /// Whether this run's text output is coloured: `--color` against the terminal's automatic answer.
    func colorOnStdout(_ terminal: Terminal) -> Bool { color.allowsColor(auto: terminal.colorOnStdout) }

    /// Whether this run's stdout may go through the pager: text output (not `--raw`) and no `--no-pager`.
    var mayPage: Bool { format == .text && !raw && !noPager }

    /// Takes what an enclosing command's options (`outer`, e.g. compare's) set and these leave unset, as if given
    /// here: this command line wins, and the config file fills in after both.
    /// - Throws: a `usage` error when the result combines options that exclude each other (`--offline`, `--base-url`;
    ///   an inherited `--verbose` and this `--quiet`).
    mutating func inherit(_ outer: CommonOptions) throws(AggregateError) {
        let taken = outer.given.intersection(Self.inherited).subtracting(given)
        if taken.contains("limit") { (limit, limitIsExplicit) = (outer.limit, true) }
        if taken.contains("timeout") { timeout = outer.timeout }
        if taken.contains("profile") { profile = outer.profile }
        offline = offline || outer.offline
        verbose = verbose || outer.verbose
        try Self.checkQuietAndVerbose(quiet: quiet, verbose: verbose)
        given.formUnion(taken)
        // The cache options go together: an invocation that makes any cache choice keeps all of its own.
        if given.isDisjoint(with: CacheChoice.names) {
            cache = outer.cache
            given.formUnion(outer.given.intersection(CacheChoice.names))
        }
        try runSettings.checkCombination()
    }

    /// Reads the common options out of parsed arguments.
    init(_ parsed: ParsedArguments) throws(AggregateError) {
        help = parsed.has("help")
        offline = parsed.has("offline")
        verbose = parsed.has("verbose")
        quiet = parsed.has("quiet")
        raw = parsed.has("raw")
        allowHTTP = parsed.has("allow-http")
        baseURL = parsed.value("base-url")
        profile = parsed.value("profile")
        to = parsed.value("to")
        given = Set(Self.specs.map(\.name).filter(parsed.has))
        if let text = parsed.value("limit") {
            limit = try Self.limit(from: text)
            limitIsExplicit = true
        }
        if let text = parsed.value("format") {
            format = try Self.format(from: text)
        }
        if let text = parsed.value("timeout") {
            timeout = try Self.timeout(from: text)
        }
        if let text = parsed.value("fields") {
            fields = try ItemFieldPath.list(text)
        }
        if let text = parsed.value("sort") {
            sort = try ItemSort(parsing: text)
        }
        tools = try RunToolOptions(parsed)
        cache = try CacheChoice(parsed)
        color = try ColorChoice(parsed)
        noPager = parsed.has(Self.noPagerSpec.name)
        if raw, fields != nil || sort != nil {
            throw AggregateError(.usage, "--fields and --sort shape items; they cannot be used with --raw")
        }
        // --raw prints response bodies, which are not items: there would be nothing to keep.
        if raw, to != nil {
            throw AggregateError(.usage, "--to keeps the items; it cannot be used with --raw, which prints the response bodies instead")
        }
        if to?.isEmpty == true { throw AggregateError(.usage, "--to needs a file name") }
        try Self.checkQuietAndVerbose(quiet: quiet, verbose: verbose)
        try runSettings.checkCombination()
    }

    /// `--quiet` silences what `--verbose` asks for, so together they are a mistake to point out, not a silent choice.
    static func checkQuietAndVerbose(quiet: Bool, verbose: Bool) throws(AggregateError) {
        if quiet, verbose { throw AggregateError(.usage, "--quiet and --verbose cannot be used together") }
    }

    /// The options that shape the run itself, as the library's ``ProviderRunner`` takes them.
    var runSettings: ProviderRunner.Settings {
        ProviderRunner.Settings(
            limit: limit, limitIsExplicit: limitIsExplicit, offline: offline, baseURL: baseURL, timeout: timeout, allowHTTP: allowHTTP,
            keepsRawBodies: raw)
    }

    // The checks below are shared by the command line and the config file, so both accept the same values.

    /// A `--limit` value: a whole number from 1 to 10000.
    static func limit(from text: String) throws(AggregateError) -> Int { try ProviderRunner.Settings.limit(from: text) }

    /// A `--format` value. `html` is compare's report of several invocations (its charts and coverage map compare
    /// them, and it lists a few items of each), not a rendering of one result, so it is refused with a pointer there.
    static func format(from text: String) throws(AggregateError) -> OutputFormat {
        if text.lowercased() == "html" {
            throw AggregateError(
                .usage, "--format html is for compare, whose report sets invocations side by side (aggregate compare '<invocation>'... --format html); here use one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return try OutputFormat(option: text)
    }

    /// A `--timeout` value: plain decimal seconds from 0.01 to an hour (no hexadecimal, no exponent).
    static func timeout(from text: String) throws(AggregateError) -> TimeInterval { try ProviderRunner.Settings.timeout(from: text) }

    init() {}
}
