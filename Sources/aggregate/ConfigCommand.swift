import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate config path|show|set KEY VALUE|unset KEY`: read and edit the config file.
enum ConfigCommand {
    static let command = HelpText.Command(
        name: "config", summary: "Show or edit the config file: defaults per provider and named profiles.",
        usage: "aggregate config path | show | set <key> <value> | unset <key>",
        arguments: [
            ("path", "Print where the config file is ($XDG_CONFIG_HOME/aggregate/config.json)."),
            ("show", "Print the config file, with credential values masked."),
            ("set <key> <value>", "Set a dotted key, e.g. providers.tmdb.limit 5, profiles.sandbox.defaults.baseURL http://127.0.0.1:8787, providers.tmdb.credentials.TMDB_ACCESS_TOKEN.env MY_TMDB_TOKEN."),
            ("unset <key>", "Remove a dotted key."),
        ],
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")],
        discussion: """
            Settings: api, baseURL, limit, format, timeout, allowHTTP, cache, cacheTTL, and credentials (per provider). Precedence: \
            command-line options, then environment variables, then the profile (--profile NAME or AGGREGATE_PROFILE), \
            then the file, then built-in defaults; --verbose says where each setting came from. set and unset check \
            the result and write the file atomically with mode 600. The shape is Schemas/config.schema.json.
            """)

    static func run(_ arguments: [String], context: Context) -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard !parsed.positionals.isEmpty else { throw AggregateError(.usage, "missing action: path, show, set or unset") }
            guard let url = ConfigFile.location(environment: context.environment) else {
                throw AggregateError(.config, "config: neither XDG_CONFIG_HOME nor HOME is set, so there is no config file location")
            }
            let words = parsed.positionals
            func expect(_ count: Int, _ usage: String) throws(AggregateError) {
                guard words.count == count else { throw AggregateError(.usage, "config \(words[0]) takes \(usage)") }
            }
            switch words[0] {
            case "path":
                try expect(1, "no arguments")
                context.console.out(url.path + "\n")
            case "show":
                try expect(1, "no arguments")
                let config = try ConfigFile.load(environment: context.environment, registry: context.registry)
                if !FileManager.default.fileExists(atPath: url.path) {
                    context.console.err("note: config: no file at \(url.path) yet; 'aggregate config set KEY VALUE' creates it\n")
                }
                context.console.out(JSONWriter(pretty: true).string(.object(masked(config.document))) + "\n")
            case "set":
                try expect(3, "a key and a value, e.g. 'config set providers.tmdb.limit 5'")
                let config = try ConfigFile.load(environment: context.environment, registry: context.registry)
                let path = try keyPath(words[1])
                var document = config.document
                try set(&document, path[...], value(for: path, text: words[2]))
                try write(document, to: url, registry: context.registry)
            case "unset":
                try expect(2, "a key, e.g. 'config unset providers.tmdb.limit'")
                let config = try ConfigFile.load(environment: context.environment, registry: context.registry)
                var document = config.document
                guard remove(&document, try keyPath(words[1])[...]) else {
                    throw AggregateError(.usage, "config: \(url.path) has no setting \(words[1])")
                }
                try write(document, to: url, registry: context.registry)
            default:
                throw AggregateError(.usage, "unknown config action '\(words[0])'; use path, show, set or unset")
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
        }
    }

    static func keyPath(_ key: String) throws(AggregateError) -> [String] {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else { throw AggregateError(.usage, "config: '\(key)' is not a dotted key such as providers.tmdb.limit") }
        return parts
    }

    /// The typed JSON value for a setting: numbers for limit and timeout, booleans for allowHTTP, text otherwise.
    static func value(for path: [String], text: String) throws(AggregateError) -> JSONValue {
        switch path.last {
        case "limit", "timeout", "cacheTTL":
            // Plain decimal only, as on the command line: other text (0x10, nan) is not a JSON number either.
            // Ranges are checked with the rest of the file, which names the file and the key.
            guard let value = DecimalText.number(text) else {
                throw AggregateError(.usage, "config: \(path.joined(separator: ".")) must be a number, not '\(text)'")
            }
            // Written in JSON's form: `+5`, `.25` and `3.` are decimal to a user but not JSON numbers.
            return .number(JSONNumberFormat.text(for: value))
        case "allowHTTP", "cache":
            guard let flag = Bool(text.lowercased()) else { throw AggregateError(.usage, "config: \(path.last!) must be true or false, not '\(text)'") }
            return .bool(flag)
        default:
            return .string(text)
        }
    }

    static func set(_ object: inout JSONObject, _ path: ArraySlice<String>, _ value: JSONValue) throws(AggregateError) {
        let key = path.first!
        if path.count == 1 {
            object[key] = value
            return
        }
        var inner: JSONObject
        switch object[key] {
        case nil: inner = JSONObject()
        case .object(let existing)?: inner = existing
        default:
            // A credential given as a value becomes a reference when `.env` is set below it, and vice versa.
            inner = JSONObject()
        }
        try set(&inner, path.dropFirst(), value)
        object[key] = .object(inner)
    }

    /// Removes the key at `path` and any objects left empty; `false` when it was not there.
    static func remove(_ object: inout JSONObject, _ path: ArraySlice<String>) -> Bool {
        let key = path.first!
        guard object[key] != nil else { return false }
        if path.count == 1 {
            object[key] = nil
            return true
        }
        guard case .object(var inner)? = object[key], remove(&inner, path.dropFirst()) else { return false }
        object[key] = inner.isEmpty ? nil : .object(inner)
        return true
    }

    /// Checks the new document as the file would be read, then replaces the file atomically (mode 600).
    static func write(_ document: JSONObject, to url: URL, registry: ProviderRegistry) throws(AggregateError) {
        let text = JSONWriter(pretty: true).string(.object(document)) + "\n"
        do {
            _ = try ConfigFile.parse(Data(text.utf8), url: url, registry: registry)
        } catch {
            throw AggregateError(.usage, error.message)
        }
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".config.json.\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw AggregateError(.config, "config: cannot write \(url.path): check the folder's permissions")
        }
    }

    /// The document with every credential value shown as its first 4 characters and `…`.
    static func masked(_ document: JSONObject) -> JSONObject {
        func walk(_ object: JSONObject, inCredentials: Bool) -> JSONObject {
            JSONObject(object.members.map { member in
                switch member.value {
                case .string(let secret) where inCredentials: return .init(member.key, .string(SecretPreview.masked(secret)))
                case .object(let inner): return .init(member.key, .object(walk(inner, inCredentials: member.key == "credentials")))
                default: return member
                }
            })
        }
        return walk(document, inCredentials: false)
    }
}
