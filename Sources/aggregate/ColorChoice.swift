import AggregateCore

/// `--color auto|always|never`, and the one rule that decides whether a stream gets colour.
///
/// The rule, strongest first: `--color never`, then `--color always`, then (auto) `FORCE_COLOR` set to anything but
/// empty or `0` turns colour on, `NO_COLOR` set to anything non-empty turns it off, `TERM=dumb` turns it off, and
/// otherwise colour follows whether the stream is a terminal. `Terminal` asks ``automatic(isTerminal:environment:)``
/// for its auto answer, and commands resolve the option against it with ``allowsColor(auto:)``.
enum ColorChoice: String, Sendable, Equatable, CaseIterable {
    case auto, always, never

    /// The option every command that can colour its output takes.
    static let spec = OptionSpec(
        "color", valueName: "WHEN",
        help: "Colour the output: auto (default: on a terminal, unless NO_COLOR; FORCE_COLOR forces it), always or never.")

    /// Reads a `--color` value.
    /// - Throws: a `usage` error naming the valid values.
    init(option text: String) throws(AggregateError) {
        guard let choice = ColorChoice(rawValue: text) else {
            throw AggregateError(.usage, "--color must be auto, always or never, not '\(text)'")
        }
        self = choice
    }

    /// The `--color` of parsed arguments (`auto` when not given).
    /// - Throws: a `usage` error for a value that is not a choice.
    init(_ parsed: ParsedArguments) throws(AggregateError) {
        guard let text = parsed.value(Self.spec.name) else {
            self = .auto
            return
        }
        try self.init(option: text)
    }

    /// Whether output gets colour, given the automatic answer for its stream (``Terminal/colorOnStdout``).
    func allowsColor(auto: Bool) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto: return auto
        }
    }

    /// The automatic answer for a stream: `FORCE_COLOR` forces colour; else `NO_COLOR` or `TERM=dumb` refuse it; else
    /// colour exactly when the stream is a terminal.
    static func automatic(isTerminal: Bool, environment: [String: String]) -> Bool {
        if let force = environment["FORCE_COLOR"], !force.isEmpty, force != "0" { return true }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return isTerminal && environment["TERM"] != "dumb"
    }
}
