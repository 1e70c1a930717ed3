import AggregateCore
import AggregateText
import Foundation

/// `aggregate auth status [<provider>...] [--check]`: which credential each provider would use, and whether it works.
enum AuthCommand {
    static let options: [OptionSpec] = [
        OptionSpec("check", arity: .flag, help: "Send one cheap authenticated request per provider: valid, rejected (HTTP 401) or unreachable."),
        OptionSpec("profile", valueName: "NAME", help: "Use this profile of the config file (default: $AGGREGATE_PROFILE)."),
        OptionSpec("timeout", valueName: "SECONDS", help: "The most time one request may take (default: 15)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "auth", summary: "Show which credential each provider uses, and check that it works.",
        usage: "aggregate auth status [<provider>...] [--check] [--profile NAME]",
        arguments: [("<provider>", "The providers to show (default: all).")],
        options: options,
        discussion: """
            For each provider: the variable or config entry that supplies its credential, masked as its first 4 \
            characters and '…', or that it needs none. With --check, each provider's first example runs with --limit 1 \
            against its effective base URL (so a profile or AGGREGATE_<NAME>_BASE_URL pointing at the sandbox checks the \
            sandbox's demo credentials) and says valid, rejected (HTTP 401) or unreachable. Exit status with --check: \
            0 only when every provider checked is valid.
            """)

    /// The outcome for one provider.
    struct Status {
        var provider: String
        /// e.g. `TMDB_ACCESS_TOKEN = eyJh… (environment (TMDB_ACCESS_TOKEN))`, or `needs none`.
        var credential: String
        /// The `--check` verdict, when checked.
        var check: String?
        /// Why it is not usable, for the exit code.
        var problem: AggregateError?
    }

    static func run(_ arguments: [String], context: Context) async -> ExitCode {
        let console = context.console
        let parsed: ParsedArguments
        let names: [String]
        let settings: SettingsSources
        do throws(AggregateError) {
            guard let given = try command.parse(arguments, context: context) else { return .success }
            parsed = given
            guard parsed.positionals.first == "status" else {
                throw AggregateError(.usage, parsed.positionals.isEmpty ? "missing action: use 'aggregate auth status'" : "unknown auth action '\(parsed.positionals[0])'; use status\(DidYouMean.suffix(for: parsed.positionals[0], among: ["status"]))")
            }
            names = parsed.positionals.count > 1 ? Array(parsed.positionals.dropFirst()) : context.registry.names
            for name in names { _ = try context.registry.require(name) }
            if let timeout = parsed.value("timeout") { _ = try CommonOptions.timeout(from: timeout) }
            settings = try SettingsSources(context: context)
            if let profile = parsed.value("profile") { try settings.config.requireProfile(profile, from: "--profile") }
        } catch {
            return Diagnostics.report(error, console: console, usage: command.usage)
        }
        let check = parsed.has("check")
        let statuses = await withTaskGroup(of: (Int, Status).self) { group in
            for (index, name) in names.enumerated() {
                group.addTask {
                    (index, await status(of: name, check: check, parsed: parsed, settings: settings, context: context))
                }
            }
            var statuses = [Status?](repeating: nil, count: names.count)
            for await (index, status) in group { statuses[index] = status }
            return statuses.map { $0! }
        }
        let width = (statuses.map(\.provider.count).max() ?? 0) + 2
        for status in statuses {
            let verdict = status.check.map { " → \($0)" } ?? ""
            console.out(TextLayout.pad(status.provider, to: width) + status.credential + verdict + "\n")
        }
        guard check, let problem = statuses.compactMap(\.problem).first else { return .success }
        return ExitCode(for: problem)
    }

    /// The credential of one provider, and with `check` the verdict of one small request.
    static func status(of name: String, check: Bool, parsed: ParsedArguments, settings: SettingsSources, context: Context) async -> Status {
        let descriptor = context.registry.provider(named: name)!.descriptor
        var arguments = descriptor.examples.first?.arguments ?? [name]
        // The example's own --limit gives way to --limit 1: one small page is enough to see the credential work.
        if let index = arguments.firstIndex(of: "--limit"), index + 1 < arguments.count { arguments.removeSubrange(index...(index + 1)) }
        arguments += ["--limit", "1", "--quiet"]
        if let profile = parsed.value("profile") { arguments += ["--profile", profile] }
        if let timeout = parsed.value("timeout") { arguments += ["--timeout", timeout] }

        let invocation: ProviderInvocation
        do {
            invocation = try ProviderInvocation.parse(arguments, registry: context.registry, settings: settings)
        } catch {
            return Status(provider: name, credential: "cannot check: \(error.message)", problem: error)
        }
        let variables = Set(descriptor.auth.map(\.name))
        let supplied = invocation.common.origins.filter { variables.contains($0.key) && $0.value != "(unset)" }
        let runner = InvocationRunner(context: context, events: { _ in })
        // `configure` is each provider's own rule for which credentials it needs; a config error means missing ones.
        var missing: AggregateError?
        do {
            var query = try runner.query(for: invocation)
            try invocation.provider.configure(&query)
        } catch let error as AggregateError {
            missing = error
        } catch {
            missing = AggregateError(.config, "\(error)", provider: name)
        }
        let credential: String
        if !supplied.isEmpty {
            credential = supplied.map { "\($0.key) = \($0.value) (\($0.source))" }.joined(separator: "; ")
        } else if descriptor.auth.isEmpty {
            credential = "needs none"
        } else if let missing {
            credential = "not set: \(missing.message)"
        } else {
            credential = "needs none (optional: \(descriptor.auth.map(\.name).joined(separator: ", ")), not set)"
        }
        if let missing {
            let verdict = credential.hasPrefix("not set") ? "not checked" : "cannot check: \(missing.message)"
            return Status(provider: name, credential: credential, check: check ? verdict : nil, problem: missing)
        }
        guard check else { return Status(provider: name, credential: credential) }
        guard !invocation.operation.writes else {
            return Status(provider: name, credential: credential, check: "not checked (its example writes)")
        }
        let result = await runner.run(invocation)
        guard let error = result.error else { return Status(provider: name, credential: credential, check: "valid") }
        switch error.kind {
        case .auth:
            return Status(provider: name, credential: credential, check: "rejected" + (error.httpStatus.map { " (HTTP \($0))" } ?? ""), problem: error)
        case .network, .timeout:
            return Status(provider: name, credential: credential, check: "unreachable", problem: error)
        default:
            return Status(provider: name, credential: credential, check: "failed: \(error.message)", problem: error)
        }
    }
}
