import AggregateJSON
import AggregateTestSupport
import AggregateYAML
import Foundation
import Testing

extension OptionalTool {
    /// PyYAML (the Python module `yaml`), the reference reading the real documents are compared with.
    static let pyyaml = OptionalTool(
        name: "yaml", install: "pip install pyyaml, and point AGGREGATE_PYTHON at that python", isPythonModule: true)
}

/// The real OpenAPI documents in `../shared/api/specs/openapi/` (when that folder exists): they parse fast, and
/// they read as PyYAML reads them.
@Suite struct YAMLRealDocumentTests {
    /// `shared/api/specs/openapi`, beside `shared/api/samples` (found as the other shared-data tests find it).
    static let folder: URL? = {
        guard let samples = TestPaths.sharedSamples else { return nil }
        let folder = samples.deletingLastPathComponent().appendingPathComponent("specs/openapi")
        return FileManager.default.fileExists(atPath: folder.path) ? folder : nil
    }()

    static let documents: [URL] = {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0) }
    }()

    /// PyYAML with the YAML 1.2 core schema's resolvers in place of its YAML 1.1 ones, so `yes`/`no`, `0777`,
    /// `1_000`, `12:30` and dates stay strings as they do for us: the one documented difference is gone and the
    /// readings must be equal.
    static let pythonReader = #"""
        import json, re, sys, yaml
        class Core(yaml.SafeLoader):
            yaml_implicit_resolvers = {}
        def resolver(tag, pattern, first):
            Core.add_implicit_resolver("tag:yaml.org,2002:" + tag, re.compile(pattern), first)
        resolver("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])
        resolver("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF"))
        resolver("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789"))
        resolver("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$", list("-+0123456789."))
        resolver("merge", r"^<<$", ["<"])
        def integer(loader, node):
            text = loader.construct_scalar(node)
            if text.startswith("0o"): return int(text[2:], 8)
            if text.startswith("0x"): return int(text[2:], 16)
            return int(text, 10)
        Core.add_constructor("tag:yaml.org,2002:int", integer)
        Core.add_constructor("tag:yaml.org,2002:bool", lambda loader, node: loader.construct_scalar(node).lower() == "true")
        json.dump(yaml.load(open(sys.argv[1], encoding="utf-8"), Loader=Core), sys.stdout)
        """#

    @Test(arguments: documents)
    func parsesQuickly(document: URL) throws {
        let data = try Data(contentsOf: document)
        let clock = ContinuousClock()
        var value: JSONValue = .null
        let elapsed = try clock.measure { value = try YAMLParser.parse(data) }
        #expect(value["openapi"] != nil || value["swagger"] != nil, "\(document.lastPathComponent) has no openapi key")
        // "Well under a second" in a debug build, on a machine other builds share.
        #expect(elapsed < .seconds(1), "\(document.lastPathComponent) took \(elapsed)")
    }

    @Test(.requires(.pyyaml), arguments: documents)
    func readsAsPyYAMLDoes(document: URL) throws {
        let python = try #require(OptionalTool.pyyaml.path, "PyYAML is required here but not importable")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.pythonReader, document.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let expected = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let reference = try JSONParser().parse(expected)
        let ours = try YAMLParser.parse(try Data(contentsOf: document))
        let difference = JSONComparison.firstDifference(ours, reference)
        #expect(difference == nil, "\(document.lastPathComponent): \(difference ?? "")")
    }
}
