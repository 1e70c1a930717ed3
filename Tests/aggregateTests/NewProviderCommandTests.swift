import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing

/// `aggregate new-provider`: what it refuses (exit 64, nothing written) and the run-time definition it writes, which
/// works at once without a rebuild.
@Suite struct NewProviderCommandTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-new-provider-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func files(under folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test(arguments: [
        (["new-provider", "Bookshelf"], "not a valid provider name"),
        (["new-provider", "book_shelf"], "not a valid provider name"),
        (["new-provider", "book--shelf"], "not a valid provider name"),
        (["new-provider", "1books"], "not a valid provider name"),
        (["new-provider", "tmdb"], "already a provider or command name"),
        (["new-provider", "github", "--definition"], "already a provider or command name"),
        (["new-provider", "compare"], "already a provider or command name"),
        (["new-provider", "books", "--swift", "--definition"], "choose --swift or --definition"),
        (["new-provider"], "missing <name>"),
        (["new-provider", "books", "extra"], "unexpected argument 'extra'"),
    ])
    func refusesWithExit64AndWritesNothing(_ arguments: [String], _ reason: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try Binary.run(arguments + ["--dir", folder.path])
        #expect(output.status == 64)
        #expect(output.stderr.hasPrefix("Error: "))
        #expect(output.stderr.contains(reason), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        #expect(Self.files(under: folder).isEmpty)
    }

    @Test func swiftModeRefusesAFolderThatIsNotThePackageOrAnExistingProviderFolder() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let notPackage = try Binary.run(["new-provider", "books", "--swift", "--dir", folder.path])
        #expect(notPackage.status == 64)
        #expect(notPackage.stderr.contains("is not the aggregate package"))
        try Data().write(to: folder.appendingPathComponent("Package.swift"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Providers/Books"), withIntermediateDirectories: true)
        let taken = try Binary.run(["new-provider", "books", "--swift", "--dir", folder.path])
        #expect(taken.status == 64)
        #expect(taken.stderr.contains("Providers/Books already exists"))
        #expect(Self.files(under: folder) == ["Package.swift", "Providers", "Providers/Books"])
    }

    /// The run-time definition goes to the config folder by default and is picked up there by the next run.
    @Test func aRunTimeDefinitionWorksOfflineAtOnce() throws {
        let config = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = ["XDG_CONFIG_HOME": config.path, "HOME": config.path]
        let made = try Binary.run(["new-provider", "bookish"], environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(Self.files(under: config.appendingPathComponent("aggregate/providers"))
            == ["bookish-samples", "bookish-samples/search-1.json", "bookish-samples/search-2.json", "bookish.json"])
        #expect(made.stdout.contains("Next steps:"))
        #expect(made.stdout.contains("aggregate bookish search swift --offline\n"))

        let listed = try Binary.run(["providers"], environment: environment)
        #expect(listed.stdout.contains("bookish"))
        let run = try Binary.run(["bookish", "search", "swift", "--offline", "--format", "json", "--limit", "50"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try JSONParser().parse(run.stdout)["results"]?[0])
        let items = try #require(result["items"]?.array)
        #expect(items.count == 11, "the eleven sample records about Swift, over two pages")
        #expect(result["meta"]?["pages"] == 2)
        #expect(items.first?["title"] == "Swift in Practice")
        #expect(items.first?["url"] == "https://bookish.example/records/1")

        let again = try Binary.run(["new-provider", "bookish"], environment: environment)
        #expect(again.status == 64, "the name is taken now: \(again.stderr)")
    }
}

/// SLOW (two scaffolds, one `swift build` and one filtered `swift test` of a whole copy of the package, several
/// minutes, most of a fresh `swift test`): `new-provider --swift` and `new-provider --definition` leave a package that
/// builds and passes the new providers' tests. Runs only with `AGGREGATE_SLOW_TESTS=1` (which `.ci/run` exports), and
/// is reported as skipped, with the reason, otherwise; skipped too when `swift` is not on the PATH.
@Suite(.serialized) struct NewProviderSlowPackageBuildTests {
    /// Whether the slow tests were asked for: `AGGREGATE_SLOW_TESTS` set to anything but empty or `0`.
    static var slowTestsRequested: Bool {
        ProcessInfo.processInfo.environment["AGGREGATE_SLOW_TESTS"].map { !$0.isEmpty && $0 != "0" } ?? false
    }

    /// Runs a tool in `folder`, its output in files so a long build cannot fill a pipe.
    static func run(_ arguments: [String], in folder: URL, timeout: TimeInterval = 3600) throws -> (status: Int32, output: String) {
        let log = folder.appendingPathComponent(".scaffold-test-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try handle.close()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: log)
        return (process.terminationStatus, output)
    }

    static var swiftIsAvailable: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/swift")
        }
    }

    @Test(
        .enabled(if: slowTestsRequested, "slow (builds a copy of the package): set AGGREGATE_SLOW_TESTS=1 to run it, as .ci/run does"),
        .enabled(if: swiftIsAvailable, "swift is not on the PATH"), .timeLimit(.minutes(60)))
    func bothModesBuildAndPassTheirTestsInACopyOfThePackage() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-scaffold-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for entry in ["Package.swift", "Sources", "Providers", "Tests", "Schemas", "docs"] {
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent(entry), to: copy.appendingPathComponent(entry))
        }

        let swiftMode = try Binary.run(["new-provider", "scaffold-swift", "--swift", "--dir", copy.path])
        #expect(swiftMode.status == 0, "\(swiftMode.stderr)")
        #expect(swiftMode.stdout.contains("Providers/ScaffoldSwift/ScaffoldSwiftProvider.swift"))
        let definitionMode = try Binary.run(["new-provider", "scaffold-definition", "--definition", "--dir", copy.path])
        #expect(definitionMode.status == 0, "\(definitionMode.stderr)")
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("Providers/ScaffoldDefinition/provider.json").path))

        let build = try Self.run(["swift", "build", "--build-tests"], in: copy)
        try #require(build.status == 0, "swift build failed:\n\(build.output.suffix(4000))")
        let tests = try Self.run(
            ["swift", "test", "--skip-build", "--filter", "ScaffoldSwiftProviderTests|DefinitionEmbeddingTests|RegistryTests|UmbrellaListTests"], in: copy)
        #expect(tests.status == 0, "swift test failed:\n\(tests.output.suffix(4000))")
        #expect(tests.output.contains("ScaffoldSwiftProviderTests"))

        let binary = copy.appendingPathComponent(".build/debug/aggregate").path
        for name in ["scaffold-swift", "scaffold-definition"] {
            let example = try Self.run([binary, name, "search", "swift", "--offline", "--format", "json", "--quiet"], in: copy, timeout: 120)
            #expect(example.status == 0, "\(name): \(example.output.suffix(2000))")
            let items = try JSONParser().parse(example.output)["results"]?[0]?["items"]?.array ?? []
            #expect(items.count == 11, "\(name): the sample records about Swift, over two pages")
            #expect(items.first?["title"] == "Swift in Practice", "\(name)")
        }
    }
}
