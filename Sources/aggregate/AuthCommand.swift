import AggregateCore
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate auth status [<provider>...] [--check]`: which credential each provider would use, and whether it works.
enum AuthCommand {
    static let options: [OptionSpec] = [
        OptionSpec("check", arity: .flag, help: "Send one cheap authenticated request per provider: valid, rejected (HTTP 401) or unreachable."),
        OptionSpec("profile", valueName: "NAME", help: "Use this profile of the config file (default: $AGGREGATE_PROFILE)."),
        OptionSpec("timeout", valueName: "SECONDS", help: "The most time one request may take (default: 15)."),
        OptionSpec("format", valueName: "FORMAT", help: "text (default) or json (Schemas/auth-status.schema.json; no credential value, masked or not)."),
        OptionSpec("help", short: "h", arity: .flag, help: "Show help information."),
    ]

    static let command = HelpText.Command(
        name: "auth", summary: "Show which credential each provider uses, and check that it works.",
        usage: "aggregate auth status [<provider>...] [--check] [--profile NAME] [--format text|json]",
        arguments: [("<provider>", "The providers to show (default: all).")],
        options: options,
        discussion: """
            For each provider: the variable or config entry that supplies its credential, masked as its first 4 \
            characters and '…' (a value under 12 characters is not shown at all), or that it needs none. \
            --format json gives the same as one document, with the variables and their sources but no value. With --check, each provider's first example runs with --limit 1 \
            against its effective base URL (so a profile or AGGREGATE_<NAME>_BASE_URL pointing at the sandbox checks the \
            sandbox's demo credentials) and says valid, rejected (HTTP 401) or unreachable. Exit status with --check: \
            0 only when every provider checked is valid.
            """)

    /// The outcome for one provider.
    struct Status {
        var provider: String
        var credential: Credential
        /// The `--check` verdict, when checked.
        var check: Check?
        /// Why it is not usable, for the exit code.
        var problem: AggregateError?
    }

    /// Where a provider's credential comes from.
    enum Credential {
        /// Set: each variable that supplies one, its value masked (``SecretPreview``) and where it came from.
        case set([SettingOrigin])
        /// The provider takes no credential.
        case notNeeded
        /// Optional credentials, none of them set.
        case optionalNotSet([String])
        /// Required and missing: what to set.
        case notSet(String)
        /// The invocation could not even be built, e.g. a broken profile.
        case unknown(String)

        /// e.g. `TMDB_ACCESS_TOKEN = eyJh… (environment (TMDB_ACCESS_TOKEN))`, or `needs none`.
        var text: String {
            switch self {
            case .set(let origins): return origins.map { "\($0.key) = \($0.value) (\($0.source))" }.joined(separator: "; ")
            case .notNeeded: return "needs none"
            case .optionalNotSet(let variables): return "needs none (optional: \(variables.joined(separator: ", ")), not set)"
            case .notSet(let message): return "not set: \(message)"
            case .unknown(let message): return "cannot check: \(message)"
            }
        }
    }

    /// What `--check` found.
    enum Check {
        case valid
        case rejected(httpStatus: Int?)
        case unreachable
        case failed(String)
        /// Not sent: why (`its example writes`), or `nil` when the credential is not set.
        case notChecked(String?)
        case cannotCheck(String)

        var text: String {
            switch self {
            case .valid: return "valid"
            case .rejected(let status): return "rejected" + (status.map { " (HTTP \($0))" } ?? "")
            case .unreachable: return "unreachable"
            case .failed(let message): return "failed: \(message)"
            case .notChecked(let reason): return "not checked" + (reason.map { " (\($0))" } ?? "")
            case .cannotCheck(let message): return "cannot check: \(message)"
            }
        }
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
            if let format = parsed.value("format"), !["text", "json"].contains(format) {
                throw AggregateError(.usage, "--format must be text or json, not '\(format)'")
            }
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
            return statuses.compactMap { $0 }
        }
        if parsed.value("format") == "json" {
            console.out(JSONWriter(pretty: true).string(json(statuses)) + "\n")
        } else {
            let width = (statuses.map(\.provider.count).max() ?? 0) + 2
            for status in statuses {
                let verdict = status.check.map { " → \($0.text)" } ?? ""
                console.out(TextLayout.pad(status.provider, to: width) + status.credential.text + verdict + "\n")
            }
        }
        guard check, let problem = statuses.compactMap(\.problem).first else { return .success }
        return ExitCode(for: problem)
    }

    /// The credential of one provider, and with `check` the verdict of one small request.
    static func status(of name: String, check: Bool, parsed: ParsedArguments, settings: SettingsSources, context: Context) async -> Status {
        guard let descriptor = context.registry.provider(named: name)?.descriptor else {
            // `run` checked every name, so this is only a safeguard.
            return Status(provider: name, credential: .unknown("no provider named '\(name)'"))
        }
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
            return Status(provider: name, credential: .unknown(error.message), problem: error)
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
        let credential: Credential
        if !supplied.isEmpty {
            credential = .set(supplied)
        } else if descriptor.auth.isEmpty {
            credential = .notNeeded
        } else if let missing {
            credential = .notSet(missing.message)
        } else {
            credential = .optionalNotSet(descriptor.auth.map(\.name))
        }
        if let missing {
            let verdict: Check
            if case .notSet = credential { verdict = .notChecked(nil) } else { verdict = .cannotCheck(missing.message) }
            return Status(provider: name, credential: credential, check: check ? verdict : nil, problem: missing)
        }
        guard check else { return Status(provider: name, credential: credential) }
        guard !invocation.operation.writes else {
            return Status(provider: name, credential: credential, check: .notChecked("its example writes"))
        }
        let result = await runner.run(invocation)
        guard let error = result.error else { return Status(provider: name, credential: credential, check: .valid) }
        switch error.kind {
        case .auth:
            return Status(provider: name, credential: credential, check: .rejected(httpStatus: error.httpStatus), problem: error)
        case .network, .timeout:
            return Status(provider: name, credential: credential, check: .unreachable, problem: error)
        default:
            return Status(provider: name, credential: credential, check: .failed(error.message), problem: error)
        }
    }
}

// MARK: - --format json

extension AuthCommand {
    /// The statuses as `Schemas/auth-status.schema.json` describes them. Credentials appear by variable name and
    /// source only: no value, not even the masked preview the text shows.
    static func json(_ statuses: [Status]) -> JSONValue {
        .object([
            "schemaVersion": 1,
            "providers": .array(statuses.map { .object(json($0)) }),
        ])
    }

    private static func json(_ status: Status) -> JSONObject {
        var object: JSONObject = ["provider": .string(status.provider)]
        switch status.credential {
        case .set(let origins):
            object.set("credential", "set")
            object.set("variables", .array(origins.map { .object(["name": .string($0.key), "source": .string($0.source)]) }))
        case .notNeeded:
            object.set("credential", "notNeeded")
        case .optionalNotSet(let variables):
            object.set("credential", "optionalNotSet")
            object.set("optional", .array(variables.map(JSONValue.string)))
        case .notSet(let message):
            object.set("credential", "notSet")
            object.set("message", .string(message))
        case .unknown(let message):
            object.set("credential", "unknown")
            object.set("message", .string(message))
        }
        if let check = status.check { object.set("check", .object(json(check))) }
        return object
    }

    private static func json(_ check: Check) -> JSONObject {
        switch check {
        case .valid: return ["verdict": "valid"]
        case .rejected(let status):
            var object: JSONObject = ["verdict": "rejected"]
            object.set("httpStatus", status.map(JSONValue.int))
            return object
        case .unreachable: return ["verdict": "unreachable"]
        case .failed(let message): return ["verdict": "failed", "message": .string(message)]
        case .notChecked(let reason):
            var object: JSONObject = ["verdict": "notChecked"]
            object.set("message", reason.map(JSONValue.string))
            return object
        case .cannotCheck(let message): return ["verdict": "cannotCheck", "message": .string(message)]
        }
    }
}
