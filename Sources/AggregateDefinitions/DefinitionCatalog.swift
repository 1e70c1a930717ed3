public import AggregateCore
import AggregateJSON
import AggregateText
public import Foundation

/// One definition found somewhere, read or not.
public struct LoadedDefinition: Sendable {
    /// What was read, or `nil` when the definition is broken.
    public var definition: ProviderDefinition?
    /// Where it comes from.
    public var origin: ProviderOrigin
    /// The folder its sample paths are relative to (`nil` for compiled-in ones, whose samples are embedded).
    public var folder: URL?
    /// The `Providers/` folder of a compiled-in definition, which keys its embedded samples.
    public var embeddedFolder: String?
    /// The name: the definition's, or the file's stem when the definition could not be read.
    public var name: String
    /// Why it cannot be used (exit 78), when it cannot.
    public var error: AggregateError?
}

/// Finds and reads provider definitions: the compiled-in ones and the run-time files (the config folder,
/// `AGGREGATE_PROVIDER_PATH`, `--provider-file`). A broken one is kept with its error; it fails only when used.
public enum DefinitionCatalog {
    /// The `--provider-file` option, read before the command line is parsed (it changes which providers exist).
    public static let fileOption = "--provider-file"

    /// The run-time definition files, in order: every `*.json` in `$XDG_CONFIG_HOME/aggregate/providers/`
    /// (default `~/.config/...`), then in each folder of `AGGREGATE_PROVIDER_PATH`, then `explicit` files.
    public static func runTimeFiles(environment: [String: String], explicit: [String]) -> [URL] {
        var folders: [URL] = []
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            folders.append(URL(fileURLWithPath: config).appendingPathComponent("aggregate/providers"))
        } else if let home = environment["HOME"], !home.isEmpty {
            folders.append(URL(fileURLWithPath: home).appendingPathComponent(".config/aggregate/providers"))
        }
        for folder in (environment["AGGREGATE_PROVIDER_PATH"] ?? "").split(separator: ":") where !folder.isEmpty {
            folders.append(URL(fileURLWithPath: String(folder)))
        }
        var files: [URL] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            files += names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
        }
        return files + explicit.map { URL(fileURLWithPath: $0) }
    }

    /// `arguments` without the `--provider-file FILE` (or `--provider-file=FILE`) pairs, and the files named.
    /// - Throws: a `usage` error when the option has no file.
    public static func extractFileOptions(_ arguments: [String]) throws(AggregateError) -> (arguments: [String], files: [String]) {
        var rest: [String] = []
        var files: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if argument == fileOption {
                guard index + 1 < arguments.count else { throw AggregateError(.usage, "\(fileOption) needs a FILE") }
                files.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix(fileOption + "=") {
                files.append(String(argument.dropFirst(fileOption.count + 1)))
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return (rest, files)
    }

    /// Reads the compiled-in definitions (`(folder, JSON text)`) and the run-time `files`. A run-time definition
    /// with the name of a provider in `reserved` or of an earlier definition is broken (it may not shadow it).
    public static func load(builtIn: [(folder: String, json: String)], files: [URL], reserved: Set<String>) -> [LoadedDefinition] {
        load(builtIn: builtIn, files: files, reserved: reserved, builtIns: nil)
    }

    /// `builtIns`: the names a run-time file is told are built in (default: `reserved` and the `builtIn` ones).
    private static func load(
        builtIn: [(folder: String, json: String)], files: [URL], reserved: Set<String>, builtIns known: Set<String>?
    ) -> [LoadedDefinition] {
        var loaded: [LoadedDefinition] = []
        var taken = reserved
        for (folder, json) in builtIn {
            var entry = read(Data(json.utf8), label: "Providers/\(folder)/provider.json", origin: .builtInDefinition, folder: nil, stem: folder.lowercased())
            entry.embeddedFolder = folder
            taken.insert(entry.name)
            loaded.append(entry)
        }
        let builtIns = known ?? taken
        for file in files {
            let origin = ProviderOrigin.file(file.path)
            let stem = file.deletingPathExtension().lastPathComponent.lowercased()
            guard let data = FileManager.default.contents(atPath: file.path) else {
                loaded.append(LoadedDefinition(
                    origin: origin, folder: nil, name: stem,
                    error: AggregateError(.config, "\(file.path): cannot be read; check that the file exists and is readable", provider: stem)))
                continue
            }
            var entry = read(data, label: file.path, origin: origin, folder: file.deletingLastPathComponent(), stem: stem)
            if entry.error == nil, taken.contains(entry.name) {
                let what = builtIns.contains(entry.name) ? "a built-in provider" : "defined by an earlier definition file"
                entry.definition = nil
                entry.error = AggregateError(
                    .config, "\(file.path): /name: '\(entry.name)' is already \(what); rename the definition (run-time definitions may not shadow another provider)",
                    provider: entry.name)
            }
            taken.insert(entry.name)
            loaded.append(entry)
        }
        return loaded
    }

    /// As ``load(builtIn:files:reserved:)``, but a compiled-in definition is only named (its top-level `name`, found
    /// by a scan of its tokens) and read in full on first use (``DeferredDefinition``): a run of one provider reads no
    /// other's definition. The run-time `files` are read now, as they may be broken or shadow another provider.
    public static func loadDeferring(
        builtIn: [(folder: String, json: String)], files: [URL], reserved: Set<String>
    ) -> (deferred: [DeferredDefinition], loaded: [LoadedDefinition]) {
        var deferred: [DeferredDefinition] = []
        var loaded: [LoadedDefinition] = []
        var taken = reserved
        for (folder, json) in builtIn {
            let label = "Providers/\(folder)/provider.json"
            if let name = topLevelName(of: json), !name.isEmpty {
                deferred.append(DeferredDefinition(name: name, embeddedFolder: folder, label: label, json: json))
                taken.insert(name)
                continue
            }
            var entry = read(Data(json.utf8), label: label, origin: .builtInDefinition, folder: nil, stem: folder.lowercased())
            entry.embeddedFolder = folder
            taken.insert(entry.name)
            loaded.append(entry)
        }
        return (deferred, loaded + load(builtIn: [], files: files, reserved: taken, builtIns: taken))
    }

    /// The string value of the top-level `name` of the JSON object `json`, found by scanning its tokens (the values
    /// before it are skipped, not parsed); `nil` when there is none or the JSON breaks before it.
    static func topLevelName(of json: String) -> String? {
        let data = Data(json.utf8)
        let reader = JSONEventReader(data: data, chunkSize: max(16, data.count))
        do throws(JSONParseError) {
            guard try reader.nextToken() == .objectStart else { return nil }
            while let token = try reader.nextToken(), token == .key {
                guard try reader.text() == "name" else {
                    try reader.skipValue()
                    continue
                }
                guard try reader.nextToken() == .string else { return nil }
                return try reader.text()
            }
            return nil
        } catch {
            return nil
        }
    }

    /// One definition read from `data`; `label` names it in errors.
    static func read(_ data: Data, label: String, origin: ProviderOrigin, folder: URL?, stem: String) -> LoadedDefinition {
        do {
            var definition = try ProviderDefinition(json: data)
            definition.source = label
            return LoadedDefinition(definition: definition, origin: origin, folder: folder, name: definition.name, error: nil)
        } catch {
            // The name is what the user will type: the definition's own when it can be read, else the file's stem.
            let name = (try? JSONParser().parse(data))?["name"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? stem
            return LoadedDefinition(
                origin: origin, folder: folder, name: name, error: AggregateError(.config, "\(label): \(error)", provider: name))
        }
    }
}

/// A compiled-in definition known by its name and read in full (``ProviderDefinition``) on first use, once.
public final class DeferredDefinition: Sendable {
    /// The definition's `name`.
    public let name: String
    /// The `Providers/` folder, which keys its embedded samples.
    public let embeddedFolder: String
    private let read: Once<Result<ProviderDefinition, AggregateError>>

    init(name: String, embeddedFolder: String, label: String, json: String) {
        self.name = name
        self.embeddedFolder = embeddedFolder
        read = Once {
            do throws(DefinitionProblem) {
                var definition = try ProviderDefinition(json: Data(json.utf8))
                definition.source = label
                return .success(definition)
            } catch {
                return .failure(AggregateError(.config, "\(label): \(error)", provider: name))
            }
        }
    }

    /// The definition, or the `config` error (exit 78) a broken one gives, worded as
    /// ``DefinitionCatalog/load(builtIn:files:reserved:)`` words it.
    public var definition: Result<ProviderDefinition, AggregateError> { read.value }

    /// Whether the definition has been read (for tests that check what a run reads).
    public var isRead: Bool { read.isMade }
}

extension ProviderRegistry {
    /// The Swift providers, the compiled-in definitions (`(folder, provider.json)`) and the run-time definition
    /// `files`. A definition that cannot be used is listed as broken and fails only when used.
    /// - Throws: as ``ProviderRegistry/init(providers:origins:broken:)``.
    public static func withDefinitions(
        swift providers: [any Provider.Type], builtIn: [(folder: String, json: String)], files: [URL]
    ) throws -> ProviderRegistry {
        let (deferred, loaded) = DefinitionCatalog.loadDeferring(builtIn: builtIn, files: files, reserved: Set(providers.map { $0.providerName }))
        return try withDefinitions(swift: providers, deferred: deferred, loaded: loaded)
    }

    /// The Swift providers and the definitions `loaded` (by ``DefinitionCatalog/load(builtIn:files:reserved:)``).
    package static func withDefinitions(
        swift providers: [any Provider.Type], deferred: [DeferredDefinition] = [], loaded: [LoadedDefinition]
    ) throws -> ProviderRegistry {
        // The compiled-in definitions come before the run-time ones, in the order `loaded` would have them.
        // A Swift provider is named by its type (``Provider/providerName``); its descriptor is made when a run uses it.
        var values = providers.map { type in DeferredProvider(name: type.providerName) { .success(type.init()) } } + deferred.map { definition in
            DeferredProvider(name: definition.name) { definition.definition.map { DeclarativeProvider($0) as any RunnableProvider } }
        }
        var origins = Dictionary(providers.map { ($0.providerName, ProviderOrigin.builtInSwift) }, uniquingKeysWith: { first, _ in first })
        for definition in deferred { origins[definition.name] = .builtInDefinition }
        var broken: [BrokenProvider] = []
        for entry in loaded {
            guard let definition = entry.definition else {
                broken.append(BrokenProvider(name: entry.name, origin: entry.origin, error: entry.error ?? AggregateError(.config, "cannot be used")))
                continue
            }
            values.append(DeferredProvider(DeclarativeProvider(definition)))
            origins[definition.name] = entry.origin
        }
        return try ProviderRegistry(entries: values, origins: origins, broken: broken)
    }
}
