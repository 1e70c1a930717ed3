import Foundation

/// A program some tests need that a machine with only the Swift toolchain may lack (tmux, zsh, fish, python3, ...).
///
/// Tests that need one are skipped with a visible reason when it is missing, so `swift test` passes on a fresh
/// machine. Setting `AGGREGATE_REQUIRE_<NAME>=1` (e.g. `AGGREGATE_REQUIRE_TMUX=1`, which `.ci/run` sets after
/// installing tmux) makes them run anyway, so a missing tool fails them instead of hiding them.
public struct OptionalTool: Sendable {
    /// The executable's name, looked up on `PATH`, or the Python module's name.
    public let name: String
    /// How to install it, for the skip reason.
    public let install: String
    /// Whether `name` is a Python module, found by the interpreter in `AGGREGATE_PYTHON` (e.g. CI's venv) or python3.
    public let isPythonModule: Bool

    /// Creates a tool description.
    public init(name: String, install: String, isPythonModule: Bool = false) {
        self.name = name
        self.install = install
        self.isPythonModule = isPythonModule
    }

    /// Python's `html5lib`, for validating the HTML report.
    public static let html5lib = OptionalTool(
        name: "html5lib", install: "pip install html5lib, and point AGGREGATE_PYTHON at that python", isPythonModule: true)

    public static let tmux = OptionalTool(name: "tmux", install: "apt-get install tmux")
    public static let python3 = OptionalTool(name: "python3", install: "apt-get install python3")
    public static let jq = OptionalTool(name: "jq", install: "apt-get install jq")
    public static let bash = OptionalTool(name: "bash", install: "apt-get install bash")
    public static let zsh = OptionalTool(name: "zsh", install: "apt-get install zsh")
    public static let fish = OptionalTool(name: "fish", install: "apt-get install fish")
    public static let pgrep = OptionalTool(name: "pgrep", install: "apt-get install procps")
    /// SQLite's command-line shell, for reading back what `--to` wrote as a user would.
    public static let sqlite3 = OptionalTool(name: "sqlite3", install: "apt-get install sqlite3")

    /// The variable that makes tests needing this tool mandatory: `AGGREGATE_REQUIRE_TMUX`.
    public var requirementVariable: String {
        "AGGREGATE_REQUIRE_" + name.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// The tool's full path on `PATH` (for a Python module: the interpreter that can import it), or `nil` when it
    /// is not installed.
    public var path: String? {
        guard isPythonModule else { return Self.executable(name) }
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["AGGREGATE_PYTHON"].flatMap({ $0.isEmpty ? nil : $0 }) ?? Self.executable("python3") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import \(name)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? python : nil
    }

    private static func executable(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether `AGGREGATE_REQUIRE_<NAME>` is set to something other than empty or `0`.
    public var isRequired: Bool {
        ProcessInfo.processInfo.environment[requirementVariable].map { !$0.isEmpty && $0 != "0" } ?? false
    }

    /// Whether tests needing the tool should run: it is installed, or it is required (and they will fail without it).
    public var shouldRun: Bool { isRequired || path != nil }

    /// Why tests needing the tool are skipped, shown by the test runner.
    public var skipReason: String {
        "\(name) is not installed (\(install)); set \(requirementVariable)=1 to fail instead of skipping"
    }

    /// Whether tests needing every one of `tools` should run.
    public static func shouldRun(_ tools: [OptionalTool]) -> Bool { tools.allSatisfy(\.shouldRun) }

    /// The skip reason of the first missing tool among `tools`.
    public static func skipReason(_ tools: [OptionalTool]) -> String {
        tools.first { !$0.shouldRun }?.skipReason ?? ""
    }
}
