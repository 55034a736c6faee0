// swift-tools-version: 6.1
import PackageDescription

// What the swift-log and swift-metrics monitors cost per fetch with no-op backends, counted in
// instructions under callgrind. A package of its own (not a row of resourceloader-bench) because
// it enables the root package's Logging and Metrics traits. See Docs/Performance.md, "Logging and
// metrics monitors: what they cost".
let package = Package(
    name: "MonitorCost",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ResourceLoader", path: "../..", traits: ["Logging", "Metrics"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "monitor-cost",
            dependencies: [
                .product(name: "ResourceLoader", package: "ResourceLoader"),
                .product(name: "ResourceLoaderLogging", package: "ResourceLoader"),
                .product(name: "ResourceLoaderMetrics", package: "ResourceLoader"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
