// swift-tools-version: 6.0
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
    ],
    targets: [
        .target(name: "ResourceLoader"),
        .target(name: "ResourceLoaderTesting", dependencies: ["ResourceLoader"]),
        .testTarget(
            name: "ResourceLoaderTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "DocumentationTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
