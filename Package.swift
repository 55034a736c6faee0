// swift-tools-version: 6.1
import PackageDescription

/// The products `ResourceLoaderAsyncHTTPClient` uses, each only while the `AsyncHTTPClient` trait
/// is on.
let asyncHTTPClientProducts: [Target.Dependency] = [
    ("AsyncHTTPClient", "async-http-client"), ("NIOCore", "swift-nio"), ("NIOHTTP1", "swift-nio"),
    ("NIOPosix", "swift-nio"), ("NIOHTTPCompression", "swift-nio-extras"),
].map { .product(name: $0.0, package: $0.1, condition: .when(traits: ["AsyncHTTPClient"])) }

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
        // Optional integrations: each product is empty unless its trait is enabled.
        .library(name: "ResourceLoaderAsyncHTTPClient", targets: ["ResourceLoaderAsyncHTTPClient"]),
    ],
    // Every trait is off by default: with the default traits the package resolves no dependency.
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "AsyncHTTPClientTransport, a transport over swift-server/async-http-client, "
                + "in the ResourceLoaderAsyncHTTPClient product."
        ),
    ],
    // Each package is used only through target dependencies guarded by a trait, so none of them is
    // resolved or fetched while its trait is off (.ci/zero-dependencies.sh checks it).
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // AsyncHTTPClient's own dependencies, named for the NIO types the transport uses.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        .target(name: "ResourceLoader"),
        .target(name: "ResourceLoaderTesting", dependencies: ["ResourceLoader"]),
        .target(
            name: "ResourceLoaderAsyncHTTPClient",
            dependencies: ["ResourceLoader"] + asyncHTTPClientProducts
        ),
        .testTarget(
            name: "ResourceLoaderTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting", "ResourceLoaderAsyncHTTPClient"]
                + asyncHTTPClientProducts,
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "DocumentationTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting", "ResourceLoaderAsyncHTTPClient"]
                + asyncHTTPClientProducts
        ),
    ],
    swiftLanguageModes: [.v6]
)
