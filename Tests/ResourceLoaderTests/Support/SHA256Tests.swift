import Foundation
@testable import ResourceLoader
import Testing

@Suite("SHA-256: the FIPS 180-4 examples, pieces of every size, hashlib on every length and the Monte Carlo procedure")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The FIPS 180-4 / CAVP examples: (message, digest).
    static let examples: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test func theStandardsExamples() {
        for (message, digest) in Self.examples {
            #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest, "message \(message.debugDescription)")
        }
    }

    @Test func oneMillionAs() {
        // FIPS 180-4's long message, in pieces of 1000 bytes and in one.
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        var sha = SHA256()
        for _ in 0..<1000 { sha.update(piece) }
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(Self.hex(sha.finalize()) == expected)
        #expect(Self.hex(SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))) == expected)
    }

    @Test func everySplitIntoTwoPiecesDigestsLikeOneUpdate() {
        for (message, digest) in Self.examples {
            let bytes = Array(message.utf8)
            for cut in 0...bytes.count {
                var sha = SHA256()
                sha.update(bytes[..<cut])
                sha.update(bytes[cut...])
                #expect(Self.hex(sha.finalize()) == digest, "cut at \(cut) of \(bytes.count)")
            }
        }
    }

    @Test func everySplitIntoThreePiecesAroundBlockBoundaries() {
        // 130 bytes: three blocks' worth, with every pair of cuts.
        let bytes = (0..<130).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hash(bytes)
        for first in 0...bytes.count {
            for second in first...bytes.count {
                var sha = SHA256()
                bytes[..<first].withUnsafeBytes { sha.update($0) }
                sha.update(Data(bytes[first..<second]))
                sha.update(bytes[second...])
                #expect(sha.finalize() == whole, "cuts at \(first) and \(second)")
            }
        }
    }

    @Test func paddingLengthsAroundOneBlock() {
        // 55, 56 and 64 bytes pad into one or two blocks; a non-contiguous sequence digests alike.
        for count in [55, 56, 63, 64, 65, 119, 120, 1000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var pieces = SHA256()
            for chunk in stride(from: 0, to: count, by: 7) { pieces.update(bytes[chunk ..< min(chunk + 7, count)]) }
            #expect(pieces.finalize() == SHA256.hash(bytes.lazy.map { $0 }))
        }
    }

    @Test func agreesWithSha256sum() async throws {
        // An independent implementation, on messages of lengths around every padding case.
        guard let tool = ["/usr/bin/sha256sum", "/bin/sha256sum"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            try #require(ProcessInfo.processInfo.environment["CI"] != "true", "sha256sum is needed under CI=true")
            return
        }
        var generator = SystemRandomNumberGenerator()
        for count in [1, 63, 64, 65, 4095, 65_537] {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let printed = try await offTheCooperativePool {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = [file.path]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let printed = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return printed
            }
            let digest = String(decoding: printed, as: UTF8.self).prefix(64)
            #expect(Self.hex(SHA256.hash(bytes)) == String(digest), "\(count) bytes")
        }
    }

    /// Bytes from a fixed linear congruential sequence, the same on every run.
    static func seededBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// The 100 checkpoints of the CAVP Monte Carlo procedure for SHA-256 from `seed`: each is
    /// the last of 1,000 digests, each of the three before it concatenated.
    static func monteCarlo(seed: [UInt8]) -> [[UInt8]] {
        var seed = seed
        var checkpoints: [[UInt8]] = []
        for _ in 0..<100 {
            var window = [seed, seed, seed]
            for _ in 0..<1000 {
                let next = SHA256.hash(window[0] + window[1] + window[2])
                window = [window[1], window[2], next]
            }
            seed = window[2]
            checkpoints.append(seed)
        }
        return checkpoints
    }

    @Test func agreesWithPythonsHashlibOnEveryLengthAndTheMonteCarloProcedure() async throws {
        // Python's hashlib (OpenSSL's SHA-256) as the reference: every message length from 0 to
        // 600 bytes and around each block boundary to 8 KiB (the CAVP short and long message
        // shapes), and the CAVP Monte Carlo procedure's checkpoints from a seed.
        guard PythonFixtureServer.pythonRuns("import hashlib") else {
            try #require(ProcessInfo.processInfo.environment["CI"] != "true", "python3 is needed under CI=true")
            return
        }
        let lengths = Array(0...600) + stride(from: 640, through: 8192, by: 64).flatMap { [$0 - 1, $0, $0 + 1] }
        let messages = lengths.map { Self.seededBytes($0, seed: UInt64($0) &+ 17) }
        let seed = Self.seededBytes(32, seed: 2026)
        let script = """
            import hashlib, sys
            lines = sys.stdin.read().split("\\n")
            for line in lines[1:]:
                print(hashlib.sha256(bytes.fromhex(line)).hexdigest())
            md = bytes.fromhex(lines[0])
            for _ in range(100):
                a = b = c = md
                for _ in range(1000):
                    a, b, c = b, c, hashlib.sha256(a + b + c).digest()
                md = c
                print(md.hex())
            """
        let input = ([Self.hex(seed)] + messages.map(Self.hex)).joined(separator: "\n")
        let output = try await offTheCooperativePool { try ContentDecoderTests.python(script, input: Array(input.utf8)) }
        let printed = try #require(output, "python3 could not run the script")
        let expected = String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init)
        try #require(expected.count == messages.count + 100, "python printed \(expected.count) lines")
        for (index, message) in messages.enumerated() where Self.hex(SHA256.hash(message)) != expected[index] {
            Issue.record("\(message.count) bytes: ours \(Self.hex(SHA256.hash(message))), hashlib \(expected[index])")
        }
        #expect(Self.monteCarlo(seed: seed).map(Self.hex) == Array(expected.suffix(100)))
    }
}
