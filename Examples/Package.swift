// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Examples",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "user-details", targets: ["user-details"]),
        .executable(name: "user-details-generated", targets: ["user-details-generated"]),
        .executable(name: "cities", targets: ["cities"]),
        .executable(name: "account", targets: ["account"]),
        .executable(name: "transfers", targets: ["transfers"]),
    ],
    dependencies: [
        // By path, with a fixed name, so the package identity does not depend on the folder the
        // repository was cloned into. The AsyncHTTPClient trait makes the demos' `--transport
        // async-http-client` available (ResourceLoaderAsyncHTTPClient is empty without it).
        .package(name: "ResourceLoader", path: "..", traits: ["AsyncHTTPClient"]),
    ],
    targets: [
        // The example resources and the facade an app would call.
        .target(
            name: "ExampleResources",
            dependencies: [.product(name: "ResourceLoader", package: "ResourceLoader")]
        ),
        // The user service's client, generated at build time from UserService.wsdl by the
        // build plugin: GetUserDetails next to ExampleResources' hand-written one.
        .target(
            name: "UserServiceClient",
            dependencies: [.product(name: "ResourceLoader", package: "ResourceLoader")],
            plugins: [.plugin(name: "ResourceLoaderWSDLPlugin", package: "ResourceLoader")]
        ),
        // The embedded loopback server the demos and integration tests talk to.
        .target(
            name: "FixtureServer",
            dependencies: [
                "ExampleResources",
                .product(name: "ResourceLoader", package: "ResourceLoader"),
                .product(name: "ResourceLoaderTesting", package: "ResourceLoader"),
            ]
        ),
        // Argument parsing, printing and the three ways to load, shared by the demos.
        .target(
            name: "DemoSupport",
            dependencies: [
                "ExampleResources", "FixtureServer",
                .product(name: "ResourceLoaderAsyncHTTPClient", package: "ResourceLoader"),
            ]
        ),
        .executableTarget(name: "user-details", dependencies: ["DemoSupport"]),
        .executableTarget(name: "user-details-generated", dependencies: ["DemoSupport", "UserServiceClient"]),
        .executableTarget(name: "cities", dependencies: ["DemoSupport"]),
        .executableTarget(name: "account", dependencies: ["DemoSupport", "FixtureServer"]),
        .executableTarget(name: "transfers", dependencies: ["DemoSupport"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "ExampleResources", "FixtureServer", "DemoSupport", "UserServiceClient",
                .product(name: "ResourceLoaderTesting", package: "ResourceLoader"),
                .product(name: "ResourceLoaderAsyncHTTPClient", package: "ResourceLoader"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
