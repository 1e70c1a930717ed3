import AggregateCore
import AggregateJSON
import AggregateTestSupport
import Foundation
import Testing
import aggregate

/// `github` and `hackernews`, written only as definitions, through the CLI: offline and against the sandbox over
/// loopback (the live code path), in every output format, in `describe`, in `compare`, with the APIs' errors.
@Suite(.serialized) struct DefinitionProvidersCLITests {
    func items(_ output: CLIHarness.Output) throws -> [JSONValue] {
        try #require(try JSONParser().parse(output.stdout)["results"]?[0]?["items"]?.array)
    }

    func result(_ output: CLIHarness.Output) throws -> JSONValue {
        try #require(try JSONParser().parse(output.stdout)["results"]?[0])
    }

    @Test(arguments: ["github", "hackernews"])
    func everyFormatWorksOffline(_ name: String) async throws {
        let harness = CLIHarness()
        let json = await harness.run([name, "search", "swift", "--offline", "--format", "json", "--limit", "5"])
        #expect(json.code == .success, "\(json.stderr)")
        let items = try items(json)
        #expect(items.count == 5)
        let text = await harness.run([name, "search", "swift", "--offline", "--limit", "5"])
        #expect(text.code == .success)
        #expect(text.stdout.split(separator: "\n").count == 5, "one line per item:\n\(text.stdout)")
        #expect(text.stdout.hasPrefix(items[0]["title"]?.string ?? "?"))
        let ndjson = await harness.run([name, "search", "swift", "--offline", "--format", "ndjson", "--limit", "5"])
        #expect(ndjson.stdout.split(separator: "\n").count == 5)
        let csv = await harness.run([name, "search", "swift", "--offline", "--format", "csv", "--limit", "5"])
        let rows = csv.stdout.split(separator: "\r\n")
        #expect(rows.first?.hasPrefix("provider,kind,id,title,") == true)
        #expect(rows.count == 6, "a header and five rows")
        let markdown = await harness.run([name, "search", "swift", "--offline", "--format", "markdown", "--limit", "5"])
        #expect(markdown.code == .success)
        #expect(markdown.stdout.contains("| \(name) |"))
    }

    @Test func githubItemsCarryTheRepositoryFields() async throws {
        let output = await CLIHarness().run(["github", "search", "swift", "--offline", "--format", "json", "--limit", "40"])
        let result = try result(output)
        let items = try #require(result["items"]?.array)
        #expect(items.count == 40)
        #expect(result["meta"]?["pages"] == 2, "the second page through the Link header")
        #expect(result["meta"]?["totalCount"] == 59, "the repositories that mention swift")
        let first = try #require(items.first)
        #expect(first["kind"] == "repository")
        #expect(first["id"] == "612000000")
        #expect(first["title"] == "swiftlang/swift-argument-kit")
        #expect(first["author"] == "swiftlang")
        #expect(first["url"] == "https://github.com/swiftlang/swift-argument-kit")
        #expect(first["metrics"]?["stars"] != nil && first["metrics"]?["forks"] != nil && first["metrics"]?["openIssues"] != nil)
        #expect(first["tags"] == ["swift", "cli", "argument-parser"])
        #expect(first["extra"]?["license"] == "MIT")
        #expect(first["extra"]?["language"] == "Swift")
        let list = try #require(items.first { $0["title"]?.string?.hasSuffix("/awesome-swift-server") == true })
        #expect(list["extra"]?["language"] == nil, "a null language is left out")
        #expect(list["extra"]?["license"] == "CC0-1.0")
        let unlicensed = try #require(items.first { $0["title"]?.string?.hasSuffix("/taylor-swift-lyrics-dataset") == true })
        #expect(unlicensed["extra"]?["license"] == nil, "a null license is left out")
        #expect(unlicensed["tags"] == ["dataset", "nlp"])
    }

    /// `--sort stars|forks|updated` is GitHub's own order (sent as `sort=`); a field keeps the common local sort.
    @Test func githubsSortWordsGoToTheAPIAndFieldsSortLocally() async throws {
        let sandbox = try LoopbackSandbox()
        let harness = CLIHarness(environment: ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github"])
        let api = await harness.run(["github", "search", "swift", "--sort", "stars", "--order", "asc", "--format", "json", "--verbose"])
        #expect(api.code == .success, "\(api.stderr)")
        #expect(api.stderr.contains("/github/search/repositories?q=swift&sort=stars&order=asc&per_page=30"), "\(api.stderr)")
        #expect(try result(api)["meta"]?["sortedLocally"] == nil)
        let local = await harness.run(["github", "search", "swift", "--sort", "-createdAt", "--format", "json", "--verbose"])
        #expect(local.code == .success)
        #expect(!local.stderr.contains("sort="), "a field is not sent to GitHub")
        #expect(try result(local)["meta"]?["sortedLocally"] == "-createdAt")
        let dates = try items(local).compactMap { $0["createdAt"]?.string }
        #expect(dates == dates.sorted(by: >))
    }

    @Test func hackerNewsTellsStoriesFromCommentsAndDecodesTheirText() async throws {
        let output = await CLIHarness().run(["hackernews", "search", "swift", "--offline", "--format", "json", "--limit", "34"])
        let result = try result(output)
        let items = try #require(result["items"]?.array)
        #expect(items.count == 34)
        #expect(result["meta"]?["pages"] == 2)
        #expect(Set(items.compactMap { $0["kind"]?.string }) == ["story", "comment"])
        let ask = try #require(items.first { ($0["title"]?.string ?? "").hasPrefix("Ask HN: Is server-side Swift") && $0["kind"] == "story" })
        #expect(ask["url"] == .string("https://news.ycombinator.com/item?id=\(ask["id"]?.string ?? "")"), "an Ask HN post links to its own page")
        #expect(ask["summary"]?.string?.contains("I've been writing iOS apps") == true)
        #expect(ask["summary"]?.string?.contains("&#x27;") == false)
        let comment = try #require(items.first { $0["kind"] == "comment" })
        #expect(comment["title"] == "Ask HN: Is server-side Swift viable in 2026?", "a comment is titled by its story")
        #expect(comment["url"] == .string("https://news.ycombinator.com/item?id=\(comment["id"]?.string ?? "")"))
        #expect(comment["metrics"]?["points"] == nil)
        let poll = try #require(items.first { ($0["title"]?.string ?? "").hasPrefix("Poll:") })
        #expect(poll["kind"] == "story", "a poll is a story")
    }

    @Test(arguments: ["github", "hackernews"])
    func describeDocumentsTheDefinition(_ name: String) async throws {
        let output = await CLIHarness().run(["describe", name])
        #expect(output.code == .success)
        #expect(output.stdout.contains("search"))
        #expect(output.stdout.contains("aggregate \(name) search swift"))
        #expect(output.stdout.contains(name == "github" ? "GITHUB_TOKEN" : "--by-date"))
    }

    @Test func compareRunsBothDefinitionsOffline() async throws {
        let output = await CLIHarness().run(["compare", "github search swift", "hackernews search swift", "--offline", "--format", "json"])
        #expect(output.code == .success, "\(output.stderr)")
        let results = try #require(try JSONParser().parse(output.stdout)["results"]?.array)
        #expect(results.map { $0["provider"] } == ["github", "hackernews"])
        #expect(results.allSatisfy { $0["status"] == "ok" && ($0["items"]?.array?.isEmpty == false) })
    }

    // MARK: Against the sandbox over loopback

    @Test func bothAnswerFromTheSandboxAsTheyDoOffline() async throws {
        let sandbox = try LoopbackSandbox()
        for (name, limit, pages) in [("github", 40, 2), ("hackernews", 30, 2)] {
            let environment = ["AGGREGATE_\(name.uppercased())_BASE_URL": sandbox.url + "/" + name]
            let live = await CLIHarness(environment: environment).run([name, "search", "swift", "--limit", String(limit), "--format", "json"])
            #expect(live.code == .success, "\(name): \(live.stderr)")
            let offline = await CLIHarness().run([name, "search", "swift", "--offline", "--limit", String(limit), "--format", "json"])
            #expect(try items(live) == (try items(offline)))
            #expect(try result(live)["meta"]?["pages"] == .int(pages))
            #expect(try result(live)["meta"]?["source"] == "live")
            for format in ["text", "ndjson", "csv", "markdown"] {
                let arguments = [name, "search", "swift", "--limit", String(limit), "--format", format]
                let liveOutput = await CLIHarness(environment: environment).run(arguments)
                let offlineOutput = await CLIHarness().run(arguments + ["--offline"])
                #expect(liveOutput.code == .success, "\(name) \(format): \(liveOutput.stderr)")
                #expect(!liveOutput.stdout.isEmpty)
                #expect(liveOutput.stdout == offlineOutput.stdout, "\(name) \(format): the live path prints what --offline prints")
            }
        }
    }

    @Test func aGitHubRateLimitFromTheSandboxSaysWhenItResets() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=403; path=/github/"])
        let output = await CLIHarness(environment: ["AGGREGATE_GITHUB_BASE_URL": sandbox.url + "/github", "TZ": "UTC"])
            .run(["github", "search", "swift"])
        #expect(output.code == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("Error: github: rate limited (HTTP 403)"), "\(output.stderr)")
        #expect(output.stderr.contains("resets at "))
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func aHackerNewsServerErrorIsOneLineInItsWords() async throws {
        let sandbox = try LoopbackSandbox(faults: ["status=400; path=/hackernews/"])
        let output = await CLIHarness(environment: ["AGGREGATE_HACKERNEWS_BASE_URL": sandbox.url + "/hackernews"])
            .run(["hackernews", "search", "swift"])
        #expect(output.code == .failure)
        #expect(output.stderr.hasPrefix("Error: hackernews: "), "\(output.stderr)")
        #expect(output.stderr.contains("(HTTP 400)"))
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    /// A copy of the GitHub definition renamed `gh2`, dropped into the config folder: listed and usable against the
    /// sandbox with no rebuild (it has no samples of its own there, so it needs the server).
    @Test func aRenamedCopyInTheConfigFolderWorksWithoutARebuild() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-gh2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: config) }
        let folder = config.appendingPathComponent("aggregate/providers")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Providers/GitHub/provider.json"), encoding: .utf8)
        try Data(original.replacingOccurrences(of: "\"name\": \"github\"", with: "\"name\": \"gh2\"").utf8).write(to: folder.appendingPathComponent("gh2.json"))
        let sandbox = try LoopbackSandbox()
        let listed = try Binary.run(["providers"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(listed.stdout.contains("gh2"))
        let run = try Binary.run(
            ["gh2", "search", "swift", "--base-url", sandbox.url + "/github", "--format", "json"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(run.status == 0, "\(run.stderr)")
        let items = try #require(try JSONParser().parse(run.stdout)["results"]?[0]?["items"]?.array)
        #expect(items.count == 20)
        #expect(items.first?["provider"] == "gh2")
    }
}
