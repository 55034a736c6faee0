import Foundation

// The 'xml-tree' harness. Build and run it with `Fuzz/run.sh xml-tree [seconds]`; the checks live in
// Tests/ResourceLoaderTests/Reliability/FuzzEntryPoints.swift, shared with FuzzCorpusReplayTests.

/// libFuzzer's entry point: runs the 'xml-tree' checks on one input and traps on any violation.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let problems = FuzzEntryPoints.run(.xmlTree, data)
    if !problems.isEmpty {
        fatalError("xml-tree invariant violated: " + problems.joined(separator: "; "))
    }
    return 0
}
