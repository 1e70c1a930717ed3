import AggregateCore
import AggregateJSON
import AggregateProviders
import AggregateSandbox
import AggregateSandboxKit
import AggregateScaffold
import Foundation
import Testing
import aggregate

/// The config file, profiles and `aggregate config` through the built binary.
@Suite struct ConfigTests {
    /// A private config folder per test.
    struct Folder {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-config-test-\(UUID().uuidString)")
        var file: URL { home.appendingPathComponent("aggregate/config.json") }
        var environment: [String: String] { ["XDG_CONFIG_HOME": home.path] }

        func write(_ text: String, mode: Int = 0o600) throws {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        }

        func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> Binary.Output {
            try Binary.run(arguments, environment: environment.merging(extra) { _, new in new })
        }
    }

    func itemCount(_ output: Binary.Output) throws -> Int {
        let document = try JSONParser().parse(output.stdout)
        return try #require(document["results"]?[0]?["items"]?.array?.count)
    }

    /// The config file's `allowHTTP` is the same opt-in as `--allow-http`. The run stops at the missing credential,
    /// after the http check and before anything is sent, so no traffic leaves this machine.
    @Test func configAllowHTTPOpensPlainHTTPToALANHostLikeTheFlag() throws {
        let folder = Folder()
        let lan = ["tmdb", "popular", "--base-url", "http://board.lan:3000", "--verbose"]
        let refused = try folder.run(lan)
        #expect(refused.status == 78)
        #expect(refused.stderr.contains(PlainHTTP.refusal(host: "board.lan")))

        try folder.write(#"{"providers": {"tmdb": {"allowHTTP": true}}}"#)
        let allowed = try folder.run(lan)
        #expect(allowed.status == 78)
        #expect(!allowed.stderr.contains("refusing plain http://"))
        #expect(allowed.stderr.contains(PlainHTTP.warning(host: "board.lan")))
        #expect(allowed.stderr.contains("TMDB_ACCESS_TOKEN"), "stopped at the missing credential: \(allowed.stderr)")
        #expect(allowed.stderr.contains("allowHTTP"), "--verbose says where the setting came from")

        try folder.write(#"{"providers": {"tmdb": {"allowHTTP": false}}}"#)
        let flag = try folder.run(lan + ["--allow-http"])
        #expect(flag.stderr.contains(PlainHTTP.warning(host: "board.lan")), "the command line wins over the file")
    }

    @Test func pathFollowsXDGConfigHomeThenHome() throws {
        let folder = Folder()
        #expect(try folder.run(["config", "path"]).stdout == folder.file.path + "\n")
        let home = try Binary.run(["config", "path"], environment: ["HOME": "/home/someone", "XDG_CONFIG_HOME": ""])
        #expect(home.stdout == "/home/someone/.config/aggregate/config.json\n")
        let missing = try folder.run(["config"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: missing action: path, show, get, set or unset\n"))
    }

    @Test func setShowAndUnsetEditTheFileAtomicallyAndShowMasksSecrets() throws {
        let folder = Folder()
        #expect(try folder.run(["config", "set", "providers.kiva.limit", "4"]).status == 0)
        #expect(try folder.run(["config", "set", "profiles.small.defaults.limit", "2"]).status == 0)
        #expect(try folder.run(["config", "set", "providers.tmdb.credentials.TMDB_ACCESS_TOKEN", "secretvalue-123456"]).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: folder.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.file.deletingLastPathComponent().path)
        #expect(leftovers.sorted() == [".config.json.lock", "config.json"], "no temporary file is left behind (the lock stays)")

        let show = try folder.run(["config", "show"])
        #expect(show.status == 0)
        #expect(show.stdout.contains(#""TMDB_ACCESS_TOKEN": "secr…""#))
        #expect(!show.stdout.contains("secretvalue"))
        let shown = try JSONParser().parse(show.stdout)
        #expect(shown["providers"]?["kiva"]?["limit"] == 4)
        #expect(shown["profiles"]?["small"]?["defaults"]?["limit"] == 2)

        #expect(try folder.run(["config", "unset", "providers.tmdb.credentials.TMDB_ACCESS_TOKEN"]).status == 0)
        let after = try JSONParser().parse(String(contentsOf: folder.file, encoding: .utf8))
        #expect(after["providers"]?["tmdb"] == nil, "emptied objects are removed")
        #expect(after["providers"]?["kiva"]?["limit"] == 4)

        let bad = try folder.run(["config", "set", "providers.kiva.limit", "0"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: config: \(folder.file.path): providers.kiva.limit: --limit must be a whole number from 1 to 10000, not '0'\n"))
        let unknown = try folder.run(["config", "set", "providers.kiva.colour", "red"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("providers.kiva.colour: unknown setting; valid: api, baseURL, limit, format, timeout, allowHTTP, cache, cacheTTL, credentials"))
        #expect(try folder.run(["config", "unset", "providers.kiva.nothing"]).status == 64)
        #expect(after == (try JSONParser().parse(String(contentsOf: folder.file, encoding: .utf8))), "failed edits leave the file as it was")
    }

    @Test func precedenceIsCommandLineEnvironmentProfileFileDefaults() throws {
        let folder = Folder()
        try folder.write("""
            {"defaults": {"limit": 5, "format": "csv"},
             "providers": {"kiva": {"limit": 4, "format": "json"}},
             "profiles": {"small": {"defaults": {"limit": 2}}, "three": {"providers": {"kiva": {"limit": 3}}}}}
            """)
        let file = try folder.run(["kiva", "newest", "--offline", "--quiet"])
        #expect(try itemCount(file) == 4, "the provider entry beats the file's defaults")
        #expect(try itemCount(folder.run(["kiva", "newest", "--offline", "--quiet", "--profile", "small"])) == 2)
        #expect(try itemCount(folder.run(["kiva", "newest", "--offline", "--quiet"], ["AGGREGATE_PROFILE": "three"])) == 3)
        #expect(try itemCount(folder.run(["kiva", "newest", "--offline", "--quiet", "--profile", "small"], ["AGGREGATE_PROFILE": "three"])) == 2, "--profile beats AGGREGATE_PROFILE")
        #expect(try itemCount(folder.run(["kiva", "newest", "--offline", "--quiet", "--limit", "1", "--profile", "small"])) == 1)
        let csv = try folder.run(["tmdb", "popular", "--offline", "--quiet"])
        #expect(csv.stdout.hasPrefix("provider,kind,id,title"), "the file's defaults apply to every provider")

        let verbose = try folder.run(["kiva", "newest", "--offline", "--profile", "small", "--verbose", "--format", "text"])
        #expect(verbose.stderr.contains("config: kiva: limit = 2 (profile 'small' (profiles.small.defaults) in \(folder.file.path))\n"))
        #expect(verbose.stderr.contains("config: kiva: format = text (command line)\n"))
        #expect(verbose.stderr.contains("config: kiva: timeout = 15 (built-in default)\n"))

        let missing = try folder.run(["kiva", "newest", "--offline", "--profile", "nope"])
        #expect(missing.status == 78)
        #expect(missing.stderr == "Error: config: no profile 'nope' (from --profile) in \(folder.file.path); profiles: small, three\n")
    }

    @Test func compareUsesTheProfileForEveryInvocation() throws {
        let folder = Folder()
        try folder.write(#"{"profiles": {"two": {"defaults": {"limit": 2}}}}"#)
        let output = try folder.run(["compare", "kiva newest", "tmdb popular", "--offline", "--quiet", "--format", "json", "--profile", "two"])
        #expect(output.status == 0, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["items"]?.array?.count } == [2, 2])
        let malformed = Folder()
        try malformed.write("{")
        let broken = try malformed.run(["compare", "kiva newest", "--offline"])
        #expect(broken.status == 78)
        #expect(broken.stderr.hasPrefix("Error: config: \(malformed.file.path):1:2: "))
    }

    @Test func environmentBaseURLBeatsTheProfileAndTheProfileBeatsTheDefault() throws {
        let folder = Folder()
        try folder.write(#"{"profiles": {"sandbox": {"defaults": {"baseURL": "http://127.0.0.1:9"}}}}"#)
        let fromProfile = try folder.run(["kiva", "newest", "--profile", "sandbox", "--verbose", "--timeout", "1"])
        #expect(fromProfile.stderr.contains("config: kiva: baseURL = http://127.0.0.1:9 (profile 'sandbox'"))
        #expect(fromProfile.stderr.contains("→ POST http://127.0.0.1:9/graphql"))
        let fromEnvironment = try folder.run(
            ["kiva", "newest", "--profile", "sandbox", "--verbose", "--timeout", "1"], ["AGGREGATE_KIVA_BASE_URL": "http://127.0.0.1:7"])
        #expect(fromEnvironment.stderr.contains("config: kiva: baseURL = http://127.0.0.1:7 (environment (AGGREGATE_KIVA_BASE_URL))"))
        #expect(fromEnvironment.stderr.contains("→ POST http://127.0.0.1:7/graphql"))
    }

    @Test func aProfileAndACredentialFromTheFileReachTheSandbox() throws {
        let sandbox = try LoopbackSandbox()
        let token = try #require(try SandboxCatalog(allProviders, sandboxes: allSandboxes).sandbox(named: "tmdb")?.sandboxEnvironment["TMDB_ACCESS_TOKEN"])
        let folder = Folder()
        try folder.write("""
            {"profiles": {"sandbox": {"providers": {"tmdb": {"baseURL": "\(sandbox.url)/tmdb", "limit": 2,
              "credentials": {"TMDB_ACCESS_TOKEN": {"env": "MY_TMDB_TOKEN"}}}}}}}
            """)
        let output = try folder.run(["tmdb", "popular", "--verbose"], ["AGGREGATE_PROFILE": "sandbox", "MY_TMDB_TOKEN": token])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").count == 2)
        #expect(output.stderr.contains("config: tmdb: TMDB_ACCESS_TOKEN = \(token.prefix(4))… (environment (MY_TMDB_TOKEN, named by profile 'sandbox'"))
        #expect(!output.stderr.contains(token) && !output.stdout.contains(token))

        // The same token written in the file: accepted at mode 600, refused (with the fix) at 644.
        let inline = """
            {"providers": {"tmdb": {"baseURL": "\(sandbox.url)/tmdb", "credentials": {"TMDB_ACCESS_TOKEN": "\(token)"}}}}
            """
        try folder.write(inline, mode: 0o600)
        #expect(try folder.run(["tmdb", "popular", "--limit", "1"]).status == 0)
        try folder.write(inline, mode: 0o644)
        let refused = try folder.run(["tmdb", "popular", "--limit", "1"])
        #expect(refused.status == 78)
        #expect(refused.stderr == "Error: config: \(folder.file.path) holds a credential but its mode is 644, readable by others: run chmod 600 \(folder.file.path)\n")
    }

    @Test(arguments: [
        ("{\"defaults\": {\"limit\": 3,}}", ":1:26: "),
        ("{\n  \"providers\": {\n    \"kiva\" {}\n  }\n}", ":3:12: "),
        ("[1, 2", ":1:6: "),
    ])
    func aMalformedFileIsOneLineWithFileLineAndColumn(text: String, position: String) throws {
        let folder = Folder()
        try folder.write(text)
        let output = try folder.run(["kiva", "newest", "--offline"])
        #expect(output.status == 78)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("Error: config: \(folder.file.path)\(position)"), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func invalidSettingsNameTheirKey() throws {
        let folder = Folder()
        try folder.write(#"{"providers": {"kiva": {"api": "v9"}}}"#)
        let output = try folder.run(["kiva", "newest", "--offline"])
        #expect(output.status == 78)
        #expect(output.stderr == "Error: config: \(folder.file.path): providers.kiva.api: --api must be one of graphql, rest, not 'v9'\n")
        try folder.write(#"{"providers": {"kiva": {"api": "rest", "allowHTTP": true}}}"#)
        let verbose = try folder.run(["kiva", "newest", "--offline", "--verbose", "--limit", "1"])
        #expect(verbose.status == 0)
        #expect(verbose.stderr.contains("config: kiva: api = rest (config file"))
        #expect(verbose.stderr.contains("config: kiva: allowHTTP = true (config file"))
        #expect(verbose.stderr.contains("→ GET http://sandbox.localhost/kiva/"), "the REST API was used")
    }

    /// `config set` takes a limit or timeout only as plain decimal text, as the command line does, and says so
    /// (not as a parse error in a file it never wrote).
    @Test func setRefusesNumbersTheCommandLineRefuses() throws {
        let folder = Folder()
        for (key, value, reason) in [
            ("providers.tmdb.timeout", "0x10", "config: providers.tmdb.timeout must be a number, not '0x10'"),
            ("providers.tmdb.timeout", "nan", "config: providers.tmdb.timeout must be a number, not 'nan'"),
            ("defaults.limit", "0x5", "config: defaults.limit must be a number, not '0x5'"),
        ] {
            let output = try folder.run(["config", "set", key, value])
            #expect(output.status == 64)
            #expect(output.stderr.hasPrefix("Error: \(reason)\n"), "\(output.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file.path), "nothing was written")
        #expect(try folder.run(["config", "set", "defaults.limit", "7"]).status == 0)
        #expect(try JSONParser().parse(String(contentsOf: folder.file, encoding: .utf8))["defaults"]?["limit"] == 7)
        // Decimal to a user, not JSON's form: written as the number it is.
        #expect(try folder.run(["config", "set", "defaults.timeout", ".25"]).status == 0)
        #expect(try JSONParser().parse(String(contentsOf: folder.file, encoding: .utf8))["defaults"]?["timeout"] == .number("0.25"))
    }
}
