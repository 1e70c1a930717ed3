import AggregateCore
import AggregateHTTP
import AggregateJSON
import AggregateTestSupport
import Foundation
@testable import aggregate

/// Runs the CLI in-process with captured output, a fixed terminal and a private data directory.
struct CLIHarness {
    struct Output {
        var code: ExitCode
        var stdout: String
        var stderr: String
    }

    var environment: [String: String] = [:]
    var width = 100
    var stdin: String? = nil
    /// Raw standard input, e.g. bytes that are not UTF-8 (wins over `stdin`).
    var stdinBytes: Data? = nil
    var dataDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-tests-\(UUID().uuidString)")
    var makeTransport: @Sendable () -> any HTTPTransport = { makeNetworkTransport() }
    /// Replaces the wait between retries (`nil`: really wait).
    var retrySleep: (@Sendable (TimeInterval) async throws -> Void)? = nil

    func run(_ arguments: [String]) async -> Output {
        let out = Buffer()
        let err = Buffer()
        let input = stdinBytes ?? stdin.map { Data($0.utf8) }
        var environment = environment
        // Never the developer's own rate-limit state or cache: a fresh folder per run unless the test gives one.
        if environment["XDG_CACHE_HOME"] == nil {
            environment["XDG_CACHE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-\(UUID().uuidString)").path
        }
        var context = Context(
            catalog: try! TestRegistry.builtIn(), environment: environment,
            console: Console(out: { out.append($0) }, err: { err.append($0) }),
            terminal: Terminal(stdoutIsTerminal: false, stderrIsTerminal: false, stdinIsTerminal: false, width: width, colorOnStdout: false, colorOnStderr: false),
            dataDirectory: dataDirectory)
        context.makeTransport = makeTransport
        context.retrySleep = retrySleep
        context.readStandardInput = { _ throws(AggregateError) in
            guard let input else { throw AggregateError(.noInput, "standard input is closed") }
            return input
        }
        let code = await App(context: context).run(arguments)
        return Output(code: code, stdout: out.text, stderr: err.text)
    }
}

final class Buffer: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""
    func append(_ text: String) {
        lock.lock()
        stored += text
        lock.unlock()
    }
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The JSON document with every `meta.elapsedMs` set to 0, so golden files are stable.
func stabilized(_ json: String) throws -> String {
    var document = try JSONParser().parse(json)
    guard case .object(var root) = document, case .array(var results)? = root["results"] else { return json }
    for index in results.indices {
        guard case .object(var result) = results[index], case .object(var meta)? = result["meta"] else { continue }
        meta["elapsedMs"] = .int(0)
        result["meta"] = .object(meta)
        results[index] = .object(result)
    }
    root["results"] = .array(results)
    document = .object(root)
    return JSONWriter(pretty: true).string(document) + "\n"
}
