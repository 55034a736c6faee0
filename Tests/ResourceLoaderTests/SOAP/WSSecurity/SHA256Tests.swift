import Foundation
@testable import ResourceLoader
import Testing

@Suite("SHA-256: the FIPS 180-4 examples")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func theStandardsExamples() {
        #expect(Self.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(SHA256.hash(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func blockBoundariesDigestLikeOneUpdate() {
        // 55, 56 and 64 bytes pad into one or two blocks; pieces of any size give one digest.
        for count in [55, 56, 63, 64, 65, 119, 120, 1000] {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var pieces = SHA256()
            for chunk in stride(from: 0, to: count, by: 7) { pieces.update(bytes[chunk ..< min(chunk + 7, count)]) }
            #expect(pieces.finalize() == SHA256.hash(bytes))
        }
    }
}
