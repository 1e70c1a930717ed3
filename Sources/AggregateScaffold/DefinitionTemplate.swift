public import AggregateCore
import AggregateJSON
public import Foundation

/// A new provider as a definition (docs/provider-definitions.md): the same made-up record search as the Swift
/// template, one `search` operation with numbered pages, and two sample pages for the emulator.
enum DefinitionTemplate {
    static let pageSize = 10

    /// `provider.json`; `samplePrefix` is where the samples are, relative to the definition's folder.
    static func definition(_ name: ScaffoldName, samplePrefix: String) -> String {
        let samples = sampleFiles(name).map { "\"\(samplePrefix)\($0.name)\"" }.joined(separator: ", ")
        return """
            {
              "$schema": "https://github.com/aggregate/aggregate/Schemas/provider-definition.schema.json",
              "name": "\(name.name)",
              "displayName": "\(name.typeName)",
              "summary": "Records whose title matches some words.",
              "docsURL": "https://\(name.name).example/docs",
              "baseURL": "https://api.\(name.name).example",
              "auth": [{"variable": "\(name.environmentPrefix)_TOKEN", "in": "bearer", "required": false}],
              "headers": {"Accept": "application/json"},
              "operations": [{
                "name": "search",
                "summary": "Records whose title matches.",
                "kind": "record",
                "parameters": [
                  {"name": "query", "positional": true, "required": true, "valueName": "WORDS", "help": "Words of the title."}
                ],
                "request": {"path": "/api/\(name.name)/search", "query": {"q": "{query}"}},
                "pagination": {"kind": "pageNumber", "parameter": "page", "firstPage": 1, "pageSize": \(pageSize), "totalPagesPath": "total_pages", "totalCountPath": "total_results"},
                "records": "results",
                "item": {
                  "id": "id",
                  "title": "title",
                  "author": "author",
                  "url": ["url", {"template": "https://\(name.name).example/records/{id}"}],
                  "createdAt": "created_at"
                }
              }],
              "errors": {
                "message": ["error.message", "message"],
                "body": {"error": {"code": "{status}", "message": "{message}"}}
              },
              "textView": {"line": "{title}{author? — {author}}"},
              "examples": [{"arguments": ["\(name.name)", "search", "swift"], "summary": "Records about Swift: two pages."}],
              "samples": {"search": [\(samples)]}
            }

            """
    }

    /// The emulator's pages, `search-1.json` and `search-2.json`: the records whose title has "swift", as the API
    /// would answer `q=swift`.
    static func sampleFiles(_ name: ScaffoldName) -> [(name: String, text: String)] {
        let matches = SwiftProviderTemplate.records.filter { $0.title.lowercased().contains("swift") }
        let pages = stride(from: 0, to: matches.count, by: pageSize).map { Array(matches[$0..<min($0 + pageSize, matches.count)]) }
        return pages.enumerated().map { index, records in
            let lines = records.map { record in
                "    {\"id\": \(record.id), \"title\": \(JSONWriter.quoted(record.title)), \"author\": \(JSONWriter.quoted(record.author)), "
                    + "\"url\": \"\(SwiftProviderTemplate.url(name, id: record.id))\", \"created_at\": \"\(record.createdAt)\"}"
            }
            let text = "{\n  \"page\": \(index + 1),\n  \"total_pages\": \(pages.count),\n  \"total_results\": \(matches.count),\n"
                + "  \"results\": [\n" + lines.joined(separator: ",\n") + "\n  ]\n}\n"
            return ("search-\(index + 1).json", text)
        }
    }
}

extension ProviderScaffold {
    /// The folder of run-time definitions: `$XDG_CONFIG_HOME/aggregate/providers`, else
    /// `$HOME/.config/aggregate/providers`; `nil` when neither variable is set.
    public static func runTimeDefinitionFolder(environment: [String: String]) -> URL? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("aggregate/providers") }
        if let home = environment["HOME"], !home.isEmpty { return URL(fileURLWithPath: home).appendingPathComponent(".config/aggregate/providers") }
        return nil
    }

    /// A compiled-in definition: `Providers/<Type>/provider.json`, `SampleData/search-*.json` and a README.
    public static func builtInDefinition(_ name: ScaffoldName, packageRoot: URL) throws(AggregateError) -> ScaffoldPlan {
        let folder = "Providers/\(name.typeName)"
        let json = DefinitionTemplate.definition(name, samplePrefix: "SampleData/")
        let samples = DefinitionTemplate.sampleFiles(name)
        var plan = ScaffoldPlan(root: packageRoot)
        plan.created = [("\(folder)/provider.json", json)]
            + samples.map { ("\(folder)/SampleData/\($0.name)", $0.text) }
            + [("\(folder)/README.md", DefinitionTemplate.readme(name, definition: "provider.json"))]
        do {
            let embedded = DefinitionEmbedding.Folder(name: name.typeName, definition: json, samples: samples.map { ($0.name, $0.text) })
            plan.replaced = try DefinitionEmbedding.files(providersFolder: packageRoot.appendingPathComponent("Providers"), adding: embedded)
        } catch {
            throw AggregateError(.config, "cannot read the package's definitions under \(packageRoot.path)/Providers (\(error)): fix or remove the broken one first")
        }
        plan.nextSteps = [
            "swift build && swift run aggregate \(name.name) search swift --offline    # the example, from the emulator",
            "AGGREGATE_RECORD=1 swift test --filter ProviderExampleTests    # records its example's golden files (read them)",
            "then edit \(folder)/provider.json for the real API (docs/provider-definitions.md)",
        ]
        return plan
    }

    /// A run-time definition in `folder`: `<name>.json` with its samples in `<name>-samples/`; read at start, no
    /// rebuild needed.
    public static func runTimeDefinition(_ name: ScaffoldName, folder: URL) throws(AggregateError) -> ScaffoldPlan {
        var plan = ScaffoldPlan(root: folder)
        plan.created = [("\(name.name).json", DefinitionTemplate.definition(name, samplePrefix: "\(name.name)-samples/"))]
            + DefinitionTemplate.sampleFiles(name).map { ("\(name.name)-samples/\($0.name)", $0.text) }
        let file = folder.appendingPathComponent("\(name.name).json").path
        let provided = runTimeDefinitionFolder(environment: ProcessInfo.processInfo.environment)?.standardizedFileURL == folder.standardizedFileURL
        plan.nextSteps = [
            "aggregate \(name.name) search swift --offline" + (provided ? "" : " --provider-file \(file)"),
            "then edit \(file) for the real API (docs/provider-definitions.md)",
        ]
        return plan
    }
}

extension DefinitionTemplate {
    static func readme(_ name: ScaffoldName, definition: String) -> String {
        """
        # \(name.typeName)

        Made by `aggregate new-provider \(name.name) --definition`: a provider written as a definition
        (`\(definition)`, documented in docs/provider-definitions.md) for a made-up record search, to be turned into
        the real API. `SampleData/search-*.json` are the pages the emulator serves for `--offline`, first page first.

        Credentials: optional `\(name.environmentPrefix)_TOKEN`, sent as a bearer token. Base URL:
        `https://api.\(name.name).example`, overridable with `--base-url` or `AGGREGATE_\(name.environmentPrefix)_BASE_URL`.

        """
    }
}
