import AggregateTestSupport
import Foundation
import aggregate

/// Runs the built `aggregate` executable as a separate process, like swift-argument-parser's `AssertExecuteCommand`.
struct Binary {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built executable, next to the test bundle.
    static let url: URL = {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("aggregate")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return TestPaths.packageRoot.appendingPathComponent(".build/debug/aggregate")
    }()

    /// Runs `aggregate arguments...` with exactly `environment` (plus PATH), optional stdin, and a deadline.
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil, timeout: TimeInterval = 60) throws -> Output {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        if env["XDG_CONFIG_HOME"] == nil {  // never the developer's own config file
            env["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-config-\(UUID().uuidString)").path
        }
        if env["XDG_CACHE_HOME"] == nil {  // never the developer's own cache or rate-limit state, and no answers shared between runs
            env["XDG_CACHE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-cache-\(UUID().uuidString)").path
        }
        if env["XDG_DATA_HOME"] == nil {
            env["XDG_DATA_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-bin-\(UUID().uuidString)").path
        }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        return try collect(process, out: out, err: err, timeout: timeout, arguments: arguments)
    }

    /// Reads a started process's stdout (unless `out` is `nil`) and stderr to their ends, concurrently so a chatty
    /// process cannot block on a full pipe, then waits for it; past `timeout` it is terminated and this throws.
    static func collect(_ process: Process, out: Pipe?, err: Pipe, timeout: TimeInterval, arguments: [String]) throws -> Output {
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            guard let pipe else { continue }
            group.enter()
            // A thread of its own: Dispatch's global queue shares its few threads (two here) with the test run's
            // other blocking work, and a reader waiting for one let a finished process time out under load.
            let reader = Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
            reader.start()
        }
        let deadline = DispatchTime.now() + timeout
        if group.wait(timeout: deadline) == .timedOut {
            process.terminate()
            throw BinaryError.timedOut(arguments)
        }
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: collected.text(isOut: true), stderr: collected.text(isOut: false))
    }

    enum BinaryError: Error { case timedOut([String]) }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        func set(_ data: Data, isOut: Bool) {
            lock.lock()
            if isOut { out = data } else { err = data }
            lock.unlock()
        }
        func text(isOut: Bool) -> String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: isOut ? out : err, as: UTF8.self)
        }
    }
}
