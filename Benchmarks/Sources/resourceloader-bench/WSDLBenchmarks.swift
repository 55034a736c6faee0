import Foundation
import ResourceLoader
import ResourceLoaderWSDL

// The WSDL group: generating code from the largest real WSDL of the corpus, against zeep loading
// the same document; a debug build of the code generated from it; and a resource the generator
// made (GeneratedUserList/, from wsdl/UserList.wsdl) decoding the XML group's document, against
// the hand-written one.

/// `../shared/wsdls/paypal/PayPalSvc.wsdl`, beside the repository: 700 KB over four files.
let paypalWSDL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/wsdls/paypal/PayPalSvc.wsdl")

/// This repository, which the package of generated code depends on by path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The seconds a debug build of `output`'s code takes, one clean module per round: a package that
/// depends on this repository holds the code `rounds` times over, each copy a target of its own,
/// and a first build of an empty target compiles ResourceLoader, so that each round's build
/// compiles only the generated code.
func debugBuildSeconds(of output: WSDLGeneratorOutput, rounds: Int) throws -> [Double] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsdl-build-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let targets = ["Warm"] + (1...rounds).map { "PayPal\($0)" }
    for target in targets {
        let sources = folder.appendingPathComponent("Sources/\(target)")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        if target == "Warm" {
            try Data("import ResourceLoader\n".utf8).write(to: sources.appendingPathComponent("Warm.swift"))
        } else {
            for file in output.files { try Data(file.contents.utf8).write(to: sources.appendingPathComponent(file.name)) }
        }
    }
    let product = #".product(name: "ResourceLoader", package: "\#(repositoryRoot.lastPathComponent)")"#
    let manifest = """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: "GeneratedPayPal",
            dependencies: [.package(path: "\(repositoryRoot.path)")],
            targets: [
        \(targets.map { "        .target(name: \"\($0)\", dependencies: [\(product)])," }.joined(separator: "\n"))
            ],
            swiftLanguageModes: [.v6]
        )
        """
    try Data(manifest.utf8).write(to: folder.appendingPathComponent("Package.swift"))
    _ = try secondsToRun(["swift", "build", "--package-path", folder.path, "--target", "Warm"])
    return try targets.dropFirst().map { try secondsToRun(["swift", "build", "--package-path", folder.path, "--target", $0]) }
}

/// The seconds `arguments` takes to run to its end, output discarded.
func secondsToRun(_ arguments: [String]) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let start = now()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw HarnessError("\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)") }
    return Double(now() - start) / 1e9
}

func runWSDL(_ recorder: Recorder, quick: Bool) throws {
    // Generation: read and generate in this process; zeep as `python3 -c "zeep.Client(…)"`, the
    // command a Python user runs, interpreter start-up included. Turns alternate.
    if FileManager.default.fileExists(atPath: paypalWSDL.path) {
        let rounds = quick ? 3 : 9
        var ours: [Double] = []
        var zeep: [Double] = []
        var files = 0
        for _ in 0..<rounds {
            let start = now()
            let output = WSDLGenerator().generate(try WSDLReader().read(contentsOf: paypalWSDL))
            ours.append(Double(now() - start) / 1e9)
            files = output.files.count
            consume(output.files.reduce(0) { $0 + $1.contents.utf8.count })
            zeep.append(try secondsToRun(["python3", "-c", "import zeep; zeep.Client(\"\(paypalWSDL.path)\")"]))
        }
        guard files == WSDLGenerator.fileNames.count else { throw HarnessError("wsdl: \(files) files generated") }
        let scenario = "PayPalSvc.wsdl (700 KB, 4 files): read and generate"
        recorder.measurements.append(Measurement(group: "wsdl", scenario: scenario, contender: "WSDLGenerator", secondsPerIteration: median(ours)))
        recorder.measurements.append(Measurement(group: "wsdl", scenario: scenario, contender: "python -c zeep.Client", secondsPerIteration: median(zeep)))
        recorder.target("wsdl.generate_paypal_seconds", ratio: median(ours), atMost: 2.0,
                        detail: "seconds to read PayPalSvc.wsdl and generate its code (median of \(rounds))")
        let speed = pairedSpeedRatio(ours, zeep)
        recorder.target("wsdl.generate_vs_zeep", ratio: speed.ratio, atLeast: 10,
                        detail: "zeep.Client's command time over ours, PayPalSvc.wsdl (median of per-turn ratios; \(speed.spread))")

        // Compiling: the generated code in a debug build, as an adopter's first build of it.
        let output = WSDLGenerator().generate(try WSDLReader().read(contentsOf: paypalWSDL))
        let builds = try debugBuildSeconds(of: output, rounds: quick ? 1 : 3)
        let bytes = output.files.reduce(0) { $0 + $1.contents.utf8.count }
        recorder.measurements.append(Measurement(
            group: "wsdl", scenario: "debug build of the code generated from PayPalSvc.wsdl (\(bytes / 1000) KB of Swift)", contender: "swift build",
            secondsPerIteration: median(builds)))
        recorder.target("wsdl.compile_paypal_debug_seconds", ratio: median(builds), atMost: 90,
                        detail: "seconds for a debug build of the code generated from PayPalSvc.wsdl, ResourceLoader already built (median of \(builds.count))")
    } else {
        log("wsdl: \(paypalWSDL.path) is absent; the generation rows are left out")
    }

    // Decoding: the XML group's document through the generated resource and the hand-written one.
    let size = quick ? 1000 : 10_000
    let data = userDetailsDocument(count: size)
    let generated = try GeneratedGetUserDetails(GeneratedGetUserDetailsType(userID: "1")).result(from: data).get()
    let users = generated.getUserDetails.userModel
    guard users.count == size, users[size - 1].firstName == User.expected(size - 1).firstName else {
        throw HarnessError("wsdl: the generated resource did not read \(size) users")
    }
    guard try GetUserDetails().result(from: data).get().count == size else { throw HarnessError("wsdl: the hand-written resource lost users") }
    let timings = try interleave([
        Contender(name: "generated") { try GeneratedGetUserDetails(GeneratedGetUserDetailsType(userID: "1")).result(from: data).get().getUserDetails.userModel.count },
        Contender(name: "hand-written") { try GetUserDetails().result(from: data).get().count },
    ], rounds: quick ? 3 : 7, sampleSeconds: quick ? 0.05 : 0.25)
    for name in ["generated", "hand-written"] {
        let timing = timings[name]!
        recorder.measurements.append(Measurement(
            group: "wsdl", scenario: "decode \(size) records (\(data.count) bytes)", contender: name,
            secondsPerIteration: timing.secondsPerIteration, megabytesPerSecond: Double(data.count) / megabyte / timing.secondsPerIteration,
            allocationsPerIteration: timing.allocations))
    }
    let decode = pairedSpeedRatio(timings["generated"]!.samples, timings["hand-written"]!.samples)
    recorder.target("wsdl.generated_vs_handwritten_decode", ratio: decode.ratio, atLeast: 0.95,
                    detail: "speed of the generated getUserDetails resource over the hand-written one, \(size) records (median of per-round ratios; \(decode.spread))")
}
