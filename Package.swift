// swift-tools-version: 6.1
import PackageDescription

/// The products `ResourceLoaderAsyncHTTPClient` uses, each only while the `AsyncHTTPClient` trait
/// is on, apart from swift-distributed-tracing's `Tracing` (`tracingForAsyncHTTPClient`).
let asyncHTTPClientProducts: [Target.Dependency] = [
    ("AsyncHTTPClient", "async-http-client"), ("NIOCore", "swift-nio"), ("NIOHTTP1", "swift-nio"),
    ("NIOPosix", "swift-nio"), ("NIOHTTPCompression", "swift-nio-extras"),
].map { .product(name: $0.0, package: $0.1, condition: .when(traits: ["AsyncHTTPClient"])) }

/// The products of AsyncHTTPClient's own dependencies whose errors reach the transport, which
/// names them by type rather than linking them: its tests construct them, while the
/// `AsyncHTTPClient` trait is on.
let asyncHTTPClientErrorProducts: [Target.Dependency] = [("NIOSSL", "swift-nio-ssl"), ("NIOHTTP2", "swift-nio-http2")]
    .map { .product(name: $0.0, package: $0.1, condition: .when(traits: ["AsyncHTTPClient"])) }

/// swift-distributed-tracing's `Tracing`, while the `AsyncHTTPClient` trait is on. AsyncHTTPClient
/// depends on swift-distributed-tracing itself: the transport uses it to nest AsyncHTTPClient's
/// spans under the fetch's, which adds no package.
let tracingForAsyncHTTPClient: Target.Dependency = .product(
    name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["AsyncHTTPClient"]))

/// The in-memory tracer of swift-distributed-tracing, for the tests of the transport's tracing.
let inMemoryTracingForAsyncHTTPClient: Target.Dependency = .product(
    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["AsyncHTTPClient"]))

/// The products of swift-log, swift-metrics and swift-distributed-tracing, each only while its
/// trait is on.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"]))
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"]))
let tracing: Target.Dependency = .product(
    name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"]))

/// `Tracing` for the test targets that use it under either trait: one entry, since SwiftPM ignores
/// (with a warning) a second entry of the same product. A condition of several traits holds when
/// any of them is on.
let tracingForEitherTrait: Target.Dependency = .product(
    name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing", "AsyncHTTPClient"]))

/// The products of swift-crypto (`_CryptoExtras` has RSA), swift-certificates and swift-asn1,
/// each only while the `XMLSignature` trait is on.
let xmlSignatureProducts: [Target.Dependency] = [
    ("Crypto", "swift-crypto"), ("_CryptoExtras", "swift-crypto"), ("X509", "swift-certificates"),
    ("SwiftASN1", "swift-asn1"),
].map { .product(name: $0.0, package: $0.1, condition: .when(traits: ["XMLSignature"])) }

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
        // The WSDL 1.1 and XML Schema reader that SOAP code generation builds on.
        .library(name: "ResourceLoaderWSDL", targets: ["ResourceLoaderWSDL"]),
        .executable(name: "resourceloader-wsdl", targets: ["ResourceLoaderWSDLTool"]),
        // Generates SOAP resources from the .wsdl file of the target it is applied to.
        .plugin(name: "ResourceLoaderWSDLPlugin", targets: ["ResourceLoaderWSDLPlugin"]),
        // Generates SOAP resources into the source tree, for code that is checked in.
        .plugin(name: "GenerateSOAPResources", targets: ["GenerateSOAPResources"]),
        // The optional integrations: each product is empty unless its trait is enabled.
        .library(name: "ResourceLoaderAsyncHTTPClient", targets: ["ResourceLoaderAsyncHTTPClient"]),
        .library(name: "ResourceLoaderLogging", targets: ["ResourceLoaderLogging"]),
        .library(name: "ResourceLoaderMetrics", targets: ["ResourceLoaderMetrics"]),
        .library(name: "ResourceLoaderTracing", targets: ["ResourceLoaderTracing"]),
        .library(name: "ResourceLoaderXMLSignature", targets: ["ResourceLoaderXMLSignature"]),
    ],
    // Every trait is off by default: with the default traits the package resolves no dependency.
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "AsyncHTTPClientTransport, a transport over swift-server/async-http-client, "
                + "in the ResourceLoaderAsyncHTTPClient product."
        ),
        .trait(
            name: "Logging",
            description: "ResourceLoaderLogging: a fetch monitor that logs through a swift-log Logger."
        ),
        .trait(
            name: "Metrics",
            description: "ResourceLoaderMetrics: a fetch monitor that records swift-metrics counters, timers and a meter."
        ),
        .trait(
            name: "Tracing",
            description: "ResourceLoaderTracing: a swift-distributed-tracing span per fetch, with the trace context propagated in the request's headers."
        ),
        .trait(
            name: "XMLSignature",
            description: "ResourceLoaderXMLSignature: WS-Security XML Signature (exclusive C14N, RSA-SHA256 or "
                + "ECDSA-P256-SHA256, X.509 BinarySecurityToken) over swift-crypto and swift-certificates."
        ),
    ],
    // Each package is used only through target dependencies guarded by a trait, so none of them is
    // resolved or fetched while its trait is off (.ci/zero-dependencies.sh checks it).
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // AsyncHTTPClient's own dependencies, named for the NIO types the transport uses.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // The system zlib, behind a few inline helpers, for decoding gzip and deflate bodies. It is
        // part of the platform (Apple's SDKs; zlib1g-dev on Debian), not a package dependency.
        .target(name: "CResourceLoaderZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "ResourceLoader", dependencies: ["CResourceLoaderZlib"]),
        .target(name: "ResourceLoaderTesting", dependencies: ["ResourceLoader", "CResourceLoaderZlib"]),
        .target(name: "ResourceLoaderWSDL", dependencies: ["ResourceLoader"]),
        .executableTarget(name: "ResourceLoaderWSDLTool", dependencies: ["ResourceLoaderWSDL"]),
        .plugin(name: "ResourceLoaderWSDLPlugin", capability: .buildTool(), dependencies: ["ResourceLoaderWSDLTool"]),
        .plugin(
            name: "GenerateSOAPResources",
            capability: .command(
                intent: .custom(
                    verb: "generate-soap-resources",
                    description: "Generate SOAP resources from each target's .wsdl file into its Generated folder"),
                permissions: [.writeToPackageDirectory(reason: "It writes the generated Types and Operations files into each target's Generated folder")]),
            dependencies: ["ResourceLoaderWSDLTool"]
        ),
        .target(
            name: "ResourceLoaderAsyncHTTPClient",
            dependencies: ["ResourceLoader", tracingForAsyncHTTPClient] + asyncHTTPClientProducts
        ),
        .target(name: "ResourceLoaderLogging", dependencies: ["ResourceLoader", logging]),
        .target(name: "ResourceLoaderMetrics", dependencies: ["ResourceLoader", metrics]),
        .target(name: "ResourceLoaderTracing", dependencies: ["ResourceLoader", tracing]),
        .target(name: "ResourceLoaderXMLSignature", dependencies: ["ResourceLoader"] + xmlSignatureProducts),
        .testTarget(
            name: "ResourceLoaderTests",
            dependencies: [
                "ResourceLoader", "ResourceLoaderTesting", "ResourceLoaderAsyncHTTPClient", "CResourceLoaderZlib",
                inMemoryTracingForAsyncHTTPClient, tracingForAsyncHTTPClient,
            ] + asyncHTTPClientProducts + asyncHTTPClientErrorProducts,
            resources: [.copy("Fixtures")]
        ),
        // The signer's tests: they compile only with the XMLSignature trait on.
        .testTarget(
            name: "ResourceLoaderXMLSignatureTests",
            dependencies: ["ResourceLoader", "ResourceLoaderTesting", "ResourceLoaderXMLSignature"] + xmlSignatureProducts
        ),
        .testTarget(name: "ResourceLoaderWSDLTests", dependencies: ["ResourceLoaderWSDL", "ResourceLoader"]),
        .testTarget(name: "ResourceLoaderWSDLToolTests", dependencies: ["ResourceLoaderWSDLTool", "ResourceLoaderWSDL"]),
        // Code generated from a spyne service's WSDL, checked in under Generated/ and called
        // against the live service (Fixtures/ holds the service and a zeep client).
        .testTarget(
            name: "ResourceLoaderWSDLIntegrationTests", dependencies: ["ResourceLoaderWSDL", "ResourceLoader"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "ResourceLoader", "ResourceLoaderTesting", "ResourceLoaderAsyncHTTPClient",
                // For the snippets of ObservingOnAServer.md, compiled only with the traits on.
                "ResourceLoaderLogging", "ResourceLoaderMetrics", "ResourceLoaderTracing", logging, metrics,
                tracingForEitherTrait,
                // For the signing snippet of XMLAndSOAPResources.md, compiled only with its trait on.
                "ResourceLoaderXMLSignature",
            ] + asyncHTTPClientProducts + xmlSignatureProducts
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
                "ResourceLoaderAsyncHTTPClient",
                logging,
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
                metrics,
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                tracingForEitherTrait,
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ] + asyncHTTPClientProducts
        ),
    ],
    swiftLanguageModes: [.v6]
)
