import AggregateCore
import AggregateSandbox
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
import aggregate

/// `aggregate auth status` through the built binary, checked against the sandbox on a loopback port.
@Suite(.serialized) struct AuthStatusTests {
    static let registry = try! TestRegistry.builtIn()

    /// Every provider pointed at the sandbox, with the sandbox's demo credentials in the environment.
    func sandboxEnvironment(_ sandbox: LoopbackSandbox) -> [String: String] {
        var environment: [String: String] = [:]
        for provider in Self.registry.registry.providers {
            let name = provider.descriptor.name
            environment["AGGREGATE_\(name.uppercased())_BASE_URL"] = "\(sandbox.url)/\(name)"
            environment.merge(Self.registry.sandbox(named: name)?.sandboxEnvironment ?? [:]) { current, _ in current }
        }
        return environment
    }

    func lines(_ output: Binary.Output) -> [String: String] {
        Dictionary(uniqueKeysWithValues: output.stdout.split(separator: "\n").map { line in
            let name = String(line.prefix { $0 != " " })
            return (name, line.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
        })
    }

    @Test func showsWhichVariableSuppliesEachCredentialMasked() throws {
        let token = "abcdefghijklmnopqrstuvwxyz"
        let output = try Binary.run(["auth", "status"], environment: ["X_BEARER_TOKEN": token, "MESSAGEBOARD_URL": "http://127.0.0.1:9"])
        #expect(output.status == 0)
        let status = lines(output)
        #expect(status["twitter"] == "X_BEARER_TOKEN = abcd… (environment (X_BEARER_TOKEN))")
        #expect(status["kiva"] == "needs none (optional: KIVA_APP_ID, not set)")
        #expect(status["messageboard"] == "needs none")
        #expect(status["tmdb"]?.hasPrefix("not set: no credentials: set TMDB_ACCESS_TOKEN") == true)
        #expect(!output.stdout.contains("efgh"), "only the first 4 characters are shown")
        #expect(Set(status.keys) == Set(Self.registry.registry.names))
    }

    @Test func checkSaysValidForTheSandboxDemoCredentials() throws {
        let sandbox = try LoopbackSandbox()
        let output = try Binary.run(["auth", "status", "--check"], environment: sandboxEnvironment(sandbox))
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let status = lines(output)
        for name in Self.registry.registry.names {
            #expect(status[name]?.hasSuffix("→ valid") == true, "\(name): \(status[name] ?? "missing")")
        }
        #expect(status["meetup"]?.contains("MEETUP_") == true)
        #expect(sandbox.server.requestCount >= Self.registry.registry.names.count)
        for secret in Self.registry.sandboxes.flatMap({ $0.sandboxEnvironment.values }) where secret.count >= 12 {
            #expect(!output.stdout.contains(secret))
        }
    }

    @Test func checkSaysRejectedAndUnreachableAndExitsNonZero() throws {
        let sandbox = try LoopbackSandbox()
        var environment = sandboxEnvironment(sandbox)
        environment["TMDB_ACCESS_TOKEN"] = "not-the-sandbox-token-at-all"
        environment["TMDB_API_KEY"] = nil
        let rejected = try Binary.run(["auth", "status", "tmdb", "--check"], environment: environment)
        #expect(rejected.status == 1)
        #expect(lines(rejected)["tmdb"] == "TMDB_ACCESS_TOKEN = not-… (environment (TMDB_ACCESS_TOKEN)) → rejected (HTTP 401)")

        environment["AGGREGATE_KIVA_BASE_URL"] = "http://127.0.0.1:9/kiva"
        let unreachable = try Binary.run(["auth", "status", "kiva", "meetup", "--check", "--timeout", "1"], environment: environment)
        #expect(unreachable.status == 1)
        #expect(lines(unreachable)["kiva"]?.hasSuffix("→ unreachable") == true)
        #expect(lines(unreachable)["meetup"]?.hasSuffix("→ valid") == true)
        #expect(unreachable.stdout.hasPrefix("kiva"), "providers in the order given")
    }

    @Test func credentialsFromTheConfigFileAreNamedAndChecked() throws {
        let sandbox = try LoopbackSandbox()
        let token = try #require(Self.registry.sandbox(named: "twitter")?.sandboxEnvironment["X_BEARER_TOKEN"])
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-auth-\(UUID().uuidString)")
        let file = home.appendingPathComponent("aggregate/config.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try """
            {"profiles": {"sandbox": {"providers": {"twitter": {"baseURL": "\(sandbox.url)/twitter",
              "credentials": {"X_BEARER_TOKEN": {"env": "SANDBOX_X_TOKEN"}}}}}}}
            """.write(to: file, atomically: true, encoding: .utf8)
        let output = try Binary.run(
            ["auth", "status", "twitter", "--check", "--profile", "sandbox"],
            environment: ["XDG_CONFIG_HOME": home.path, "SANDBOX_X_TOKEN": token])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("X_BEARER_TOKEN = \(token.prefix(4))… (environment (SANDBOX_X_TOKEN, named by profile 'sandbox'"))
        #expect(output.stdout.hasSuffix("→ valid\n"))
    }

    @Test func badArgumentsAreUsageErrors() throws {
        #expect(try Binary.run(["auth"]).status == 64)
        #expect(try Binary.run(["auth", "status", "nosuch"]).status == 64)
        #expect(try Binary.run(["auth", "login"]).status == 64)
    }
}
