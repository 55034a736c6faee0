import Foundation
import ResourceLoader
import Testing

/// Replays the committed fuzzing corpus (`Fuzz/corpus/<harness>/`: the seeds, and every input a
/// harness once crashed on, minimised) through the same checks the libFuzzer harnesses run
/// (``FuzzEntryPoints``), so a fixed crash stays fixed without a fuzzing toolchain.
@Suite("Fuzz corpus replay")
struct FuzzCorpusReplayTests {
    /// `Fuzz/corpus/` at the repository root, found from this file's path.
    private static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Reliability
        .deletingLastPathComponent()  // ResourceLoaderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository
        .appendingPathComponent("Fuzz/corpus", isDirectory: true)

    private static func inputs(of harness: FuzzEntryPoints.Harness) throws -> [URL] {
        let folder = corpusDirectory.appendingPathComponent(harness.rawValue, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzEntryPoints.Harness.allCases)
    func everyCorpusInputPassesItsHarnessChecks(harness: FuzzEntryPoints.Harness) throws {
        let inputs = try Self.inputs(of: harness)
        #expect(!inputs.isEmpty, "no corpus for \(harness.rawValue)")
        for input in inputs {
            let problems = FuzzEntryPoints.run(harness, try Data(contentsOf: input))
            #expect(problems.isEmpty, "\(harness.rawValue)/\(input.lastPathComponent): \(problems)")
        }
    }

    @Test func everyCorpusFolderIsAHarness() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpusDirectory.path)
            .filter { !$0.hasPrefix(".") }
        #expect(Set(folders) == Set(FuzzEntryPoints.Harness.allCases.map(\.rawValue)))
    }

    @Test func theChecksCatchAViolation() {
        // A check that could never fail would make the replay meaningless: a tree walk over a
        // well-formed document passes, and a deliberately wrong expectation is reported.
        let tree = try? XMLTree(string: "<a><b/></a>")
        #expect(tree.map(FuzzEntryPoints.checkTreeShape) == [])
        let wrong = FuzzEntryPoints.expectParsingFailure(.timedOut, underlying: .noRoot, emptyData: false)
        #expect(!wrong.isEmpty)
    }
}
