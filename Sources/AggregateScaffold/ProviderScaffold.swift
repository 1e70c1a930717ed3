public import AggregateCore
import AggregateText
public import Foundation

/// A new provider's name in the three spellings the files need: `hacker-news` (the command-line name),
/// `HackerNews` (the folder and type prefix) and `HACKER_NEWS` (the environment-variable prefix).
public struct ScaffoldName: Sendable, Equatable {
    /// The command-line name, e.g. `hacker-news`.
    public let name: String
    /// The folder and Swift type prefix, e.g. `HackerNews`.
    public let typeName: String
    /// The prefix of its environment variables, e.g. `HACKER_NEWS`.
    public let environmentPrefix: String

    /// Accepts what `aggregate <name>` can be called: a lower-case letter, then lower-case letters, digits and
    /// single inner hyphens, at most 40 characters (the identifier of the definition format).
    public init(validating text: String) throws(AggregateError) {
        let valid = text.count <= 40 && text.first.map { $0.isASCII && $0.isLowercase } == true
            && text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
            && !text.hasSuffix("-") && !text.contains("--")
        guard valid else {
            throw AggregateError(
                .usage, "'\(text)' is not a valid provider name: use a lower-case letter, then lower-case letters, digits or single hyphens (e.g. bookshelf, hacker-news)")
        }
        name = text
        typeName = text.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        environmentPrefix = text.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// The files a new provider is made of, written all at once or not at all.
public struct ScaffoldPlan: Sendable {
    /// Files to create (paths relative to ``root``) and their text; none may exist yet.
    public var created: [(path: String, text: String)] = []
    /// Existing files to replace with new text (the generated umbrella lists).
    public var replaced: [(path: String, text: String)] = []
    /// Where the paths start.
    public var root: URL
    /// What to do next, one line each, for the command to print.
    public var nextSteps: [String] = []

    public init(root: URL) { self.root = root }

    /// Writes every file, or, when one cannot be written, removes the ones already created and restores the
    /// replaced ones, so a failure leaves no partial provider behind.
    public func write() throws(AggregateError) {
        for file in created where FileManager.default.fileExists(atPath: url(file.path).path) {
            throw AggregateError(.usage, "\(url(file.path).path) already exists; not overwriting it")
        }
        var written: [URL] = []
        var restore: [(URL, Data)] = []
        do {
            for file in replaced {
                let target = url(file.path)
                restore.append((target, try Data(contentsOf: target)))
                try Data(file.text.utf8).write(to: target, options: .atomic)
            }
            for file in created {
                let target = url(file.path)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: target, options: .atomic)
                written.append(target)
            }
        } catch {
            for file in written { try? FileManager.default.removeItem(at: file) }
            for (file, data) in restore { try? data.write(to: file, options: .atomic) }
            throw AggregateError(.ioError, "could not write the new provider under \(root.path) (\(FileSystemReason.describe(error))): check the folder's permissions")
        }
    }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}

/// What `aggregate new-provider` makes: a Swift provider in a package checkout, or a provider definition.
public enum ProviderScaffold {
    /// The folder holding `Package.swift` and `Providers/`, or a usage error naming what is missing.
    public static func packageRoot(_ folder: URL) throws(AggregateError) -> URL {
        let manager = FileManager.default
        guard manager.fileExists(atPath: folder.appendingPathComponent("Package.swift").path),
            manager.fileExists(atPath: folder.appendingPathComponent("Providers").path)
        else {
            throw AggregateError(.usage, "\(folder.path) is not the aggregate package (no Package.swift and Providers/ there): run it in a checkout or pass --dir")
        }
        return folder
    }

    /// Refuses a name that a provider or a command already has, or whose folder exists (in any letter case).
    public static func checkUnused(_ name: ScaffoldName, taken: [String], providersFolder: URL?) throws(AggregateError) {
        if taken.contains(name.name) {
            throw AggregateError(.usage, "'\(name.name)' is already a provider or command name: choose another")
        }
        guard let providersFolder else { return }
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: providersFolder.path)) ?? []
        if let existing = folders.first(where: { $0.lowercased() == name.typeName.lowercased() }) {
            throw AggregateError(.usage, "Providers/\(existing) already exists: choose another name")
        }
    }

    /// The Swift provider folders under `Providers/`, sorted.
    public static func swiftProviderFolders(_ providersFolder: URL) -> [String] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: providersFolder.path)) ?? []
        return folders.filter { !$0.hasPrefix(".") && !isDefinitionFolder(providersFolder.appendingPathComponent($0)) }.sorted()
    }

    /// Whether a folder under `Providers/` is a declarative provider, told apart as `Package.swift` does: it holds
    /// `provider.json` and no Swift file (every other folder is a Swift provider with its emulator).
    public static func isDefinitionFolder(_ folder: URL) -> Bool {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.contains("provider.json") && !files.contains { $0.hasSuffix(".swift") }
    }
}

extension ProviderScaffold {
    /// A Swift provider in the package at `packageRoot`: `Providers/<Type>/` (client, emulator, sample, README),
    /// its golden-file test, and the umbrella lists with it added.
    public static func swiftProvider(_ name: ScaffoldName, packageRoot: URL) throws(AggregateError) -> ScaffoldPlan {
        try SwiftProviderTemplate.plan(name, packageRoot: packageRoot)
    }
}
