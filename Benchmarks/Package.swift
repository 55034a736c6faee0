// swift-tools-version: 6.1
import PackageDescription

import Foundation

/// The `-package-name` SwiftPM gives the root package's modules: its identity, which for a
/// dependency by path is the name of the folder the repository was cloned into, as a C99
/// identifier. The benchmark executable is compiled with the same name, so that it can reach the
/// root package's `package` declarations (`ContentDecoder`), which are not public API.
let rootPackageName: String = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL.lastPathComponent.lowercased()
    let name = String(folder.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    return name.first?.isNumber == true ? "_" + name : name
}()

// The benchmark suite: one executable that measures ResourceLoader against the floor (raw
// Foundation code) and against the libraries users compare it with, all in one run, and writes
// `results/latest.json`. See `Docs/Performance.md` for the command and the results.
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // By path, with a fixed name, so the package identity does not depend on the folder the
        // repository was cloned into.
        .package(name: "ResourceLoader", path: "..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/drmohundro/SWXMLHash", exact: "8.1.1"),
        .package(url: "https://github.com/CoreOffice/XMLCoder", exact: "0.18.2"),
        // The same URLs as the root package's (which the AsyncHTTPClient trait brings in).
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Counts calls to malloc and friends, process-wide, by interposing them (glibc only;
        // elsewhere the counters stay at zero and allocations are reported as unavailable).
        .target(name: "MallocCounter"),
        .executableTarget(
            name: "resourceloader-bench",
            dependencies: [
                "MallocCounter",
                .product(name: "ResourceLoader", package: "ResourceLoader"),
                .product(name: "ResourceLoaderAsyncHTTPClient", package: "ResourceLoader"),
                .product(name: "ResourceLoaderWSDL", package: "ResourceLoader"),
                .product(name: "SWXMLHash", package: "SWXMLHash"),
                .product(name: "XMLCoder", package: "XMLCoder"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The root package's name in place of this package's own, for ContentDecoder.
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", rootPackageName])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
