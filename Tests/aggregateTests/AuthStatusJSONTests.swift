import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// `aggregate auth status --format json`, and how short credentials are shown, through the built binary.
@Suite(.serialized) struct AuthStatusJSONTests {
    static let registry = try! TestRegistry.builtIn()

    let longToken = "abcdefghijklmnopqrstuvwxyz"
    let shortKey = "k3y-0f-11ch"

    func providers(_ output: Binary.Output) throws -> [String: JSONValue] {
        let document = try JSONParser().parse(output.stdout)
        #expect(document["schemaVersion"] == 1)
        let list = try #require(document["providers"]?.array)
        return Dictionary(uniqueKeysWithValues: list.compactMap { entry in entry["provider"]?.string.map { ($0, entry) } })
    }

    @Test func aDocumentOfEveryProvidersStatusWithNoCredentialValue() throws {
        let output = try Binary.run(
            ["auth", "status", "--format", "json"],
            environment: ["X_BEARER_TOKEN": longToken, "TMDB_API_KEY": shortKey, "MESSAGEBOARD_URL": "http://127.0.0.1:9"])
        #expect(output.status == 0, "\(output.stderr)")
        let status = try providers(output)
        #expect(Set(status.keys) == Set(Self.registry.registry.names))
        #expect(status["twitter"]?["credential"] == "set")
        #expect(status["twitter"]?["variables"] == [["name": "X_BEARER_TOKEN", "source": "environment (X_BEARER_TOKEN)"]])
        #expect(status["tmdb"]?["credential"] == "set")
        #expect(status["kiva"]?["credential"] == "optionalNotSet")
        #expect(status["kiva"]?["optional"] == ["KIVA_APP_ID"])
        #expect(status["messageboard"]?["credential"] == "notNeeded")
        #expect(status["meetup"]?["credential"] == "notSet")
        #expect(status["meetup"]?["message"]?.string?.contains("MEETUP_TOKEN") == true)
        #expect(status.values.allSatisfy { $0["check"] == nil }, "no check without --check")
        for part in [String(longToken.prefix(4)), String(shortKey.prefix(4)), "…"] {
            #expect(!output.stdout.contains(part), "no value, not even masked: \(part)")
        }
    }

    @Test func aShortValueIsSaidToBeSetButNotShown() throws {
        let output = try Binary.run(["auth", "status", "tmdb"], environment: ["TMDB_API_KEY": shortKey])
        #expect(output.status == 0)
        #expect(output.stdout == "tmdb  TMDB_API_KEY = (hidden: under 12 characters) (environment (TMDB_API_KEY))\n")
        #expect(!output.stdout.contains(shortKey.prefix(3)))
    }

    @Test func checkVerdictsAreInTheDocument() throws {
        let sandbox = try LoopbackSandbox()
        var environment: [String: String] = [:]
        for name in ["tmdb", "kiva", "twitter"] {
            environment["AGGREGATE_\(name.uppercased())_BASE_URL"] = "\(sandbox.url)/\(name)"
        }
        environment["X_BEARER_TOKEN"] = Self.registry.sandbox(named: "twitter")?.sandboxEnvironment["X_BEARER_TOKEN"]
        environment["TMDB_ACCESS_TOKEN"] = "not-the-sandbox-token-at-all"
        environment["AGGREGATE_KIVA_BASE_URL"] = "http://127.0.0.1:9/kiva"
        let output = try Binary.run(["auth", "status", "twitter", "tmdb", "kiva", "meetup", "--check", "--format", "json", "--timeout", "1"], environment: environment)
        #expect(output.status == 1, "a rejected credential fails the check")
        let status = try providers(output)
        #expect(status["twitter"]?["check"] == ["verdict": "valid"])
        #expect(status["tmdb"]?["check"] == ["verdict": "rejected", "httpStatus": 401])
        #expect(status["kiva"]?["check"] == ["verdict": "unreachable"])
        #expect(status["meetup"]?["check"] == ["verdict": "notChecked"])
        let document = try JSONParser().parse(output.stdout)
        #expect(document["providers"]?.array?.compactMap { $0["provider"]?.string } == ["twitter", "tmdb", "kiva", "meetup"], "in the order given")
        #expect(!output.stdout.contains("not-the"), "not even the rejected value")
    }

    @Test func aFormatOtherThanTextOrJSONIsAUsageError() throws {
        let output = try Binary.run(["auth", "status", "--format", "csv"])
        #expect(output.status == 64)
        #expect(output.stderr.hasPrefix("Error: --format must be text or json, not 'csv'\n"))
    }

    /// Both documents above validate against Schemas/auth-status.schema.json with a real validator (Python's
    /// jsonschema, as CI's other schema checks use; skipped where it is not installed).
    @Test(.requires(OptionalTool.jsonschema)) func theDocumentsValidateAgainstTheSchema() throws {
        let python = try #require(OptionalTool.jsonschema.path)
        let sandbox = try LoopbackSandbox()
        var environment: [String: String] = ["TMDB_API_KEY": shortKey, "TMDB_ACCESS_TOKEN": "not-the-sandbox-token-at-all"]
        for provider in Self.registry.registry.providers where provider.descriptor.name != "tmdb" {
            let name = provider.descriptor.name
            environment["AGGREGATE_\(name.uppercased())_BASE_URL"] = "\(sandbox.url)/\(name)"
            environment.merge(Self.registry.sandbox(named: name)?.sandboxEnvironment ?? [:]) { current, _ in current }
        }
        environment["AGGREGATE_TMDB_BASE_URL"] = "\(sandbox.url)/tmdb"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-auth-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, arguments) in [["auth", "status", "--format", "json"], ["auth", "status", "--check", "--format", "json"]].enumerated() {
            let output = try Binary.run(arguments, environment: environment)
            let file = folder.appendingPathComponent("\(index).json").path
            try output.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
        }
        let schema = TestPaths.packageRoot.appendingPathComponent("Schemas/auth-status.schema.json").path
        let problems = try JSONSchemaValidator.problems(python: python, schema: schema, files: files)
        #expect(problems == nil, "\(problems ?? "")")
    }
}
