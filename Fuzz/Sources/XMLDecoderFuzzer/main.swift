import Foundation

// The 'xml-decoder' harness. Build and run it with `Fuzz/run.sh xml-decoder [seconds]`; the checks live in
// Tests/ResourceLoaderTests/Reliability/FuzzEntryPoints.swift, shared with FuzzCorpusReplayTests.

/// libFuzzer's entry point: runs the 'xml-decoder' checks on one input and traps on any violation.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let problems = FuzzEntryPoints.run(.xmlDecoder, data)
    if !problems.isEmpty {
        fatalError("xml-decoder invariant violated: " + problems.joined(separator: "; "))
    }
    return 0
}
