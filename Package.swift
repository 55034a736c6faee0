// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ResourceLoader",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
        .visionOS(.v1),
    ],
    products: [
        .library(name: "ResourceLoader", targets: ["ResourceLoader"]),
        .library(name: "ResourceLoaderTesting", targets: ["ResourceLoaderTesting"]),
        // The optional integrations: each is empty unless its trait is enabled.
        .library(name: "ResourceLoaderLogging", targets: ["ResourceLoaderLogging"]),
        .library(name: "ResourceLoaderMetrics", targets: ["ResourceLoaderMetrics"]),
        .library(name: "ResourceLoaderTracing", targets: ["ResourceLoaderTracing"]),
    ],
    // All off by default: with the default traits the package resolves no dependency at all.
    // A package dependency used only by trait-guarded target dependencies is not fetched while
    // its trait is off.
    traits: [
        .trait(
            name: "Logging",
            description: "ResourceLoaderLogging: a fetch monitor that logs through a swift-log Logger."
        ),
        .trait(
            name: "Metrics",
            description: "ResourceLoaderMetrics: a fetch monitor that records swift-metrics counters, timers and a gauge."
        ),
        .trait(
            name: "Tracing",
            description: "ResourceLoaderTracing: a swift-distributed-tracing span per fetch, with the trace context propagated in the request's headers."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .target(name: "ResourceLoader"),
        .target(name: "ResourceLoaderTesting", dependencies: ["ResourceLoader"]),
        .target(
            name: "ResourceLoaderLogging",
            dependencies: [
                "ResourceLoader",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
            ]
        ),
        .target(
            name: "ResourceLoaderMetrics",
            dependencies: [
                "ResourceLoader",
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ]
        ),
        .target(
            name: "ResourceLoaderTracing",
            dependencies: [
                "ResourceLoader",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]
        ),
        .testTarget(
            name: "ResourceLoaderTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "ResourceLoader",
                "ResourceLoaderTesting",
                // For the snippets of ObservingOnAServer.md, compiled only with the traits on.
                "ResourceLoaderLogging",
                "ResourceLoaderMetrics",
                "ResourceLoaderTracing",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]
        ),
        // The integrations' tests: they compile only with their traits on, and the target builds
        // (empty) with them off.
        .testTarget(
            name: "ResourceLoaderIntegrationTests",
            dependencies: [
                "ResourceLoader",
                "ResourceLoaderTesting",
                "ResourceLoaderLogging",
                "ResourceLoaderMetrics",
                "ResourceLoaderTracing",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
