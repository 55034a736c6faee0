import Foundation
@testable import ResourceLoader
import Testing

/// ``XXH64`` against values from the reference implementation (Python's `xxhash` package).
@Suite("XXH64")
struct XXH64Tests {
    static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { XXH64.hash($0, seed: seed) }
    }

    /// Every path through the algorithm: empty, the tail alone (1, 3 bytes), stripes and a tail of
    /// words, a word and bytes (62 bytes), and many stripes with a 3-byte tail (1,027 bytes).
    @Test("the reference values, with seed 0 and seed 2654435761")
    func referenceValues() {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        let long = Array(repeating: Array(0...255 as ClosedRange<UInt8>), count: 4).flatMap { $0 } + Array("xyz".utf8)
        let cases: [([UInt8], UInt64, UInt64)] = [
            ([], 0xEF46_DB37_51D8_E999, 0xAC75_FDA2_929B_17EF),
            (Array("a".utf8), 0xD24E_C4F1_A98C_6E5B, 0x393D_A8B7_8992_279B),
            (Array("abc".utf8), 0x44BC_2CF5_AD77_0999, 0x1318_DF30_094A_85FD),
            (alphabet, 0x7639_D419_DE61_4EED, 0x82FB_2CAE_7E35_C906),
            (long, 0xE146_CB31_B65B_C21A, 0x8A66_B457_47EF_9DF4),
        ]
        for (bytes, unseeded, seeded) in cases {
            #expect(Self.hash(bytes) == unseeded, "\(bytes.count) bytes")
            #expect(Self.hash(bytes, seed: 2_654_435_761) == seeded, "\(bytes.count) bytes, seeded")
        }
    }

    @Test("one changed bit, or a run of zeros in place of the bytes, changes the value")
    func detectsDamage() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let original = Self.hash(bytes)
        for index in stride(from: 0, to: bytes.count, by: 997) {
            var flipped = bytes
            flipped[index] ^= 0x10
            #expect(Self.hash(flipped) != original, "bit flipped at \(index)")
        }
        var zeroed = bytes
        zeroed.replaceSubrange(4096..<8192, with: repeatElement(0, count: 4096))
        #expect(Self.hash(zeroed) != original)
    }
}
