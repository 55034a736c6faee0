import Foundation

/// Reads the SHA-256 a response declares in `Content-Digest` or `Repr-Digest` (RFC 9530).
///
/// Both fields are structured-field dictionaries (RFC 8941) whose members name an algorithm and
/// carry a byte sequence, as in `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`. Only
/// `sha-256` is read; other algorithms, and the parameters of any member, are ignored. The whole
/// dictionary is parsed as RFC 8941 says (strings may hold commas, a byte sequence may leave out
/// its `=` padding, a member may be a bare key with parameters); when a key appears twice, the
/// last one counts. A field that is not a valid dictionary, or whose `sha-256` member is not a
/// 32-byte byte sequence, is ignored as a whole, as RFC 8941 says for a field that fails to
/// parse.
enum DigestFields {
    /// The `sha-256` digest in the value of a `Content-Digest` or `Repr-Digest` field, if any.
    static func sha256(in fieldValue: String) -> SHA256Digest? {
        var parser = StructuredDictionaryParser(fieldValue)
        guard let members = parser.parse(), case .byteSequence(let bytes)? = members["sha-256"] else { return nil }
        return SHA256Digest(bytes: bytes)
    }
}

/// An RFC 8941 §4.2 parser of a dictionary field that keeps only what ``DigestFields`` reads:
/// each member's value when it is a byte sequence. Everything else (inner lists, integers,
/// decimals, strings, tokens, booleans, parameters) is checked and dropped.
private struct StructuredDictionaryParser {
    /// A member's value, as far as it is read.
    enum Value {
        case byteSequence(Data)
        case other
    }

    private let input: [UInt8]
    private var position = 0

    init(_ fieldValue: String) {
        input = Array(fieldValue.utf8)
    }

    /// The members by key, the last of a repeated key winning; `nil` when the field is not a
    /// dictionary.
    mutating func parse() -> [String: Value]? {
        skip(spaces: false)
        var members: [String: Value] = [:]
        while position < input.count {
            guard let key = key() else { return nil }
            if peek == UInt8(ascii: "=") {
                position += 1
                guard let value = itemOrInnerList() else { return nil }
                members[key] = value
            } else {
                guard parameters() else { return nil }
                members[key] = .other
            }
            skip(spaces: true)
            guard position < input.count else { break }
            guard input[position] == UInt8(ascii: ",") else { return nil }
            position += 1
            skip(spaces: true)
            // A trailing comma.
            guard position < input.count else { return nil }
        }
        return members
    }

    private var peek: UInt8? { position < input.count ? input[position] : nil }

    /// Skips SP, and HTAB too when `tabs` (the optional white space around a comma).
    private mutating func skip(spaces tabs: Bool) {
        while let byte = peek, byte == 0x20 || (tabs && byte == 0x09) { position += 1 }
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { isLowercaseLetter(byte) || (0x41...0x5A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `tchar` (RFC 9110 §5.6.2).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// A key: a lowercase letter or `*`, then lowercase letters, digits, `_`, `-`, `.`, `*`.
    private mutating func key() -> String? {
        guard let first = peek, Self.isLowercaseLetter(first) || first == UInt8(ascii: "*") else { return nil }
        let start = position
        while let byte = peek, Self.isLowercaseLetter(byte) || Self.isDigit(byte) || "_-.*".utf8.contains(byte) {
            position += 1
        }
        return String(decoding: input[start..<position], as: UTF8.self)
    }

    private mutating func itemOrInnerList() -> Value? {
        guard peek == UInt8(ascii: "(") else { return item() }
        position += 1
        while true {
            skip(spaces: false)
            guard let byte = peek else { return nil }
            if byte == UInt8(ascii: ")") {
                position += 1
                return parameters() ? .other : nil
            }
            guard item() != nil else { return nil }
            guard let next = peek, next == 0x20 || next == UInt8(ascii: ")") else { return nil }
        }
    }

    private mutating func item() -> Value? {
        guard let value = bareItem(), parameters() else { return nil }
        return value
    }

    /// `;key` or `;key=bare-item`, any number of them; `false` when one is malformed.
    private mutating func parameters() -> Bool {
        while peek == UInt8(ascii: ";") {
            position += 1
            skip(spaces: false)
            guard key() != nil else { return false }
            if peek == UInt8(ascii: "=") {
                position += 1
                guard bareItem() != nil else { return false }
            }
        }
        return true
    }

    private mutating func bareItem() -> Value? {
        guard let byte = peek else { return nil }
        switch byte {
        case UInt8(ascii: "-"), 0x30...0x39: return number() ? .other : nil
        case UInt8(ascii: "\""): return string() ? .other : nil
        case UInt8(ascii: ":"): return byteSequence().map(Value.byteSequence)
        case UInt8(ascii: "?"): return boolean() ? .other : nil
        case UInt8(ascii: "*"): return token() ? .other : nil
        default: return Self.isLetter(byte) && token() ? .other : nil
        }
    }

    /// An integer (at most 15 digits) or a decimal (at most 12 digits, a `.`, 1 to 3 digits).
    private mutating func number() -> Bool {
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, Self.isDigit(first) else { return false }
        var integerDigits = 0
        var fractionDigits: Int?
        while let byte = peek {
            if Self.isDigit(byte) {
                if let digits = fractionDigits { fractionDigits = digits + 1 } else { integerDigits += 1 }
                if fractionDigits == nil, integerDigits > 15 { return false }
            } else if byte == UInt8(ascii: "."), fractionDigits == nil, integerDigits <= 12 {
                fractionDigits = 0
            } else if byte == UInt8(ascii: ".") {
                return false
            } else {
                break
            }
            position += 1
        }
        guard let fractionDigits else { return true }
        return (1...3).contains(fractionDigits)
    }

    /// A string: printable ASCII between `"`, with `\"` and `\\` the only escapes.
    private mutating func string() -> Bool {
        position += 1
        while let byte = peek {
            position += 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = peek, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else { return false }
                position += 1
            case UInt8(ascii: "\""):
                return true
            case 0x20...0x7E:
                continue
            default:
                return false
            }
        }
        return false
    }

    /// A token: a letter or `*`, then `tchar`, `:` and `/`.
    private mutating func token() -> Bool {
        position += 1
        while let byte = peek, Self.isTokenCharacter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") {
            position += 1
        }
        return true
    }

    /// A byte sequence: base64 between `:`; its `=` padding may be left out (RFC 8941 §4.2.7).
    private mutating func byteSequence() -> Data? {
        position += 1
        let start = position
        while let byte = peek, byte != UInt8(ascii: ":") {
            guard Self.isLetter(byte) || Self.isDigit(byte) || "+/=".utf8.contains(byte) else { return nil }
            position += 1
        }
        guard peek == UInt8(ascii: ":") else { return nil }
        var base64 = input[start..<position]
        position += 1
        while base64.last == UInt8(ascii: "=") { base64.removeLast() }
        let padding = (4 - base64.count % 4) % 4
        return Data(base64Encoded: String(decoding: base64, as: UTF8.self) + String(repeating: "=", count: padding))
    }

    /// `?0` or `?1`.
    private mutating func boolean() -> Bool {
        position += 1
        guard let byte = peek, byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1") else { return false }
        position += 1
        return true
    }
}
