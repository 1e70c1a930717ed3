import AggregateCore
import AggregateJSON
import AggregateRendering
import AggregateText
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a credential comes from when the config file supplies it.
enum CredentialSource: Sendable, Equatable {
    /// The value itself, allowed only in a file that is 0600 and owned by the user.
    case value(String)
    /// Another environment variable that holds it.
    case environment(String)
}

/// The settings a config file can give every provider (`defaults`) or one provider (`providers.<name>`), at the top
/// level or inside a profile. `nil` means "not set here".
struct ProviderSettings: Sendable, Equatable {
    var api: String?
    var baseURL: String?
    var limit: Int?
    var format: OutputFormat?
    var timeout: TimeInterval?
    /// Allows plain `http://` to the base URL's host (a LAN server). See ``CommonOptions/allowHTTP``.
    var allowHTTP: Bool?
    /// `false` turns the disk cache off, as `--no-cache` does.
    var cache: Bool?
    /// Seconds answers stay fresh in the disk cache, as `--cache-ttl`.
    var cacheTTL: Int?
    /// By the descriptor's variable name, e.g. `MEETUP_TOKEN`.
    var credentials: [String: CredentialSource] = [:]

    /// The keys a settings object accepts, in the order `config show` and the schema list them.
    static let keys = ["api", "baseURL", "limit", "format", "timeout", "allowHTTP", "cache", "cacheTTL", "credentials"]
}

/// `$XDG_CONFIG_HOME/aggregate/config.json`: defaults per provider, and named profiles of them.
///
/// The shape is documented by `Schemas/config.schema.json`. A file that is not valid JSON, or whose settings are
/// not valid, is a configuration error (exit 78) naming the file and, for syntax, the line and column.
struct ConfigFile: Sendable {
    /// A named set of settings chosen with `--profile NAME` or `AGGREGATE_PROFILE`.
    struct Profile: Sendable, Equatable {
        var defaults = ProviderSettings()
        var providers: [String: ProviderSettings] = [:]
    }

    var url: URL
    /// The file's JSON as read (an empty object when there is no file), for `config show`, `set` and `unset`.
    var document: JSONObject
    var defaults = ProviderSettings()
    var providers: [String: ProviderSettings] = [:]
    var profiles: [String: Profile] = [:]

    /// An empty configuration at `url` (no file there yet).
    init(url: URL) {
        self.url = url
        document = JSONObject()
    }

    /// The file's location: `$XDG_CONFIG_HOME/aggregate/config.json`, else `$HOME/.config/aggregate/config.json`;
    /// `nil` when neither variable is set (then no file is read).
    static func location(environment: [String: String]) -> URL? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("aggregate/config.json")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".config/aggregate/config.json")
        }
        return nil
    }

    /// Reads and checks the config file; a missing file is an empty configuration.
    /// - Throws: a `config` error (exit 78) for a file that cannot be read, is not valid JSON, holds invalid settings,
    ///   or holds a credential value while others may read it.
    static func load(environment: [String: String], registry: ProviderRegistry) throws(AggregateError) -> ConfigFile {
        guard let url = location(environment: environment) else { return ConfigFile(url: URL(fileURLWithPath: "/nonexistent/aggregate/config.json")) }
        return try load(url, registry: registry)
    }

    /// Reads and checks the config file at `url`, as ``load(environment:registry:)``.
    static func load(_ url: URL, registry: ProviderRegistry) throws(AggregateError) -> ConfigFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return ConfigFile(url: url) }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw AggregateError(.config, "config: cannot read \(url.path): check its permissions")
        }
        let config = try parse(data, url: url, registry: registry)
        if config.holdsCredentialValues, let problem = FilePrivacy.problem(with: url) {
            throw AggregateError(.config, "config: \(url.path) holds a credential but \(problem): run chmod 600 \(url.path)")
        }
        return config
    }

    /// Parses and checks a config document.
    static func parse(_ data: Data, url: URL, registry: ProviderRegistry) throws(AggregateError) -> ConfigFile {
        let value: JSONValue
        do {
            value = try JSONParser().parse(data)
        } catch {
            throw AggregateError(.config, "config: \(url.path):\(error.line):\(error.column): \(error.reason); fix the file (see Schemas/config.schema.json)")
        }
        var reader = ConfigReader(url: url, registry: registry)
        return try reader.read(value)
    }

    /// Reads, changes and writes back the file at `url` holding an exclusive lock (`.config.json.lock` beside it,
    /// as the disk cache locks its counts), so runs editing it at the same time do not lose each other's change.
    /// The result is checked as the file would be read, then replaces the file through a temporary that is 0600
    /// from its creation (``FileReplacement``, which also removes what a killed run left).
    /// - Throws: the `change`'s error; `usage` (exit 64) for a result that is not a valid config file; `config`
    ///   (exit 78) when the file cannot be read, locked or written.
    static func update(_ url: URL, registry: ProviderRegistry, _ change: (JSONObject) throws(AggregateError) -> JSONObject) throws(AggregateError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AggregateError(.config, "config: cannot create the folder \(folder.path): \(FileSystemReason.describe(error))")
        }
        let lock = folder.appendingPathComponent(".\(url.lastPathComponent).lock").path
        try FileLock.withLock(lock, failure: { AggregateError(.config, "config: cannot lock \($0.path): \($0.reason)") }) { () throws(AggregateError) in
            let document = try change(try load(url, registry: registry).document)
            let text = JSONWriter(pretty: true).string(.object(document)) + "\n"
            do throws(AggregateError) {
                _ = try parse(Data(text.utf8), url: url, registry: registry)
            } catch {
                throw AggregateError(.usage, error.message)
            }
            do throws(FileFailure) {
                try FileReplacement.replace(url, with: Data(text.utf8), flush: true)
            } catch {
                throw AggregateError(.config, "config: cannot write \(url.path): \(error.reason); check the folder's permissions")
            }
        }
    }

    /// Whether any credential is written in the file itself (which then must be private).
    var holdsCredentialValues: Bool {
        let all = [providers] + profiles.values.map(\.providers)
        return all.contains { $0.values.contains { $0.credentials.values.contains { if case .value = $0 { true } else { false } } } }
    }

    /// The settings layers for `provider`, highest precedence first, each named for `--verbose`:
    /// the profile's provider entry, the profile's defaults, the file's provider entry, the file's defaults.
    func layers(for provider: String, profile: String?) -> [(source: String, settings: ProviderSettings)] {
        var layers: [(String, ProviderSettings)] = []
        if let profile, let chosen = profiles[profile] {
            if let entry = chosen.providers[provider] { layers.append(("profile '\(profile)' (profiles.\(profile).providers.\(provider)) in \(url.path)", entry)) }
            layers.append(("profile '\(profile)' (profiles.\(profile).defaults) in \(url.path)", chosen.defaults))
        }
        if let entry = providers[provider] { layers.append(("config file \(url.path) (providers.\(provider))", entry)) }
        layers.append(("config file \(url.path) (defaults)", defaults))
        return layers
    }

    /// Checks that `name` is a profile of this file.
    func requireProfile(_ name: String, from origin: String) throws(AggregateError) {
        guard profiles[name] == nil else { return }
        let known = profiles.keys.sorted()
        let list = known.isEmpty ? "it defines none" : "profiles: \(known.joined(separator: ", "))"
        throw AggregateError(.config, "config: no profile '\(name)' (from \(origin)) in \(url.path); \(list)")
    }
}

/// Whether a file is private to its owner: mode 0600 (or stricter) and owned by the user running the command.
enum FilePrivacy {
    /// Why the file is not private, or `nil` when it is.
    static func problem(with url: URL) -> String? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return "it cannot be checked" }
        if info.st_uid != getuid() { return "it is owned by another user" }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 { return "its mode is \(String(mode, radix: 8)), readable by others" }
        return nil
    }
}

/// Reads a config document into ``ConfigFile``, naming the key path of the first invalid setting.
private struct ConfigReader {
    var url: URL
    var registry: ProviderRegistry

    func fail(_ path: String, _ message: String) -> AggregateError {
        AggregateError(.config, "config: \(url.path): \(path): \(message)")
    }

    mutating func read(_ value: JSONValue) throws(AggregateError) -> ConfigFile {
        guard let root = value.object else { throw fail("(top level)", "must be a JSON object") }
        var config = ConfigFile(url: url)
        config.document = root
        for member in root.members {
            switch member.key {
            case "$schema": continue
            case "defaults": config.defaults = try settings(member.value, path: "defaults", provider: nil)
            case "providers": config.providers = try providers(member.value, path: "providers")
            case "profiles":
                guard let profiles = member.value.object else { throw fail("profiles", "must be an object of named profiles") }
                for profile in profiles.members {
                    let path = "profiles.\(profile.key)"
                    guard let body = profile.value.object else { throw fail(path, "must be an object with defaults and/or providers") }
                    var chosen = ConfigFile.Profile()
                    for part in body.members {
                        switch part.key {
                        case "defaults": chosen.defaults = try settings(part.value, path: "\(path).defaults", provider: nil)
                        case "providers": chosen.providers = try providers(part.value, path: "\(path).providers")
                        default:
                            throw fail(
                                "\(path).\(part.key)",
                                "unknown key; a profile holds defaults and providers\(DidYouMean.suffix(for: part.key, among: ["defaults", "providers"]))")
                        }
                    }
                    config.profiles[profile.key] = chosen
                }
            default:
                throw fail(
                    member.key,
                    "unknown key; the file holds defaults, providers and profiles\(DidYouMean.suffix(for: member.key, among: ["defaults", "providers", "profiles"]))")
            }
        }
        return config
    }

    func providers(_ value: JSONValue, path: String) throws(AggregateError) -> [String: ProviderSettings] {
        guard let object = value.object else { throw fail(path, "must be an object keyed by provider name") }
        var result: [String: ProviderSettings] = [:]
        for member in object.members {
            guard let provider = registry.provider(named: member.key) else {
                throw fail(
                    "\(path).\(member.key)",
                    "no provider named '\(member.key)'; providers: \(registry.names.joined(separator: ", "))\(DidYouMean.suffix(for: member.key, among: registry.names))")
            }
            result[member.key] = try settings(member.value, path: "\(path).\(member.key)", provider: provider.descriptor)
        }
        return result
    }

    func settings(_ value: JSONValue, path: String, provider: ProviderDescriptor?) throws(AggregateError) -> ProviderSettings {
        guard let object = value.object else { throw fail(path, "must be an object of settings (\(ProviderSettings.keys.joined(separator: ", ")))") }
        var settings = ProviderSettings()
        for member in object.members {
            let key = "\(path).\(member.key)"
            do throws(AggregateError) {
                switch member.key {
                case "api":
                    guard let provider else { throw fail(key, "api differs by provider: set it under providers.<name>") }
                    guard let parameter = provider.options.first(where: { $0.name == "api" }) else {
                        throw fail(key, "\(provider.name) has no --api choice")
                    }
                    settings.api = try parameter.value(from: string(member.value, key)).string
                case "baseURL":
                    let text = try string(member.value, key)
                    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
                        throw fail(key, "'\(text)' is not an http(s) URL")
                    }
                    settings.baseURL = text
                case "limit": settings.limit = try CommonOptions.limit(from: scalarText(member.value, key))
                case "format": settings.format = try CommonOptions.format(from: string(member.value, key))
                case "timeout": settings.timeout = try CommonOptions.timeout(from: scalarText(member.value, key))
                case "allowHTTP":
                    guard case .bool(let flag) = member.value else { throw fail(key, "must be true or false") }
                    settings.allowHTTP = flag
                case "cache":
                    guard case .bool(let flag) = member.value else { throw fail(key, "must be true or false") }
                    settings.cache = flag
                case "cacheTTL": settings.cacheTTL = try CacheChoice.ttl(from: scalarText(member.value, key))
                case "credentials":
                    guard let provider else { throw fail(key, "credentials differ by provider: set them under providers.<name>") }
                    settings.credentials = try credentials(member.value, path: key, provider: provider)
                default:
                    throw fail(key, "unknown setting; valid: \(ProviderSettings.keys.joined(separator: ", "))\(DidYouMean.suffix(for: member.key, among: ProviderSettings.keys))")
                }
            } catch where error.kind == .usage {
                throw fail(key, error.message)
            }
        }
        return settings
    }

    func credentials(_ value: JSONValue, path: String, provider: ProviderDescriptor) throws(AggregateError) -> [String: CredentialSource] {
        guard let object = value.object else { throw fail(path, "must be an object keyed by variable name") }
        let names = provider.auth.map(\.name)
        var result: [String: CredentialSource] = [:]
        for member in object.members {
            let key = "\(path).\(member.key)"
            guard names.contains(member.key) else {
                throw fail(key, names.isEmpty ? "\(provider.name) takes no credentials" : "not a credential of \(provider.name); its variables: \(names.joined(separator: ", "))")
            }
            switch member.value {
            case .string(let secret) where !secret.isEmpty:
                result[member.key] = .value(secret)
            case .object(let reference):
                guard reference.keys == ["env"], let variable = reference["env"]?.string, !variable.isEmpty else {
                    throw fail(key, #"must be {"env": "VARIABLE"} or the value itself"#)
                }
                result[member.key] = .environment(variable)
            default:
                throw fail(key, #"must be {"env": "VARIABLE"} (recommended) or the value itself (only in a file with mode 600)"#)
            }
        }
        return result
    }

    func string(_ value: JSONValue, _ key: String) throws(AggregateError) -> String {
        guard let text = value.string else { throw fail(key, "must be a string") }
        return text
    }

    func scalarText(_ value: JSONValue, _ key: String) throws(AggregateError) -> String {
        switch value {
        case .number(let text), .string(let text): return text
        default: throw fail(key, "must be a number")
        }
    }
}
