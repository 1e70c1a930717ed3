import AggregateCore
import AggregateJSON
import AggregateSandboxKit
import AggregateTestSupport
import Foundation
import Testing
@testable import aggregate

/// `aggregate sandbox --env`: `export` lines that point every provider at a sandbox, evaluated by a real shell.
@Suite struct SandboxEnvTests {
    static let registry = try! TestRegistry.builtIn()

    @Test func printsEveryProvidersBaseURLAndDemoCredentialsWithoutStartingAServer() throws {
        let output = try Binary.run(["sandbox", "--env"], timeout: 20)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.isEmpty, "no server: no banner, no request log")
        let exports = output.stdout.split(separator: "\n").filter { $0.hasPrefix("export ") }
        #expect(exports.count + output.stdout.split(separator: "\n").filter { $0.hasPrefix("#") }.count == output.stdout.split(separator: "\n").count,
            "only comments and export lines")
        for provider in Self.registry.registry.providers {
            let descriptor = provider.descriptor
            #expect(exports.contains { $0.hasPrefix("export \(descriptor.baseURLVariable)=http://127.0.0.1:8787") }, "\(descriptor.name)")
            for (name, value) in Self.registry.sandbox(named: descriptor.name)?.sandboxEnvironment ?? [:] {
                #expect(exports.contains("export \(name)=\(shellQuoted(value))"), "\(descriptor.name): \(name)")
            }
        }
        let other = try Binary.run(["sandbox", "--env", "--port", "9123", "--host", "::1"], timeout: 20)
        #expect(other.stdout.contains("export AGGREGATE_TMDB_BASE_URL='http://[::1]:9123'\n"), "quoted: [ is a glob character")
        #expect(other.stdout.contains("'aggregate sandbox --port 9123 --host ::1' starts"))
    }

    @Test func refusesAPortOfZeroAndTheServersOwnOptions() throws {
        let zero = try Binary.run(["sandbox", "--env", "--port", "0"], timeout: 20)
        #expect(zero.status == 64)
        #expect(zero.stderr.hasPrefix("Error: --env needs the sandbox's port: give the one it listens on, not 0\n"))
        let fault = try Binary.run(["sandbox", "--env", "--fault", "close"], timeout: 20)
        #expect(fault.status == 64)
        #expect(fault.stderr.hasPrefix("Error: --env only prints the variables; --fault is for the server"))
        #expect(zero.stdout.isEmpty && fault.stdout.isEmpty)
    }

    /// The whole promise: start the sandbox on a free port, `eval "$(aggregate sandbox --env --port N)"` in bash,
    /// and providers run without --offline, over the live path, against it.
    @Test(.requires(.bash)) func evalInBashPointsALiveSessionAtTheSandbox() throws {
        let bash = try #require(OptionalTool.bash.path)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-sandbox-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let sandbox = try SandboxProcess(dataDirectory: data.appendingPathComponent("sandbox"))
        defer { sandbox.stop() }
        let bin = shellQuoted(Binary.url.path)
        let script = """
            set -e
            eval "$(\(bin) sandbox --env --port \(sandbox.port))"
            \(bin) tmdb popular --limit 3 --format json --quiet > '\(data.path)/tmdb.json'
            \(bin) github search swift --limit 2 --format json --quiet > '\(data.path)/github.json'
            \(bin) auth status --check
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bash)
        process.arguments = ["-c", script]
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "XDG_CONFIG_HOME": data.appendingPathComponent("config").path, "XDG_CACHE_HOME": data.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": data.appendingPathComponent("data").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        for name in ["tmdb", "github"] {
            let document = try JSONParser().parse(try Data(contentsOf: data.appendingPathComponent("\(name).json")))
            let result = document["results"]?[0]
            #expect(result?["status"] == "ok", "\(name)")
            #expect(result?["meta"]?["source"] == "live", "\(name): the live path, not --offline")
            #expect(result?["items"]?.array?.isEmpty == false, "\(name)")
        }
        for name in Self.registry.registry.names {
            #expect(text.split(separator: "\n").contains { $0.hasPrefix(name + " ") && $0.hasSuffix("→ valid") },
                "auth status --check: \(name) is valid:\n\(text)")
        }
        #expect(sandbox.stderr.contains("/search/repositories"), "the requests reached the sandbox process")
    }
}
