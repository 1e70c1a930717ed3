import Foundation

/// A command a provider adds beside its operations, answered locally without its API, e.g.
/// `aggregate twitter archive <path>`, which reads the user's own export.
///
/// The provider declares it (``LocalCommandProvider``); the command line lists it in the provider's help, completes
/// it, parses its options and adds `--format`, `--quiet` and `--help`, and renders what it returns in every format.
/// So the executable names no provider, and a provider's feature lives with the provider.
public struct LocalCommand: Sendable {
    /// The word after the provider's name, e.g. `archive`.
    public var name: String
    /// One sentence for help.
    public var summary: String
    /// The usage line, e.g. `aggregate twitter archive <path> [--since <DATE>]`.
    public var usage: String
    /// The positional arguments, with their help.
    public var arguments: [(name: String, help: String)]
    /// Its own options; the command line adds `--format`, `--quiet` and `--help` after them.
    public var options: [OptionSpec]
    /// Longer help: what it reads, its exit codes, an example.
    public var discussion: String?
    /// Runs it with the parsed arguments.
    public var run: @Sendable (LocalCommandContext) async throws(AggregateError) -> LocalCommandOutcome

    /// Creates a command.
    public init(
        name: String, summary: String, usage: String, arguments: [(name: String, help: String)] = [], options: [OptionSpec] = [],
        discussion: String? = nil, run: @escaping @Sendable (LocalCommandContext) async throws(AggregateError) -> LocalCommandOutcome
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.discussion = discussion
        self.run = run
    }
}

/// What a running ``LocalCommand`` is given by the command line.
public struct LocalCommandContext: Sendable {
    /// The arguments after the command's name, parsed against its options (and `--format`, `--quiet`). A command
    /// that streams NDJSON reads `--format` itself (`OutputFormat(option:)` in `AggregateRendering`).
    public var arguments: ParsedArguments
    /// Whether standard output is a terminal.
    public var outputIsTerminal: Bool
    /// Writes text to standard output as it is.
    public var write: @Sendable (String) -> Void
    /// Writes UTF-8 bytes to standard output as they are (a batch of NDJSON lines), without making them text.
    public var writeBytes: @Sendable (UnsafeRawBufferPointer) -> Void
    /// Starts the status line of a long run (on a terminal's stderr, and not with `--quiet`); `quiet` keeps it off,
    /// e.g. while items stream onto the same terminal.
    public var progress: @Sendable (_ quiet: Bool) -> any LocalCommandProgress

    /// Creates a context.
    public init(
        arguments: ParsedArguments, outputIsTerminal: Bool, write: @escaping @Sendable (String) -> Void,
        writeBytes: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil,
        progress: @escaping @Sendable (_ quiet: Bool) -> any LocalCommandProgress
    ) {
        self.arguments = arguments
        self.outputIsTerminal = outputIsTerminal
        self.write = write
        self.writeBytes = writeBytes ?? { write(String(decoding: $0, as: UTF8.self)) }
        self.progress = progress
    }
}

/// The status line of a local command: redrawn in place on a terminal, cleared by ``finish()``.
public protocol LocalCommandProgress: Sendable {
    /// What it is doing now, e.g. `reading file 2 of 5`.
    func update(phase: String)
    /// How many items it has so far.
    func update(items: Int)
    /// Clears the line; call it before writing results to the terminal it shares.
    func finish()
}

/// How a local command ended.
public enum LocalCommandOutcome: Sendable {
    /// It wrote its output itself (``LocalCommandContext/write``).
    case written
    /// A result for the command line to render in the chosen format, with the provider's text view.
    case result(ProviderResult)
}

/// A provider that adds local commands (``LocalCommand``) beside its operations.
public protocol LocalCommandProvider: Provider {
    /// Its commands, in the order help lists them.
    static var localCommands: [LocalCommand] { get }
}

extension RunnableProvider {
    /// The provider's local commands: a ``LocalCommandProvider``'s, else none.
    public var localCommands: [LocalCommand] { (Self.self as? any LocalCommandProvider.Type)?.localCommands ?? [] }
}
