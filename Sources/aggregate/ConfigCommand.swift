import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateText
import Foundation

/// `aggregate config path|show|get KEY|set KEY VALUE|unset KEY`: read and edit the config file.
enum ConfigCommand {
    static let command = HelpText.Command(
        name: "config", summary: "Show or edit the config file: defaults per provider and named profiles.",
        usage: "aggregate config path | show | get <key> | set <key> <value> | unset <key>",
        arguments: [
            ("path", "Print where the config file is ($XDG_CONFIG_HOME/aggregate/config.json)."),
            ("show", "Print the config file, with credential values masked."),
            ("get <key>", "Print one dotted key's value (text as it is, the rest as JSON; credential values masked)."),
            ("set <key> <value>", "Set a dotted key, e.g. providers.tmdb.limit 5, profiles.sandbox.defaults.baseURL http://127.0.0.1:8787, providers.tmdb.credentials.TMDB_ACCESS_TOKEN.env MY_TMDB_TOKEN."),
            ("unset <key>", "Remove a dotted key."),
        ],
        options: [OptionSpec("help", short: "h", arity: .flag, help: "Show help information.")],
        discussion: """
            Settings: api, baseURL, limit, format, timeout, allowHTTP, cache, cacheTTL, and credentials (per provider). Precedence: \
            command-line options, then environment variables, then the profile (--profile NAME or AGGREGATE_PROFILE), \
            then the file, then built-in defaults; --verbose says where each setting came from. set and unset hold a lock \
            on the file while they edit it (concurrent runs lose no change), check the result, and write the file \
            atomically through a temporary file that is mode 600 from its creation. The shape is Schemas/config.schema.json.
            """)

    /// The actions, in the order the usage names them.
    static let actions = ["path", "show", "get", "set", "unset"]

    static func run(_ arguments: [String], context: Context) -> ExitCode {
        do throws(AggregateError) {
            guard let parsed = try command.parse(arguments, context: context) else { return .success }
            guard !parsed.positionals.isEmpty else { throw AggregateError(.usage, "missing action: path, show, get, set or unset") }
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
                let key = try ConfigKey(words[1])
                try ConfigFile.update(url, registry: context.registry) { document throws(AggregateError) in
                    try ConfigEditor.set(key, to: words[2], in: document)
                }
            case "unset":
                try expect(2, "a key, e.g. 'config unset providers.tmdb.limit'")
                let key = try ConfigKey(words[1])
                try ConfigFile.update(url, registry: context.registry) { document throws(AggregateError) in
                    guard let edited = ConfigEditor.unset(key, in: document) else {
                        throw AggregateError(.usage, "config: \(url.path) has no setting \(ConfigKey.shown(key.text))")
                    }
                    return edited
                }
            case "get":
                try expect(2, "a key, e.g. 'config get providers.tmdb.limit'")
                let key = try ConfigKey(words[1])
                let config = try ConfigFile.load(url, registry: context.registry)
                guard let value = ConfigEditor.value(at: key, in: masked(config.document)) else {
                    throw AggregateError(.usage, "config: \(url.path) has no setting \(ConfigKey.shown(key.text))")
                }
                // Text as it is, for scripts; numbers, booleans and objects as JSON.
                context.console.out((value.string ?? JSONWriter(pretty: true).string(value)) + "\n")
            default:
                throw AggregateError(
                    .usage, "unknown config action '\(words[0])'; use path, show, get, set or unset\(DidYouMean.suffix(for: words[0], among: actions))")
            }
            return .success
        } catch {
            return Diagnostics.report(error, console: context.console, usage: command.usage)
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
