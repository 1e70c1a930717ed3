// swift-tools-version:6.0
import Foundation
import PackageDescription

/// Every provider lives in `Providers/<Name>`: its client (target `<Name>Provider`, depending on `AggregateCore`
/// only) and, in `Providers/<Name>/Sandbox`, its emulator (target `<Name>Sandbox`, also on `AggregateCore` only,
/// never on the client). A new folder is picked up here without editing a list; the umbrella lists in
/// `Sources/AggregateProviders` and `Sources/AggregateSandbox` are checked against the folders by `RegistryTests`.
let providerNames: [String] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Providers").path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { !$0.hasPrefix(".") && !isDefinitionFolder("\(folder)/\($0)") }.sorted()
}()

/// A provider folder holding `provider.json` and no Swift file is a declarative provider: it makes no target; its
/// definition and samples are embedded by the generated files that `DefinitionEmbeddingTests` keeps up to date.
func isDefinitionFolder(_ path: String) -> Bool {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return files.contains("provider.json") && !files.contains { $0.hasSuffix(".swift") }
}
let providerTargets: [Target.Dependency] = providerNames.map { .target(name: "\($0)Provider") }
let sandboxTargets: [Target.Dependency] = providerNames.map { .target(name: "\($0)Sandbox") }

var targets: [Target] = [
    .target(name: "AggregateCore"),
    // `aggregate new-provider` and the generated-source checks: templates and the generated lists' text.
    .target(name: "AggregateScaffold", dependencies: ["AggregateCore"]),
    .target(name: "AggregateSandbox", dependencies: ["AggregateCore"] + sandboxTargets),
    .target(name: "AggregateProviders", dependencies: ["AggregateCore"] + providerTargets),
    .executableTarget(
        name: "aggregate",
        // TwitterProvider directly too: `aggregate twitter archive` reads exports with its TwitterArchive.
        dependencies: ["AggregateCore", "AggregateSandbox", "AggregateProviders", "TwitterProvider", "AggregateScaffold"]
    ),
    .target(
        name: "AggregateTestSupport",
        dependencies: ["AggregateCore", "AggregateSandbox", "AggregateProviders", "AggregateScaffold"]
    ),
    .testTarget(name: "AggregateCoreTests", dependencies: ["AggregateCore", "AggregateTestSupport"], exclude: ["Fixtures", "Golden"]),
    .testTarget(name: "AggregateSandboxTests", dependencies: ["AggregateCore", "AggregateSandbox", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateProvidersTests",
        dependencies: ["AggregateCore", "AggregateProviders", "AggregateSandbox", "AggregateTestSupport", "AggregateScaffold"] + providerTargets + sandboxTargets,
        exclude: ["Fixtures", "Golden"]
    ),
    // Builds the example provider of docs/adding-a-provider.md, whose code blocks are these sources.
    .testTarget(name: "DocExampleTests", dependencies: ["AggregateCore", "AggregateTestSupport"]),
    .testTarget(
        name: "aggregateTests",
        dependencies: ["aggregate", "AggregateCore", "AggregateSandbox", "AggregateProviders", "AggregateTestSupport"]
            + providerTargets + sandboxTargets,
        exclude: ["Golden"]
    ),
]

for name in providerNames {
    targets.append(
        .target(
            name: "\(name)Provider",
            dependencies: ["AggregateCore"],
            path: "Providers/\(name)",
            exclude: ["Sandbox", "SampleData", "README.md"]
        )
    )
    targets.append(
        .target(name: "\(name)Sandbox", dependencies: ["AggregateCore"], path: "Providers/\(name)/Sandbox")
    )
}

for index in targets.indices {
    targets[index].swiftSettings = (targets[index].swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}

let package = Package(
    name: "aggregate",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "aggregate", targets: ["aggregate"]),
        .library(name: "AggregateCore", targets: ["AggregateCore"]),
        .library(name: "AggregateProviders", targets: ["AggregateProviders"]),
        .library(name: "AggregateSandbox", targets: ["AggregateSandbox"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
