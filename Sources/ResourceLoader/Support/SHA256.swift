import Foundation

/// SHA-256 (FIPS 180-4), streaming: `update(_:)` with the message in pieces of any size, then
/// `finalize()`.
///
/// It needs no key, so it lives in the dependency-free core: it gives the `DigestValue` of the
/// references an XML Signature signs (only the signature itself needs a cryptography package,
/// see ``WSSecuritySigningKey``), and it verifies downloads as their bytes are written
/// (``DownloadResourceType/expectedSHA256``, `Content-Digest` and `Repr-Digest`).
///
/// Whole blocks are compressed straight from the caller's buffer; only the tail of a piece that
/// does not fill a block is copied, into a buffer made once per hasher.
package struct SHA256: Sendable {
    private static let roundConstants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    private var h0: UInt32 = 0x6A09_E667
    private var h1: UInt32 = 0xBB67_AE85
    private var h2: UInt32 = 0x3C6E_F372
    private var h3: UInt32 = 0xA54F_F53A
    private var h4: UInt32 = 0x510E_527F
    private var h5: UInt32 = 0x9B05_688C
    private var h6: UInt32 = 0x1F83_D9AB
    private var h7: UInt32 = 0x5BE0_CD19
    /// Bytes not yet compressed: fewer than 64.
    private var pending: [UInt8] = []
    /// The number of bytes hashed so far.
    private var length: UInt64 = 0

    /// A hasher with an empty message.
    package init() {
        pending.reserveCapacity(64)
    }

    /// The 32-byte digest of `bytes`.
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var sha = SHA256()
        sha.update(bytes)
        return sha.finalize()
    }

    /// Adds the bytes in `buffer` to the message.
    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress, buffer.count > 0 else { return }
        var remaining = buffer.count
        length &+= UInt64(remaining)
        Self.roundConstants.withUnsafeBufferPointer { constants in
            // 64 words of message schedule, then 16 (64 bytes) to compress a block put together
            // from the pending bytes and the start of this piece.
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { scratch in
                let schedule = UnsafeMutableBufferPointer(rebasing: scratch[0..<64])
                if !pending.isEmpty {
                    let taken = min(64 - pending.count, remaining)
                    pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: taken))
                    base += taken
                    remaining -= taken
                    if pending.count == 64 {
                        let block = UnsafeMutableRawPointer(scratch.baseAddress.unsafelyUnwrapped + 64)
                        pending.withUnsafeBytes { block.copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: 64) }
                        pending.removeAll(keepingCapacity: true)
                        compress(UnsafeRawPointer(block), schedule, constants)
                    }
                }
                while remaining >= 64 {
                    compress(base, schedule, constants)
                    base += 64
                    remaining -= 64
                }
                if remaining > 0 {
                    pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: remaining))
                }
            }
        }
    }

    /// Adds `data` to the message.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the message.
    package mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if handled == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    /// The 32-byte digest of the message. The hasher is spent: it must not be updated again.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        let padding = (55 &- Int(length % 64) + 64) % 64
        tail.append(contentsOf: repeatElement(0, count: padding))
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let hashedLength = length
        tail.withUnsafeBytes { update($0) }
        length = hashedLength
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// Compresses the 64 bytes at `block` into the state; `schedule` holds 64 words of scratch.
    @inline(__always)
    private mutating func compress(
        _ block: UnsafeRawPointer,
        _ schedule: UnsafeMutableBufferPointer<UInt32>,
        _ constants: UnsafeBufferPointer<UInt32>
    ) {
        let w = schedule.baseAddress.unsafelyUnwrapped
        let k = constants.baseAddress.unsafelyUnwrapped
        for index in 0..<16 {
            w[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self))
        }
        for index in 16..<64 {
            let w15 = w[index &- 15]
            let w2 = w[index &- 2]
            let s0 = Self.rotr(w15, 7) ^ Self.rotr(w15, 18) ^ (w15 >> 3)
            let s1 = Self.rotr(w2, 17) ^ Self.rotr(w2, 19) ^ (w2 >> 10)
            w[index] = w[index &- 16] &+ s0 &+ w[index &- 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
        for index in 0..<64 {
            let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ s1 &+ choice &+ k[index] &+ w[index]
            let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = s0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
        h5 &+= f
        h6 &+= g
        h7 &+= h
    }

    @inline(__always)
    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 &- count))
    }
}
