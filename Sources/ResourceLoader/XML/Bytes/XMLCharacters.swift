/// Character classes of XML 1.0 (fifth edition) and Namespaces 1.0, over code points and
/// UTF-8 bytes.
///
/// The tokenizer tests ASCII bytes with comparisons (or one look-up in ``nameClasses``) and
/// decodes a scalar only where a byte above 0x7F starts one.
enum XMLCharacters {
    /// A readable address for an input of no bytes, so that the scanners' pointer is never
    /// `nil`. Nothing is ever read through it: every read is checked against the input's count.
    nonisolated(unsafe) static let noBytes: UnsafePointer<UInt8> = {
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        storage.initialize(to: 0)
        return UnsafePointer(storage)
    }()

    /// Per byte: bit 0, an ASCII name start character; bit 1, an ASCII name character; bit 2, a
    /// byte above 0x7F (the start of a scalar the name scanner decodes). Allocated once and
    /// never freed; read through a pointer so a look-up is one load even in unoptimised builds.
    nonisolated(unsafe) static let nameClasses: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for value in 0..<256 {
            table[value] = value < 128 ? asciiNameTable[value] : 4
        }
        return UnsafePointer(table)
    }()

    /// Whether two names, prefixes or namespace names are the same as XML compares them: code
    /// point by code point. Swift's `==` compares strings by canonical equivalence (`é` written
    /// as U+00E9 equals `e` followed by U+0301), which XML does not; it still tells most unequal
    /// strings apart at once, so the code points are compared only when it finds them equal.
    @inline(__always)
    static func equalAsWritten(_ first: String, _ second: String) -> Bool {
        first == second && first.utf8.elementsEqual(second.utf8)
    }

    /// ``equalAsWritten(_:_:)-(String,String)`` for optional strings: two `nil`s are equal.
    @inline(__always)
    static func equalAsWritten(_ first: String?, _ second: String?) -> Bool {
        switch (first, second) {
        case (nil, nil): true
        case (let first?, let second?): equalAsWritten(first, second)
        default: false
        }
    }

    /// The length of the legal XML character (`Char`) whose UTF-8 starts at `bytes[index]`, a
    /// byte above 0x7F, or 0 when the bytes there are not one (not UTF-8, cut short, a
    /// surrogate, U+FFFE or U+FFFF): the fast check of the text scanners, which call
    /// ``decode(_:at:end:)`` only to tell which error it is.
    static func legalScalarLength(_ bytes: UnsafePointer<UInt8>, _ index: Int, _ end: Int) -> Int {
        let lead = bytes[index]
        if lead >= 0xC2 && lead <= 0xDF {
            // U+0080…U+07FF: all characters.
            guard index &+ 1 < end, bytes[index &+ 1] & 0xC0 == 0x80 else { return 0 }
            return 2
        }
        if lead >= 0xE0 && lead <= 0xEF {
            guard index &+ 2 < end else { return 0 }
            let second = bytes[index &+ 1]
            let third = bytes[index &+ 2]
            guard second & 0xC0 == 0x80 && third & 0xC0 == 0x80 else { return 0 }
            let scalar = UInt32(lead & 0x0F) &* 4096 | UInt32(second & 0x3F) &* 64 | UInt32(third & 0x3F)
            guard scalar >= 0x800 && (scalar < 0xD800 || scalar > 0xDFFF) && scalar <= 0xFFFD else { return 0 }
            return 3
        }
        if lead >= 0xF0 && lead <= 0xF4 {
            guard index &+ 3 < end else { return 0 }
            let second = bytes[index &+ 1]
            let third = bytes[index &+ 2]
            let fourth = bytes[index &+ 3]
            guard second & 0xC0 == 0x80 && third & 0xC0 == 0x80 && fourth & 0xC0 == 0x80 else { return 0 }
            let scalar =
                UInt32(lead & 0x07) &* 262_144 | UInt32(second & 0x3F) &* 4096 | UInt32(third & 0x3F) &* 64
                | UInt32(fourth & 0x3F)
            guard scalar >= 0x1_0000 && scalar <= 0x10_FFFF else { return 0 }
            return 4
        }
        return 0
    }

    /// Bit 0: name start character; bit 1: name character (ASCII only).
    static let asciiNameTable: [UInt8] = (0..<128).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: ":"):
            return 3
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return 2
        default:
            return 0
        }
    }

    /// XML 1.0 production 2, `Char`.
    @inline(__always)
    static func isChar(_ scalar: UInt32) -> Bool {
        if scalar < 0x20 { return scalar == 0x09 || scalar == 0x0A || scalar == 0x0D }
        if scalar <= 0xD7FF { return true }
        if scalar < 0xE000 { return false }
        if scalar <= 0xFFFD { return true }
        return scalar >= 0x1_0000 && scalar <= 0x10_FFFF
    }

    /// XML 1.0 production 3, `S`.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// XML 1.0 production 4, `NameStartChar`.
    static func isNameStart(_ scalar: UInt32) -> Bool {
        if scalar < 0x80 { return asciiNameTable[Int(scalar)] & 1 != 0 }
        switch scalar {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
            0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD,
            0x1_0000...0xE_FFFF:
            return true
        default:
            return false
        }
    }

    /// XML 1.0 production 4a, `NameChar`.
    static func isNameChar(_ scalar: UInt32) -> Bool {
        if scalar < 0x80 { return asciiNameTable[Int(scalar)] != 0 }
        if isNameStart(scalar) { return true }
        return scalar == 0xB7 || (0x300...0x36F).contains(scalar) || (0x203F...0x2040).contains(scalar)
    }

    /// XML 1.0 production 13, `PubidChar`.
    static func isPublicIDChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0D, 0x0A: true
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-'()+,./:=?;!*#@$_%".utf8).contains(byte)
        }
    }

    /// The result of decoding one UTF-8 sequence.
    enum Decoded {
        /// A scalar of `length` bytes.
        case scalar(UInt32, length: Int)
        /// The bytes are not UTF-8 (overlong, a surrogate, above U+10FFFF, a bad continuation).
        case invalid
        /// The bytes end inside the sequence.
        case truncated
    }

    /// Decodes the UTF-8 sequence at `index` (whose first byte is above 0x7F).
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, end: Int) -> Decoded {
        let lead = bytes[index]
        let length: Int
        var scalar: UInt32
        var minimum: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2; scalar = UInt32(lead & 0x1F); minimum = 0x80
        case 0xE0...0xEF:
            length = 3; scalar = UInt32(lead & 0x0F); minimum = 0x800
        case 0xF0...0xF4:
            length = 4; scalar = UInt32(lead & 0x07); minimum = 0x1_0000
        default:
            return .invalid
        }
        var offset = 1
        while offset < length {
            guard index + offset < end else {
                // Report a bad continuation that is present before a truncation.
                return .truncated
            }
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return .invalid }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
            offset += 1
        }
        if scalar < minimum || scalar > 0x10_FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF) { return .invalid }
        minimum = 0
        return .scalar(scalar, length: length)
    }

    /// Appends `scalar`'s UTF-8 to `output`.
    static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x1_0000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
