public import Foundation

/// Golden-file comparison with a record mode, like swift-argument-parser's `assertSnapshot`.
///
/// When `AGGREGATE_RECORD=1` is set, or the golden file does not exist yet, the actual text is written as the
/// new golden file, and the check still fails so a recording run can never pass silently.
public enum Golden {
    /// The outcome of a comparison: `nil` when it matched, else a message with a diff.
    public static func check(_ actual: String, against path: URL) -> String? {
        let record = ProcessInfo.processInfo.environment["AGGREGATE_RECORD"].map { !$0.isEmpty && $0 != "0" } ?? false
        let existing = try? String(contentsOf: path, encoding: .utf8)
        if record || existing == nil {
            try? FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? actual.write(to: path, atomically: true, encoding: .utf8)
            return "recorded \(path.path); run again without AGGREGATE_RECORD to compare"
        }
        guard let existing, existing != actual else { return nil }
        return "output differs from \(path.lastPathComponent) (set AGGREGATE_RECORD=1 to re-record):\n" + diff(expected: existing, actual: actual)
    }

    /// A line diff showing the first few differing lines.
    public static func diff(expected: String, actual: String) -> String {
        let old = expected.components(separatedBy: "\n")
        let new = actual.components(separatedBy: "\n")
        var lines: [String] = []
        for index in 0..<max(old.count, new.count) where lines.count < 24 {
            let left = index < old.count ? old[index] : nil
            let right = index < new.count ? new[index] : nil
            if left != right {
                if let left { lines.append("- \(index + 1): \(left)") }
                if let right { lines.append("+ \(index + 1): \(right)") }
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// Paths the tests need.
public enum TestPaths {
    /// The package root, found from this file's location.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Real captured API responses: `AGGREGATE_SHARED_SAMPLES` when set, else the first `shared/api/samples` found
    /// beside the package or a folder above it (a worktree may sit deeper than the main checkout); `nil` when absent.
    public static var sharedSamples: URL? {
        func isDirectory(_ url: URL) -> Bool {
            var flag: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &flag) && flag.boolValue
        }
        if let override = ProcessInfo.processInfo.environment["AGGREGATE_SHARED_SAMPLES"], !override.isEmpty {
            let url = URL(fileURLWithPath: override)
            return isDirectory(url) ? url : nil
        }
        var folder = packageRoot.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shared/api/samples")
            if isDirectory(candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// A test target's folder, e.g. `Tests/AggregateProvidersTests`.
    public static func testTarget(_ name: String) -> URL {
        packageRoot.appendingPathComponent("Tests").appendingPathComponent(name)
    }

    /// The files in a shared samples sub-folder whose names end in `.json`, excluding request/meta sidecars.
    public static func sharedResponseSamples(_ provider: String) -> [URL] {
        guard let folder = sharedSamples?.appendingPathComponent(provider),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.sorted()
            .filter { $0.hasSuffix(".json") && !$0.contains(".request.") && !$0.contains(".meta.") && !$0.hasSuffix(".request.json") }
            .map { folder.appendingPathComponent($0) }
    }
}
