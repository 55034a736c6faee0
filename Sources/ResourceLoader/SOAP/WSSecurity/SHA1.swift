/// SHA-1 (FIPS 180-4), for WS-Security's `PasswordDigest` and nothing else: the
/// UsernameToken profile fixes the algorithm, and the package takes no dependency for it.
///
/// SHA-1 is broken for collision resistance; the digest here only hides a password from a
/// passive reader, as the profile intends, and never signs anything.
struct SHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// Bytes not yet processed: fewer than 64.
    private var buffer: [UInt8] = []
    /// The number of bytes hashed so far.
    private var length: UInt64 = 0

    init() {
        buffer.reserveCapacity(64)
    }

    /// The digest of `bytes`.
    static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    /// Adds bytes to the message.
    mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            buffer.append(byte)
            length &+= 1
            if buffer.count == 64 {
                processBlock()
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The 20-byte digest of the message.
    mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        buffer.append(0x80)
        if buffer.count > 56 {
            while buffer.count < 64 { buffer.append(0) }
            processBlock()
            buffer.removeAll(keepingCapacity: true)
        }
        while buffer.count < 56 { buffer.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        processBlock()
        buffer.removeAll(keepingCapacity: true)
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// Processes the 64 bytes in ``buffer``.
    private mutating func processBlock() {
        var words = [UInt32](repeating: 0, count: 80)
        for index in 0..<16 {
            let base = index * 4
            words[index] = UInt32(buffer[base]) << 24 | UInt32(buffer[base + 1]) << 16 | UInt32(buffer[base + 2]) << 8 | UInt32(buffer[base + 3])
        }
        for index in 16..<80 {
            words[index] = rotateLeft(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
        }
        var (a, b, c, d, e) = state
        for index in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch index {
            case 0..<20:
                f = (b & c) | (~b & d)
                k = 0x5A82_7999
            case 20..<40:
                f = b ^ c ^ d
                k = 0x6ED9_EBA1
            case 40..<60:
                f = (b & c) | (b & d) | (c & d)
                k = 0x8F1B_BCDC
            default:
                f = b ^ c ^ d
                k = 0xCA62_C1D6
            }
            let temp = rotateLeft(a, 5) &+ f &+ e &+ k &+ words[index]
            e = d
            d = c
            c = rotateLeft(b, 30)
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    private func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
