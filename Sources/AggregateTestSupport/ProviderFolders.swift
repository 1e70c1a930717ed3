import AggregateScaffold
public import Foundation

/// The folders under `Providers/`, told apart as `Package.swift` does (``ProviderScaffold/isDefinitionFolder(_:)``).
public enum ProviderFolders {
    /// `Providers/` in the package.
    public static let root = TestPaths.packageRoot.appendingPathComponent("Providers")

    /// Every folder's name, sorted.
    public static var all: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The Swift providers' folders, sorted.
    public static var swift: [String] { all.filter { !isDefinition($0) } }

    /// The declarative providers' folders, sorted.
    public static var definitions: [String] { all.filter(isDefinition) }

    /// Whether `folder` holds a definition.
    public static func isDefinition(_ folder: String) -> Bool {
        ProviderScaffold.isDefinitionFolder(root.appendingPathComponent(folder))
    }
}
