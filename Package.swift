// swift-tools-version:6.0
import PackageDescription

/// Every provider lives in `Providers/<Name>` and depends on `AggregateCore` only.
/// Adding a provider means adding its name here and its type to `Sources/AggregateProviders`.
let providerNames = ["Meetup", "Kiva", "TMDb", "Twitter", "MessageBoard"]

var targets: [Target] = [
    .target(name: "AggregateCore"),
    .target(name: "AggregateSandbox", dependencies: ["AggregateCore"]),
    .target(
        name: "AggregateProviders",
        dependencies: ["AggregateCore"] + providerNames.map { .target(name: "\($0)Provider") }
    ),
    .executableTarget(
        name: "aggregate",
        // TwitterProvider directly too: `aggregate twitter archive` reads exports with its TwitterArchive.
        dependencies: ["AggregateCore", "AggregateSandbox", "AggregateProviders", "TwitterProvider"]
    ),
    .target(
        name: "AggregateTestSupport",
        dependencies: ["AggregateCore", "AggregateSandbox", "AggregateProviders"]
    ),
    .testTarget(name: "AggregateCoreTests", dependencies: ["AggregateCore", "AggregateTestSupport"], exclude: ["Fixtures", "Golden"]),
    .testTarget(name: "AggregateSandboxTests", dependencies: ["AggregateCore", "AggregateSandbox", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateProvidersTests",
        dependencies: ["AggregateCore", "AggregateProviders", "AggregateSandbox", "AggregateTestSupport"]
            + providerNames.map { .target(name: "\($0)Provider") },
        exclude: ["Fixtures", "Golden"]
    ),
    .testTarget(
        name: "aggregateTests",
        dependencies: ["aggregate", "AggregateCore", "AggregateSandbox", "AggregateProviders", "AggregateTestSupport"],
        exclude: ["Golden"]
    ),
]

for name in providerNames {
    targets.append(
        .target(
            name: "\(name)Provider",
            dependencies: ["AggregateCore"],
            path: "Providers/\(name)",
            exclude: ["SampleData", "README.md"]
        )
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
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
