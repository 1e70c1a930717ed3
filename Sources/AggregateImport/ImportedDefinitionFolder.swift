public import AggregateJSON
public import AggregateScaffold
public import Foundation

/// What an import produces: a definition with its samples and its report, written as one folder
/// (`provider.json`, `SampleData/<key>-<n>.json`, `import-report.txt`) all at once or not at all.
public struct ImportedDefinition: Sendable {
    /// The provider's name, as `aggregate <name>` calls it.
    public var name: ScaffoldName
    /// The definition without its `samples` member, which ``folderPlan(at:)`` adds from ``samples``.
    public var definition: JSONObject
    /// Per sample key (an operation's name, or `<operation>?<placeholder>=<value>`), its pages, first page first.
    public var samples: [(key: String, pages: [Data])]
    /// What the import mapped, guessed and skipped.
    public var report: ImportReport

    public init(name: ScaffoldName, definition: JSONObject, samples: [(key: String, pages: [Data])] = [], report: ImportReport = ImportReport()) {
        self.name = name
        self.definition = definition
        self.samples = samples
        self.report = report
    }

    /// The file name of the report inside the folder.
    public static let reportFileName = "import-report.txt"

    /// The definition as written, with `samples` naming the sample files.
    public var definitionWithSamples: JSONValue {
        var object = definition
        let files = sampleFiles
        if !files.isEmpty {
            var keys: [String] = []
            var byKey: [String: [JSONValue]] = [:]
            for file in files {
                if byKey[file.key] == nil { keys.append(file.key) }
                byKey[file.key, default: []].append(.string(file.path))
            }
            object["samples"] = .object(JSONObject(keys.map { .init($0, .array(byKey[$0] ?? [])) }))
        }
        return .object(object)
    }

    /// Each sample page's file: `SampleData/search-1.json`; a keyed sample's placeholder value is kept in the name
    /// (`SampleData/repos-owner-octocat-1.json`), made safe for a file system.
    /// A page with the same bytes as an earlier one is that file again (operations answering one schema share their
    /// sample), so a document of thousands of alike operations does not write thousands of alike files.
    var sampleFiles: [(key: String, path: String, data: Data)] {
        var written: [Data: String] = [:]
        return samples.flatMap { sample in
            sample.pages.enumerated().map { index, data in
                let path = written[data] ?? "SampleData/\(Self.fileStem(sample.key))-\(index + 1).json"
                written[data] = path
                return (sample.key, path, data)
            }
        }
    }

    static func fileStem(_ key: String) -> String {
        let safe = key.lowercased().map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber) ? character : "-"
        }
        return String(safe).split(separator: "-").joined(separator: "-")
    }

    /// The files to write under `folder`: none of them may exist yet.
    public func folderPlan(at folder: URL) -> ScaffoldPlan {
        var plan = ScaffoldPlan(root: folder)
        plan.created.append(("provider.json", JSONWriter(pretty: true).string(definitionWithSamples) + "\n"))
        var paths: Set<String> = []
        for file in sampleFiles where paths.insert(file.path).inserted { plan.created.append((file.path, String(decoding: file.data, as: UTF8.self))) }
        plan.created.append((Self.reportFileName, report.text))
        plan.nextSteps = [
            "aggregate check \(folder.appendingPathComponent("provider.json").path)",
            "aggregate --provider-file \(folder.appendingPathComponent("provider.json").path) \(name.name) --help",
        ]
        return plan
    }
}
