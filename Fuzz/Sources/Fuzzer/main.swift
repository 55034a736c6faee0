import Foundation

// Every harness's entry point. `Fuzz/run.sh HARNESS [seconds]` links this file into
// `.build-fuzz/bin/HARNESS`, and the binary's file name picks the harness; the checks live in
// Tests/ResourceLoaderTests/Reliability/FuzzEntryPoints.swift, shared with FuzzCorpusReplayTests.

/// The harness this binary runs, named by the binary's file name (`xml-tree`, `json`, …).
let harness: FuzzEntryPoints.Harness = {
    let name = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
    guard let harness = FuzzEntryPoints.Harness(rawValue: name) else {
        fatalError("no fuzzing harness named '\(name)': name the binary after one of "
            + FuzzEntryPoints.Harness.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return harness
}()

/// libFuzzer's entry point: runs the harness's checks on one input and traps on any violation.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let problems = FuzzEntryPoints.run(harness, data)
    if !problems.isEmpty {
        fatalError("\(harness.rawValue) invariant violated: " + problems.joined(separator: "; "))
    }
    return 0
}
