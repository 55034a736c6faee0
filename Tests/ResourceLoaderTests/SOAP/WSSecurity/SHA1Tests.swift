import Foundation
@testable import ResourceLoader
import Testing

@Suite("SHA-1")
struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// FIPS 180 / RFC 3174 test vectors.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "a49b2446a02c645bf419f995b67091253a04a259"),
    ])
    func knownVectors(message: String, digest: String) {
        #expect(hex(SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionAs() {
        #expect(hex(SHA1.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func messagesAroundTheBlockBoundaryAndPiecewiseUpdates() {
        // Lengths 55, 56 and 64 take the padding's edge cases; fed whole or byte by byte, alike.
        let expected = [
            55: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
            56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            64: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
        ]
        for (length, digest) in expected {
            let message = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(hex(SHA1.hash(message)) == digest, "length \(length)")
            var piecewise = SHA1()
            for byte in message { piecewise.update([byte]) }
            #expect(hex(piecewise.finalize()) == digest, "length \(length), piecewise")
        }
    }
}
