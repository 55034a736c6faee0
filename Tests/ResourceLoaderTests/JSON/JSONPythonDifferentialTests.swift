import Foundation
@testable import ResourceLoader
import Testing

/// The parser against Python's `json` module, on a saved corpus: the `json-diff` fuzzing corpus
/// (`Fuzz/corpus/json-diff/`) and, where present, JSONTestSuite's parsing cases. Whatever ours
/// accepts, Python accepts with equal values; what only Python accepts is a known difference.
/// Needs `python3` on the path; skipped without it, except under `CI=true`.
@Suite("JSON against Python")
struct JSONPythonDifferentialTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JSON
        .deletingLastPathComponent()  // ResourceLoaderTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// Reads each path named on standard input with `json.loads`, and prints one line for each:
    /// `1` and the value dumped with sorted keys, or `0` and the error.
    static let script = """
        import json, sys
        for path in sys.stdin.read().splitlines():
            try:
                with open(path, "rb") as f:
                    value = json.loads(f.read())
                print("1 " + json.dumps(value, sort_keys=True, ensure_ascii=True))
            except Exception as error:
                print("0 " + type(error).__name__)
        """

    static func python(_ paths: [String]) throws -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        input.fileHandleForWriting.write(Data(paths.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The corpus: every file of `Fuzz/corpus/json-diff/` and of JSONTestSuite's `test_parsing`.
    static func corpus() throws -> [URL] {
        var folders = [repository.appendingPathComponent("Fuzz/corpus/json-diff")]
        if JSONTestSuiteTests.isPresent {
            folders.append(JSONTestSuiteTests.suiteDirectory.appendingPathComponent("test_parsing"))
        }
        return try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { !$0.lastPathComponent.hasPrefix(".") }
        }.sorted { $0.path < $1.path }
    }

    @Test func whatOursAcceptsPythonAcceptsWithEqualValues() async throws {
        let files = try Self.corpus()
        let paths = files.map(\.path)
        guard let lines = try await offTheCooperativePool({ try Self.python(paths) }) else {
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "python3 is required under CI=true")
            print("python3 is not available: JSON against Python is skipped")
            return
        }
        try #require(lines.count == files.count)
        var agreed = 0
        for (file, line) in zip(files, lines) {
            let name = file.lastPathComponent
            let data = try Data(contentsOf: file)
            let ours = Result { () throws -> Any in
                try JSONObjectBuilder.object(from: JSONParser.parse(data, options: JSONParsingOptions()))
            }
            let pythonAccepts = line.hasPrefix("1 ")
            switch ours {
            case .success(let value):
                guard pythonAccepts else {
                    Issue.record("\(name): ours accepts, Python refuses (\(line))")
                    continue
                }
                let theirs = try JSONObjectBuilder.object(from: JSONParser.parse(Data(line.dropFirst(2).utf8), options: JSONParsingOptions()))
                #expect(Self.equal(value, theirs), "\(name): \(line)")
                agreed += 1
            case .failure(let error):
                guard pythonAccepts else { continue }
                // Python keeps the last of repeated keys, reads lone surrogates (escaped or
                // encoded), UTF-16 and UTF-32, `NaN` and `Infinity`, and numbers beyond `Double`
                // as infinity.
                switch error as? JSONParsingError {
                case .duplicateKey, .loneSurrogate, .unsupportedEncoding, .numberOutOfRange: continue
                case .invalidUTF8(let offset):
                    // An encoded surrogate, which Python decodes with `surrogatepass`.
                    let bytes = [UInt8](data)
                    if offset + 1 < bytes.count, bytes[offset] == 0xED, bytes[offset + 1] >= 0xA0 { continue }
                case .unexpectedCharacter, .invalidNumber:
                    let text = String(decoding: data, as: UTF8.self)
                    if text.contains("NaN") || text.contains("Infinity") { continue }
                default: break
                }
                Issue.record("\(name): ours refuses (\(error)), Python accepts")
            }
        }
        #expect(agreed > 10)
    }

    /// Equal values, numbers compared as numbers (Python writes every float its own way).
    static func equal(_ a: Any, _ b: Any) -> Bool {
        if a is NSNull || b is NSNull { return a is NSNull && b is NSNull }
        if let a = a as? String { return (b as? String) == a }
        if let a = a as? NSNumber {
            guard let b = b as? NSNumber else { return false }
            // `JSONSerialization`'s `NSDecimalNumber`s convert to `Double` to within an ulp or so.
            let (x, y) = (a.doubleValue, b.doubleValue)
            return a.stringValue == b.stringValue || x == y || abs(x - y) <= 1e-15 * max(abs(x), abs(y))
        }
        if let a = a as? [String: Any] {
            guard let b = b as? [String: Any], a.count == b.count else { return false }
            return a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        }
        if let a = a as? [Any] {
            guard let b = b as? [Any], a.count == b.count else { return false }
            return zip(a, b).allSatisfy { equal($0, $1) }
        }
        return false
    }
}
