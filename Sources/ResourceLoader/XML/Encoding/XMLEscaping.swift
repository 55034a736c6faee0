import Foundation

/// Escaping and number formatting straight into UTF-8 bytes, for ``XMLEncodingSink``.
///
/// The output is the same as ``XMLWriter``'s: `& < > " '` as entities, CR as `&#xD;` (and in
/// attribute values LF as `&#xA;` and tab as `&#x9;`), so that the text survives parsing
/// unchanged. Runs of bytes that need nothing are copied whole.
enum XMLEscaping {
    /// Appends `value` to `output`, escaped; `false`, with `output` partly written, when
    /// `value` holds a character XML 1.0 does not allow.
    static func escape(_ value: String, inAttribute: Bool, into output: inout [UInt8]) -> Bool {
        var value = value
        return value.withUTF8 { escape($0, inAttribute: inAttribute, into: &output) }
    }

    /// Appends the UTF-8 text `bytes` (valid UTF-8, as a `String`'s) to `output`, escaped;
    /// `false` when it holds a character XML 1.0 does not allow.
    static func escape(_ bytes: UnsafeBufferPointer<UInt8>, inAttribute: Bool, into output: inout [UInt8]) -> Bool {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            // Letters, digits above `>` and most of UTF-8 need nothing: the common case.
            if byte > 0x3E && byte != 0xEF {
                index += 1
                continue
            }
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&apos;"
            case UInt8(ascii: "\r"): replacement = "&#xD;"
            case UInt8(ascii: "\n") where inAttribute: replacement = "&#xA;"
            case UInt8(ascii: "\t") where inAttribute: replacement = "&#x9;"
            case UInt8(ascii: "\n"), UInt8(ascii: "\t"), 0x20...0x3E:
                index += 1
                continue
            case 0xEF:
                // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters; the rest of
                // what a String holds is.
                if index + 2 < count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE { return false }
                index += 1
                continue
            default:
                // The other C0 controls, NUL among them.
                return false
            }
            if runStart < index {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart ..< index]))
            }
            replacement.withUTF8Buffer { output.append(contentsOf: $0) }
            index += 1
            runStart = index
        }
        if runStart < count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart ..< count]))
        }
        return true
    }

    /// Appends `text`'s UTF-8 as it is, copied whole (the text of a name or of a number).
    static func append(utf8Of text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Appends `value` in decimal.
    static func append(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        append(value.magnitude, to: &output)
    }

    /// Appends `value` in decimal.
    static func append(_ value: UInt64, to output: inout [UInt8]) {
        if value < 10 {
            output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // At most 20 digits, written from the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start ..< 20]))
        }
    }

    /// Appends `value` as `Decimal.description` writes it (its own digits, never an exponent),
    /// read from its storage without the description's arithmetic; `false`, with nothing
    /// written, for a value this does not handle (NaN, a significand of more than 64 bits, or a
    /// platform whose `Decimal` is stored in neither known layout), which the caller writes by
    /// `description`.
    static func append(_ value: Decimal, to output: inout [UInt8]) -> Bool {
        guard let layout = decimalLayout else { return false }
        return appendFromStorage(value, layout: layout, to: &output)
    }

    /// Where a `Decimal`'s second byte keeps its length (4 bits) and sign. Both layouts store an
    /// `Int8` exponent, that byte, two reserved bytes and eight 16-bit words of significand, low
    /// word first.
    enum DecimalLayout: CaseIterable {
        /// NSDecimal's bit fields (Darwin, swift-corelibs-foundation): length in the low 4 bits,
        /// the sign in bit 4.
        case lengthInLowBits
        /// swift-foundation's: length in the high 4 bits, the sign in bit 3.
        case lengthInHighBits
    }

    /// The layout this platform's `Decimal` has, found once by checking both against
    /// `description`; `nil` when neither matches.
    static let decimalLayout: DecimalLayout? = {
        guard MemoryLayout<Decimal>.size == 20, UInt16(littleEndian: 1) == 1 else { return nil }
        let samples = ["0", "1", "-1", "12.5", "-0.0042", "123456789012345678", "1e5", "-7.25e-3", "18446744073709551615"]
            .compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        return DecimalLayout.allCases.first { layout in
            samples.count == 9 && samples.allSatisfy { value in
                var bytes: [UInt8] = []
                return appendFromStorage(value, layout: layout, to: &bytes) && bytes.elementsEqual(value.description.utf8)
            }
        }
    }()

    private static func appendFromStorage(_ value: Decimal, layout: DecimalLayout, to output: inout [UInt8]) -> Bool {
        withUnsafeBytes(of: value) { storage -> Bool in
            let exponent = Int(Int8(bitPattern: storage[0]))
            let length: Int
            let isNegative: Bool
            switch layout {
            case .lengthInLowBits:
                length = Int(storage[1] & 0x0F)
                isNegative = storage[1] & 0x10 != 0
            case .lengthInHighBits:
                length = Int(storage[1] >> 4)
                isNegative = storage[1] & 0x08 != 0
            }
            // A longer significand is left to `description`.
            guard length <= 4 else { return false }
            if length == 0 {
                guard !isNegative else { return false }
                output.append(UInt8(ascii: "0"))
                return true
            }
            var significand: UInt64 = 0
            for word in 0 ..< length {
                let low = UInt64(storage[4 + 2 * word]), high = UInt64(storage[5 + 2 * word])
                significand |= (high << 8 | low) << (16 * word)
            }
            if isNegative { output.append(UInt8(ascii: "-")) }
            if exponent >= 0 {
                append(significand, to: &output)
                output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: exponent))
                return true
            }
            var digitCount = 1
            var rest = significand / 10
            while rest > 0 {
                digitCount += 1
                rest /= 10
            }
            let scale = -exponent
            if scale < digitCount {
                let start = output.count
                append(significand, to: &output)
                output.insert(UInt8(ascii: "."), at: start + digitCount - scale)
            } else {
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: scale - digitCount))
                append(significand, to: &output)
            }
            return true
        }
    }
}
