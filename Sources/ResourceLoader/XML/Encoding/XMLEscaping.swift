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
}
