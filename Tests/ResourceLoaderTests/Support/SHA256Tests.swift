import Foundation
@testable import ResourceLoader
import Testing

@Suite("SHA-256: the FIPS 180-4 examples, pieces of every size")
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
}
