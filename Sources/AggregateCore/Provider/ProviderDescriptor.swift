import AggregateText
import Foundation

/// Everything a provider tells about itself without running: it feeds `aggregate describe`, the help text,
/// argument parsing, and the tests (every example runs offline in the test suite).
public struct ProviderDescriptor: Sendable {
    /// The command-line name: lower-case, stable, e.g. `meetup`.
    public var name: String
    /// The provider's name for people, e.g. `Meetup`.
    public var displayName: String
    /// One sentence, shown by `aggregate providers`.
    public var summary: String
    /// The API's documentation.
    public var docsURL: String
    /// The API's base URL, or `nil` when the user must give one (e.g. a self-hosted message board).
    public var defaultBaseURL: String?
    /// Extra environment variables that set the base URL, checked after `AGGREGATE_<NAME>_BASE_URL`.
    public var baseURLVariables: [String]
    /// The environment variables that carry credentials, and how they are used.
    public var auth: [AuthVariable]
    /// How the API authenticates, in a few words (shown by `describe` and `compare`).
    public var authStyle: String
    /// How the API pages, in a few words (shown by `describe` and `compare`).
    public var paginationStyle: String
    /// Options that apply to every operation (e.g. `--api`).
    public var options: [Parameter]
    /// The operations; the first is the default.
    public var operations: [ProviderOperation]
    /// Invocations that run offline; the first is the one `compare --all` uses.
    public var examples: [ProviderExample]
    /// What the missing-credentials error says is missing: `credentials` unless the API calls it otherwise.
    public var missingCredentialsNoun: String = "credentials"
    /// Environment variables that are not credentials but change a run (e.g. `TZ`); with ``auth``, the only ones
    /// the provider sees.
    public var settingVariables: [String] = []
    /// The request budgets the API publishes, which the rate limiter keeps to (none: no limiter for this provider).
    public var rateBudgets: [RateBudget] = []
    /// How long its answers stay fresh in the disk cache (``HTTPCacheMiddleware``).
    public var cacheFreshness: CacheFreshness = .standard
    /// The names of the metrics its items may carry (`metrics.<name>`), for `--sort` and `--fields` to offer; an
    /// item has only those the API sent.
    public var metrics: [String] = []

    /// Creates a descriptor.
    public init(
        name: String, displayName: String, summary: String, docsURL: String, defaultBaseURL: String?,
        baseURLVariables: [String] = [], auth: [AuthVariable], authStyle: String, paginationStyle: String,
        options: [Parameter] = [], operations: [ProviderOperation], cacheFreshness: CacheFreshness = .standard, examples: [ProviderExample],
        rateBudgets: [RateBudget] = [], metrics: [String] = []
    ) {
        self.rateBudgets = rateBudgets
        self.metrics = metrics
        self.name = name
        self.displayName = displayName
        self.summary = summary
        self.docsURL = docsURL
        self.defaultBaseURL = defaultBaseURL
        self.baseURLVariables = baseURLVariables
        self.auth = auth
        self.authStyle = authStyle
        self.paginationStyle = paginationStyle
        self.options = options
        self.operations = operations
        self.cacheFreshness = cacheFreshness
        self.examples = examples
    }

    /// The environment variable that overrides the base URL, e.g. `AGGREGATE_MEETUP_BASE_URL`.
    public var baseURLVariable: String { "AGGREGATE_\(name.uppercased())_BASE_URL" }

    /// The operation used when the command line names none.
    public var defaultOperation: ProviderOperation { operations[0] }

    /// The operation called `name`.
    public func operation(named name: String) -> ProviderOperation? { operations.first { $0.name == name } }
}

/// One thing a provider can do, such as `groups` or `search`.
public struct ProviderOperation: Sendable {
    /// The command-line name.
    public var name: String
    /// One sentence.
    public var summary: String
    /// The kind of items it returns (`group`, `loan`, ...).
    public var itemKind: String
    /// Its parameters, positional ones first in order.
    public var parameters: [Parameter]
    /// Whether it changes data on the server (its requests are never retried automatically).
    public var writes: Bool
    /// The most requests a run sends for a limit (`aggregate sql --plan`); by default one request answers.
    public var cost: RequestCost

    /// Creates an operation.
    public init(
        name: String, summary: String, itemKind: String, parameters: [Parameter] = [], writes: Bool = false, cost: RequestCost = RequestCost(pageSize: nil)
    ) {
        self.cost = cost
        self.name = name
        self.summary = summary
        self.itemKind = itemKind
        self.parameters = parameters
        self.writes = writes
    }
}

/// A parameter of an operation or a provider: its name, how it is given, its type, and its help.
public struct Parameter: Sendable, Equatable {
    /// How a parameter appears on the command line.
    public enum Style: Sendable, Equatable {
        /// A value without a name, in order: `aggregate tmdb movie 1930`.
        case positional
        /// `--name value`.
        case option
        /// `--name` alone, meaning true.
        case flag
    }

    /// The type a value must have.
    public enum ValueType: Sendable, Equatable {
        /// Any text (a required one must not be blank).
        case string
        /// A whole number, optionally within a range.
        case integer(ClosedRange<Int>?)
        /// A decimal number, optionally within a range.
        case number(ClosedRange<Double>?)
        /// One of a fixed list of words.
        case choice([String])
        /// A comma-separated list of words from a fixed list.
        case choiceList([String])
        /// True when present (flags).
        case boolean
    }

    /// The name, without dashes: `lat`, `query`.
    public var name: String
    /// How it is given.
    public var style: Style
    /// Its type.
    public var type: ValueType
    /// Whether it must be given.
    public var isRequired: Bool
    /// The value used when it is not given, as it would be typed.
    public var defaultValue: String?
    /// One line of help.
    public var help: String
    /// The placeholder in usage text, e.g. `DEGREES`.
    public var valueName: String
    /// Whether the value `-` means "read the value from standard input" (e.g. `--message -`).
    public var readsStandardInputOnDash: Bool
    /// Whether it is free text, such as a search's words: as an operation's last positional parameter it takes
    /// every word left on the command line, joined with single spaces (`tmdb search the amazing spider-man`), as
    /// gh's search commands do.
    public var isFreeText: Bool

    /// Creates a parameter.
    /// - Parameter freeText: whether it is free text (``isFreeText``); by default, a positional text parameter is.
    ///   Say `false` for a positional one that names a thing, such as a user name, so that a second word is an error.
    public init(
        _ name: String, style: Style = .option, type: ValueType = .string, required: Bool = false,
        default defaultValue: String? = nil, valueName: String? = nil, readsStandardInputOnDash: Bool = false,
        freeText: Bool? = nil, help: String
    ) {
        self.name = name
        self.isFreeText = style == .positional && (freeText ?? (type == .string))
        self.readsStandardInputOnDash = readsStandardInputOnDash
        self.style = style
        self.type = type
        self.isRequired = required
        self.defaultValue = defaultValue
        self.help = help
        self.valueName = valueName ?? name.upperSnakeCased
    }
}

/// An environment variable that carries a credential, declared once: the core reads it, attaches it to requests
/// toward the provider's own origin only, and reports it missing in the one standard error.
public struct AuthVariable: Sendable, Equatable {
    /// The variable, e.g. `MEETUP_API_KEY`.
    public var name: String
    /// How it is sent, e.g. `key= query parameter (API v2)` (for `describe`).
    public var usage: String
    /// How the core sends it, or `nil` when the core never sends it itself.
    public var placement: CredentialPlacement?
    /// Whether a run needs it (or another required variable): without any, the run stops with exit 78.
    public var isRequired: Bool
    /// A few words after the name in the missing-credentials error, e.g. `GraphQL API`.
    public var label: String?
    /// Whether it is another name for the variable declared before it (e.g. `TWITTER_BEARER_TOKEN`).
    public var isAlias: Bool

    /// Creates an auth variable.
    public init(
        _ name: String, usage: String, sent placement: CredentialPlacement? = nil, required isRequired: Bool = false,
        label: String? = nil, aliasOfPrevious isAlias: Bool = false
    ) {
        self.name = name
        self.usage = usage
        self.placement = placement
        self.isRequired = isRequired
        self.label = label
        self.isAlias = isAlias
    }
}

/// An invocation that works offline, shown by `describe` and run by the tests.
///
/// Like SwiftLint's `Example`, it records where it was declared so a failing example points at its line.
public struct ProviderExample: Sendable, CustomStringConvertible {
    /// The arguments after `aggregate`, e.g. `["meetup", "groups", "--lat", "51.509980"]`.
    public var arguments: [String]
    /// What it shows.
    public var summary: String
    /// The file that declares the example.
    public var file: String
    /// The line that declares the example.
    public var line: Int

    /// Creates an example.
    public init(_ arguments: [String], _ summary: String, file: String = #filePath, line: Int = #line) {
        self.arguments = arguments
        self.summary = summary
        self.file = file
        self.line = line
    }

    /// The command as it would be typed, quoting arguments that need it.
    public var commandLine: String {
        (["aggregate"] + arguments).map(shellQuoted).joined(separator: " ")
    }

    public var description: String { commandLine }
}

/// `argument` quoted for a POSIX shell when it needs it.
public func shellQuoted(_ argument: String) -> String {
    let safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/:=@%+"
    if !argument.isEmpty, argument.allSatisfy(safe.contains) { return argument }
    return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
