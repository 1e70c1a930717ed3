// swift-tools-version:6.0
import Foundation
import PackageDescription

/// The modules, lowest first (docs/architecture.md draws the graph; `.ci/layout.sh` checks every import against it):
/// `AggregateText` and `AggregateJSON` need nothing of ours; `AggregateCore` is the model and the provider protocol;
/// `AggregateHTTP`, `AggregateRendering`, `AggregateDefinitions` and `AggregateSandboxKit` each build on the core;
/// the umbrellas and the executable sit on top.
///
/// Every provider lives in `Providers/<Name>`: its client (target `<Name>Provider`, on the core, JSON and rendering
/// modules only) and, in `Providers/<Name>/Sandbox`, its emulator (target `<Name>Sandbox`, on the sandbox kit, never
/// on the client). A new folder is picked up here without editing a list; the umbrella lists in
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

/// What a provider's client may use, and what its emulator may use.
let clientModules: [Target.Dependency] = ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateRendering"]
let emulatorModules: [Target.Dependency] = ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateSandboxKit"]
/// Every library module, for the executable and the tests.
let libraryModules: [Target.Dependency] = [
    "AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateRendering", "AggregateDefinitions",
    "AggregateSandboxKit", "AggregateSandbox", "AggregateProviders", "AggregateScaffold", "AggregateSQL", "AggregateYAML", "AggregateImport",
    "AggregateRedis",
]

/// The executable's live transport: its own libcurl transport on Linux, URLSession elsewhere.
let networkModules: [Target.Dependency] = [
    .target(name: "AggregateCurl", condition: .when(platforms: [.linux])),
    .target(name: "AggregateURLSession", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
]
/// Both transports, for the tests that compare them over loopback.
let transportModules: [Target.Dependency] = ["AggregateURLSession", .target(name: "AggregateCurl", condition: .when(platforms: [.linux]))]

var targets: [Target] = [
    .target(name: "AggregateText"),
    // Release builds of the JSON core skip the runtime exclusivity checks: profiling the outline of a 30 MB TMDb-like
    // page showed 20% of its samples in swift_beginAccess/endAccess (the reader's class state, once per token).
    // Debug builds (the tests) keep them. Benchmarks/README.md (speed.sh) has the before/after figures.
    .target(
        name: "AggregateJSON", dependencies: ["AggregateText"],
        swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
    ),
    .target(name: "AggregateCore", dependencies: ["AggregateText", "AggregateJSON"]),
    // YAML documents (OpenAPI, Swagger) read into `JSONValue`: a strict subset, see docs/yaml.md.
    .target(name: "AggregateYAML", dependencies: ["AggregateText", "AggregateJSON"]),
    .target(name: "AggregateHTTP", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore"]),
    .target(name: "AggregateRendering", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore"]),
    .target(name: "AggregateDefinitions", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP"]),
    .target(name: "AggregateSandboxKit", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore"]),
    // POSIX sockets for the package's own servers and clients (Linux and Darwin; not for an app to embed).
    .target(name: "AggregateSockets", dependencies: ["AggregateCore"]),
    // Shared state over Redis: a RESP2 client of our own on the sockets, and the Redis-backed cache and rate-limit
    // stores (POSIX code, like the sockets).
    .target(name: "AggregateRedis", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateSockets"]),
    // The URLSession transport, for apps: the one module that links FoundationNetworking (and so libcurl on Linux).
    .target(name: "AggregateURLSession", dependencies: ["AggregateText", "AggregateCore", "AggregateHTTP"]),
    // libcurl's C API opened with dlopen when the first request goes out (our own prototypes, no curl headers).
    .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    // The executable's transport on Linux, over CCurlShim: a run that sends nothing never loads libcurl.
    .target(name: "AggregateCurl", dependencies: ["AggregateText", "AggregateCore", "AggregateHTTP", "CCurlShim"]),
    // The package's own HTTP/1.1 server on those sockets, which the sandbox and `aggregate serve` answer through.
    .target(name: "AggregateHTTPServer", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateSockets"]),
    // The system's SQLite 3: a library of the machine, not a package (Apple platforms have the `SQLite3` module).
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    // `aggregate sql`: provider operations as SQLite virtual tables, and results kept in a SQLite file.
    .target(
        name: "AggregateSQL",
        dependencies: [
            "AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP",
            .target(name: "CSQLite", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
        ]),
    // `aggregate new-provider` and the generated-source checks: templates and the generated lists' text.
    .target(name: "AggregateScaffold", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateDefinitions"]),
    // `aggregate import`: an OpenAPI document or a cassette becomes a definition folder.
    .target(
        name: "AggregateImport",
        dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateDefinitions", "AggregateScaffold", "AggregateYAML"]),
    .target(
        name: "AggregateSandbox",
        dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateDefinitions", "AggregateSandboxKit", "AggregateHTTPServer"]
            + sandboxTargets),
    // `aggregate serve`: the gateway's routes, metrics, access log and client limits on the package's HTTP server.
    .target(name: "AggregateServe", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateHTTPServer", "AggregateRendering"]),
    .target(name: "AggregateProviders", dependencies: ["AggregateCore", "AggregateDefinitions"] + providerTargets),
    // The executable names no provider target: providers reach it through the umbrellas, their own commands too.
    // Linux: the dlopen'ed libcurl transport, so start-up binds no networking libraries; Apple platforms: URLSession.
    .executableTarget(name: "aggregate", dependencies: libraryModules + networkModules + ["AggregateServe"]),
    .target(name: "AggregateTestSupport", dependencies: libraryModules + ["AggregateSockets"]),
    .testTarget(name: "AggregateJSONTests", dependencies: ["AggregateText", "AggregateJSON", "AggregateTestSupport"], exclude: ["Fixtures", "Golden"]),
    .testTarget(
        name: "AggregateYAMLTests", dependencies: ["AggregateJSON", "AggregateYAML", "AggregateTestSupport"],
        exclude: ["YAMLTestSuite"]),
    .testTarget(name: "AggregateCoreTests", dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateHTTPTests",
        dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateSandboxKit", "AggregateTestSupport"]),
    .testTarget(name: "AggregateRenderingTests", dependencies: ["AggregateJSON", "AggregateCore", "AggregateRendering", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateDefinitionsTests",
        dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateDefinitions", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateSQLTests",
        dependencies: libraryModules + ["AggregateTestSupport"]),
    .testTarget(
        name: "AggregateRedisTests",
        dependencies: ["AggregateText", "AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateSockets", "AggregateRedis", "AggregateTestSupport"]),
    .testTarget(
        name: "AggregateServeTests",
        dependencies: ["AggregateJSON", "AggregateCore", "AggregateHTTP", "AggregateHTTPServer", "AggregateRendering", "AggregateServe", "AggregateTestSupport"]),
    .testTarget(name: "AggregateSandboxKitTests", dependencies: ["AggregateJSON", "AggregateCore", "AggregateSandboxKit", "AggregateTestSupport"]),
    .testTarget(name: "AggregateSandboxTests", dependencies: libraryModules + ["AggregateTestSupport"]),
    .testTarget(
        name: "AggregateProvidersTests",
        dependencies: libraryModules + ["AggregateTestSupport"] + providerTargets + sandboxTargets,
        exclude: ["Fixtures", "Golden"]
    ),
    .testTarget(name: "AggregateImportTests", dependencies: libraryModules + ["AggregateTestSupport"]),
    // Builds the example provider of docs/adding-a-provider.md, whose code blocks are these sources.
    .testTarget(name: "DocExampleTests", dependencies: libraryModules + ["AggregateTestSupport"]),
    .testTarget(
        name: "aggregateTests",
        dependencies: ["aggregate"] + libraryModules + transportModules + ["AggregateTestSupport"] + providerTargets + sandboxTargets,
        exclude: ["Golden"]
    ),
]

for name in providerNames {
    targets.append(
        .target(
            name: "\(name)Provider",
            dependencies: clientModules,
            path: "Providers/\(name)",
            exclude: ["Sandbox", "SampleData", "README.md"]
        )
    )
    targets.append(
        .target(name: "\(name)Sandbox", dependencies: emulatorModules, path: "Providers/\(name)/Sandbox")
    )
}

for index in targets.indices where targets[index].type != .system && targets[index].name != "CCurlShim" {
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
        .library(name: "AggregateJSON", targets: ["AggregateJSON"]),
        .library(name: "AggregateYAML", targets: ["AggregateYAML"]),
        .library(name: "AggregateCore", targets: ["AggregateCore"]),
        .library(name: "AggregateHTTP", targets: ["AggregateHTTP"]),
        .library(name: "AggregateURLSession", targets: ["AggregateURLSession"]),
        .library(name: "AggregateProviders", targets: ["AggregateProviders"]),
        .library(name: "AggregateSandbox", targets: ["AggregateSandbox"]),
        .library(name: "AggregateSQL", targets: ["AggregateSQL"]),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
