import AggregateJSON
import Foundation
import Testing

/// `aggregate config set|unset` as a file writer, through the built binary: concurrent runs lose no change, no
/// file of ours is ever readable by others (even with a umask of 0), a run killed mid-write leaves only a private
/// temporary that the next write removes, and a key deeper than any setting is one usage line, not a crash.
@Suite struct ConfigFileSafetyTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-config-safety-\(UUID().uuidString)")
    var folder: URL { home.appendingPathComponent("aggregate") }
    var file: URL { folder.appendingPathComponent("config.json") }

    /// Runs `script` with `sh -c`, the binary as `$BIN` and the config folder under `home`.
    func shell(_ script: String, _ extra: [String: String] = [:]) throws -> (status: Int32, reason: Process.TerminationReason) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = [
            "BIN": Binary.url.path, "XDG_CONFIG_HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path, "SWIFT_BACKTRACE": "enable=no",
        ].merging(extra) { _, new in new }
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason)
    }

    func profiles() throws -> JSONValue? {
        try JSONParser().parse(Data(contentsOf: file))["profiles"]
    }

    func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// The repro: 20 `config set` runs at once used to keep 7 to 9 of the 20 profiles.
    @Test func twentyConcurrentSetsKeepAllTwentyProfiles() throws {
        // All 20 started before any is waited for (processes of their own, as the shell loop's `&` makes them).
        let runs = try (1...20).map { index in
            let process = Process()
            process.executableURL = Binary.url
            process.arguments = ["config", "set", "profiles.c\(index).defaults.limit", "\(index)"]
            process.environment = ["XDG_CONFIG_HOME": home.path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for (index, process) in runs.enumerated() {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "run \(index + 1) exited \(process.terminationStatus)")
        }
        let written = try #require(try profiles()?.object)
        #expect(written.keys.count == 20, "profiles kept: \(written.keys.sorted())")
        for index in 1...20 {
            #expect(written["c\(index)"]?["defaults"]?["limit"] == .int(index))
        }
        #expect(try names() == [".config.json.lock", "config.json"])
    }

    /// A run killed in the middle of writing leaves its partial temporary (`kill -9` left 2-5.6 MB copies, 0644,
    /// that nothing removed): the next write removes such leftovers of a gone writer, in the current form and the
    /// name this command used before, and every file it makes is 0600 although the umask is 0.
    @Test func theNextWriteRemovesWhatAKilledRunLeftAndEveryFileIsPrivate() throws {
        #expect(try shell("umask 000; \"$BIN\" config set profiles.before.defaults.limit 1").status == 0)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let leftovers = [".config.json.\(gone.processIdentifier).0000000000c0ffee.tmp", ".config.json.\(gone.processIdentifier).tmp"]
        for name in leftovers {
            try Data("{\"profiles\": {\"par".utf8).write(to: folder.appendingPathComponent(name))
        }
        #expect(try shell("umask 000; \"$BIN\" config set profiles.after.defaults.limit 2").status == 0)
        #expect(try names() == [".config.json.lock", "config.json"], "the next write removed the abandoned temporaries")
        #expect(try profiles()?["before"]?["defaults"]?["limit"] == 1)
        #expect(try profiles()?["after"]?["defaults"]?["limit"] == 2)
        for name in try names() {
            #expect(try mode(folder.appendingPathComponent(name)) == 0o600, "\(name) is private whatever the umask")
        }
    }

    /// Issue 26's repro: a key of 60,000 parts crashed `config set` (exit 139, the recursion overflowed the stack).
    @Test(arguments: [["set", "KEY", "1"], ["unset", "KEY"], ["get", "KEY"]])
    func aKeyDeeperThanAnySettingIsOneUsageLine(_ words: [String]) throws {
        let key = Array(repeating: "a", count: 60_000).joined(separator: ".")
        let output = try Binary.run(["config"] + words.map { $0 == "KEY" ? key : $0 }, environment: ["XDG_CONFIG_HOME": home.path])
        #expect(output.status == 64)
        let lines = output.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        let error = try #require(lines.first)
        #expect(error.hasPrefix("Error: config: the key 'a.a.a."))
        #expect(error.hasSuffix("' has 60000 parts, but a setting has at most 7 (as in profiles.NAME.providers.tmdb.credentials.TMDB_ACCESS_TOKEN.env)"))
        #expect(error.count < 300, "the key is shown by its start only")
        #expect(!error.contains(file.path), "the key is the problem, not the file")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: aggregate config") == true, "then the usage, as for every usage error: \(output.stderr.prefix(300))")
        #expect(lines.count == 4, "the error line, the usage and its hint: \(output.stderr.prefix(600))")
    }
}
