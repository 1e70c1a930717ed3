import AggregateCore
import AggregateJSON
import AggregateRendering
import Foundation

/// Where one effective setting came from, as `--verbose` prints it.
struct SettingOrigin: Sendable, Equatable {
    var key: String
    /// The value as shown (credentials masked).
    var value: String
    var source: String

    /// `config: meetup: limit = 5 (profile 'sandbox' (profiles.sandbox.defaults) in /home/me/.config/aggregate/config.json)`
    func line(provider: String) -> String { "config: \(provider): \(key) = \(value) (\(source))\n" }
}

extension CommonOptions {
    /// Fills what the command line left unset, by precedence: command line, then environment, then the profile,
    /// then the file, then built-in defaults; and records where each setting came from.
    /// - Parameters:
    ///   - layers: the config file's layers for this provider, highest first (``ConfigFile/layers(for:profile:)``).
    ///   - environment: the process environment.
    ///   - descriptor: the provider's descriptor (its base URL and credential variables).
    mutating func applySettings(
        layers: [(source: String, settings: ProviderSettings)], environment: [String: String], descriptor: ProviderDescriptor
    ) {
        func fromLayers<T>(_ key: KeyPath<ProviderSettings, T?>) -> (value: T, source: String)? {
            for layer in layers { if let value = layer.settings[keyPath: key] { return (value, layer.source) } }
            return nil
        }
        var origins: [SettingOrigin] = []
        let commandLine = "command line"
        let builtIn = "built-in default"

        if given.contains("limit") {
            origins.append(SettingOrigin(key: "limit", value: String(limit), source: commandLine))
        } else if let (value, source) = fromLayers(\.limit) {
            limit = value
            limitIsExplicit = true
            origins.append(SettingOrigin(key: "limit", value: String(value), source: source))
        } else {
            origins.append(SettingOrigin(key: "limit", value: String(limit), source: builtIn))
        }

        if given.contains("format") {
            origins.append(SettingOrigin(key: "format", value: format.rawValue, source: commandLine))
        } else if let (value, source) = fromLayers(\.format) {
            format = value
            origins.append(SettingOrigin(key: "format", value: value.rawValue, source: source))
        } else {
            origins.append(SettingOrigin(key: "format", value: format.rawValue, source: builtIn))
        }

        if given.contains("timeout") {
            origins.append(SettingOrigin(key: "timeout", value: JSONNumberFormat.text(for: timeout), source: commandLine))
        } else if let (value, source) = fromLayers(\.timeout) {
            timeout = value
            origins.append(SettingOrigin(key: "timeout", value: JSONNumberFormat.text(for: value), source: source))
        } else {
            origins.append(SettingOrigin(key: "timeout", value: JSONNumberFormat.text(for: timeout), source: builtIn))
        }

        if offline {
            origins.append(SettingOrigin(key: "baseURL", value: "(the bundled sandbox)", source: "--offline"))
        } else if let baseURL {
            origins.append(SettingOrigin(key: "baseURL", value: baseURL, source: commandLine))
        } else if let (variable, value) = ([descriptor.baseURLVariable] + descriptor.baseURLVariables).lazy
            .compactMap({ name in environment[name].flatMap { $0.isEmpty ? nil : (name, $0) } }).first
        {
            origins.append(SettingOrigin(key: "baseURL", value: value, source: "environment (\(variable))"))
        } else if let (value, source) = fromLayers(\.baseURL) {
            baseURL = value
            origins.append(SettingOrigin(key: "baseURL", value: value, source: source))
        } else {
            origins.append(SettingOrigin(key: "baseURL", value: descriptor.defaultBaseURL ?? "(none)", source: builtIn))
        }

        if given.contains("allow-http") {
            origins.append(SettingOrigin(key: "allowHTTP", value: "true", source: commandLine))
        } else if let (value, source) = fromLayers(\.allowHTTP) {
            allowHTTP = value
            origins.append(SettingOrigin(key: "allowHTTP", value: String(value), source: source))
        }

        // The cache: --no-cache, --refresh or --cache-ttl on the command line turn it on or off whatever the file says.
        if given.contains("no-cache") || given.contains("refresh") || given.contains("cache-ttl") {
            origins.append(SettingOrigin(key: "cache", value: String(!cache.disabled), source: commandLine))
        } else if let (value, source) = fromLayers(\.cache) {
            cache.disabled = !value
            origins.append(SettingOrigin(key: "cache", value: String(value), source: source))
        }
        if given.contains("cache-ttl") {
            origins.append(SettingOrigin(key: "cacheTTL", value: String(Int(cache.ttl ?? 0)), source: commandLine))
        } else if !cache.disabled, let (value, source) = fromLayers(\.cacheTTL) {
            cache.ttl = TimeInterval(value)
            origins.append(SettingOrigin(key: "cacheTTL", value: String(value), source: source))
        }

        for variable in descriptor.auth.map(\.name) {
            if let value = environment[variable], !value.isEmpty {
                origins.append(SettingOrigin(key: variable, value: SecretPreview.masked(value), source: "environment (\(variable))"))
                continue
            }
            guard let (layer, credential) = layers.lazy.compactMap({ layer in layer.settings.credentials[variable].map { (layer, $0) } }).first else {
                continue
            }
            switch credential {
            case .environment(let other):
                guard let value = environment[other], !value.isEmpty else {
                    origins.append(SettingOrigin(key: variable, value: "(unset)", source: "\(layer.source) names \(other), which is not set"))
                    continue
                }
                configCredentials[variable] = value
                origins.append(SettingOrigin(key: variable, value: SecretPreview.masked(value), source: "environment (\(other), named by \(layer.source))"))
            case .value(let value):
                configCredentials[variable] = value
                origins.append(SettingOrigin(key: variable, value: SecretPreview.masked(value), source: layer.source))
            }
        }
        self.origins = origins
    }

    /// The environment a provider sees: the process environment plus the credentials the config file supplies
    /// (which never replace a variable that is set).
    func providerEnvironment(_ environment: [String: String]) -> [String: String] {
        var merged = environment
        for (variable, value) in configCredentials where environment[variable]?.isEmpty ?? true { merged[variable] = value }
        return merged
    }
}

/// How a credential is shown to the user: its first 4 characters, then `…`. A value under 12 characters, which 4
/// characters would give away too much of, is not shown at all, but said to be set: a bare `…` read as if empty.
enum SecretPreview {
    static func masked(_ secret: String) -> String {
        secret.count >= 12 ? String(secret.prefix(4)) + "…" : "(hidden: under 12 characters)"
    }
}

/// What fills the settings a command line leaves unset: the config file, the chosen profile and the environment.
struct SettingsSources: Sendable {
    var config: ConfigFile
    var environment: [String: String]

    /// Loads the config file the context's environment points at.
    /// - Throws: a `config` error (exit 78) for a malformed or unsafe file.
    init(context: Context) throws(AggregateError) {
        config = try ConfigFile.load(environment: context.environment, registry: context.registry)
        environment = context.environment
    }

    init(config: ConfigFile, environment: [String: String]) {
        self.config = config
        self.environment = environment
    }

    /// The profile in use: `--profile`, else `AGGREGATE_PROFILE`, else none.
    func profile(commandLine: String?) throws(AggregateError) -> String? {
        if let commandLine {
            try config.requireProfile(commandLine, from: "--profile")
            return commandLine
        }
        if let name = environment["AGGREGATE_PROFILE"], !name.isEmpty {
            try config.requireProfile(name, from: "AGGREGATE_PROFILE")
            return name
        }
        return nil
    }

    /// The config layers for `provider` under the profile in use, highest precedence first.
    func layers(for provider: String, profile commandLine: String?) throws(AggregateError) -> [(source: String, settings: ProviderSettings)] {
        config.layers(for: provider, profile: try profile(commandLine: commandLine))
    }
}
