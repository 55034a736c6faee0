import Foundation

/// Turns XML names into Swift identifiers: `_xHHHH_` escapes decoded, words joined in camel
/// case, a leading digit prefixed with `_`, and keywords escaped with backticks.
enum SwiftNaming {
    /// Swift keywords that must be escaped with backticks as identifiers.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "package", "consume", "borrowing", "consuming", "some", "any", "async",
    ]

    /// Decodes the `_xHHHH_` escapes .NET writes for characters XML names cannot hold
    /// (`First_x0020_Name` is `First Name`).
    static func decodingEscapes(_ name: String) -> String {
        // Most names have no `_x` at all: nothing to search with Foundation.
        guard containsEscapeStart(name) else { return name }
        var result = ""
        var rest = Substring(name)
        while let range = rest.range(of: "_x") {
            let afterX = rest[range.upperBound...]
            let hex = afterX.prefix(4)
            if hex.count == 4, hex.allSatisfy(\.isHexDigit), afterX.dropFirst(4).first == "_",
                let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init)
            {
                result += rest[..<range.lowerBound]
                result.unicodeScalars.append(scalar)
                rest = afterX.dropFirst(5)
            } else {
                result += rest[..<range.upperBound]
                rest = afterX
            }
        }
        return result + rest
    }

    /// Whether `name` holds `_x`, where an escape may start.
    static func containsEscapeStart(_ name: String) -> Bool {
        var previous: UInt8 = 0
        for byte in name.utf8 {
            if previous == UInt8(ascii: "_"), byte == UInt8(ascii: "x") { return true }
            previous = byte
        }
        return false
    }

    /// The words of a name: runs of ASCII letters and digits, split at other characters.
    static func words(_ name: String) -> [String] {
        let decoded = decodingEscapes(name)
        if decoded.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII only: each byte is a character ("\r\n", the one pair, splits either way).
            return decoded.utf8.split { !isASCIILetterOrDigit($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        // A character with a combining mark is not ASCII, and splits like any other.
        return decoded.split { character in character.asciiValue.map { !isASCIILetterOrDigit($0) } ?? true }.map(String.init)
    }

    /// Whether `byte` is an ASCII letter or digit.
    @inline(__always)
    static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// A type name: `order_line` is `OrderLine`, `getUserResponse` is `GetUserResponse`.
    static func typeName(_ name: String) -> String {
        if let camelCase = asciiCamelCase(name, lowercasingFirstWord: false) { return camelCase.isEmpty ? "Value" : camelCase }
        let joined = words(name).map(capitalizingFirst).joined()
        return identifier(joined.isEmpty ? "Value" : joined)
    }

    /// `word` with its first letter in upper case.
    static func capitalizingFirst(_ word: String) -> String {
        var bytes = Array(word.utf8)
        guard let first = bytes.first, first < 0x80 else { return word.prefix(1).uppercased() + word.dropFirst() }
        // The words are ASCII: the first byte is the first character.
        if first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") { bytes[0] = first - 32 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A property or case name: `UserID` is `userID`, `URLValue` is `urlValue`, `Order_Line`
    /// is `orderLine`.
    static func memberName(_ name: String) -> String {
        if let camelCase = asciiCamelCase(name, lowercasingFirstWord: true) { return camelCase.isEmpty ? "value" : camelCase }
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        let joined = lowercasingLeadingCapitals(first) + parts.dropFirst().map(capitalizingFirst).joined()
        return identifier(joined)
    }

    /// ``typeName(_:)`` or ``memberName(_:)`` of an ASCII name without `_x`, in one pass over
    /// its bytes (empty when the name has no letter or digit); `nil` for any other name, which
    /// goes word by word. Each word's first letter is capitalised, or, for the first word of a
    /// member name, its leading capitals lowered as ``lowercasingLeadingCapitals(_:)`` lowers
    /// them; a leading digit gets a `_`.
    static func asciiCamelCase(_ name: String, lowercasingFirstWord: Bool) -> String? {
        var name = name
        return name.withUTF8 { bytes -> String? in
            var previous: UInt8 = 0
            var hasWord = false
            for byte in bytes {
                if byte >= 0x80 || (previous == UInt8(ascii: "_") && byte == UInt8(ascii: "x")) { return nil }
                hasWord = hasWord || isASCIILetterOrDigit(byte)
                previous = byte
            }
            guard hasWord else { return "" }
            func isCapital(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
            return String(unsafeUninitializedCapacity: bytes.count + 1) { output in
                var written = 0
                var start = 0
                var isFirstWord = true
                while start < bytes.count {
                    guard isASCIILetterOrDigit(bytes[start]) else {
                        start += 1
                        continue
                    }
                    var end = start
                    while end < bytes.count, isASCIILetterOrDigit(bytes[end]) { end += 1 }
                    if isFirstWord, bytes[start] >= UInt8(ascii: "0"), bytes[start] <= UInt8(ascii: "9") {
                        output[written] = UInt8(ascii: "_")
                        written += 1
                    }
                    var lowered = 0
                    if isFirstWord && lowercasingFirstWord {
                        var capitals = 0
                        while start + capitals < end, isCapital(bytes[start + capitals]) { capitals += 1 }
                        lowered = capitals == end - start || capitals <= 1 ? capitals : capitals - 1
                    }
                    for index in start..<end {
                        var byte = bytes[index]
                        if index - start < lowered {
                            byte += 32
                        } else if index == start, !(isFirstWord && lowercasingFirstWord), byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") {
                            byte -= 32
                        }
                        output[written] = byte
                        written += 1
                    }
                    isFirstWord = false
                    start = end
                }
                return written
            }
        }
    }

    /// `Name` is `name`, `ID` is `id`, `URLValue` is `urlValue`, `userID` stays.
    static func lowercasingLeadingCapitals(_ word: String) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII, as every word is: bytes are characters, and only A to Z are capitals.
            var bytes = Array(word.utf8)
            var upperCount = 0
            while upperCount < bytes.count, bytes[upperCount] >= UInt8(ascii: "A"), bytes[upperCount] <= UInt8(ascii: "Z") { upperCount += 1 }
            if upperCount == 0 { return word }
            let lowered = upperCount == bytes.count || upperCount == 1 ? upperCount : upperCount - 1
            for index in 0..<lowered { bytes[index] += 32 }
            return String(decoding: bytes, as: UTF8.self)
        }
        let characters = Array(word)
        var upperCount = 0
        while upperCount < characters.count, characters[upperCount].isUppercase { upperCount += 1 }
        if upperCount == 0 { return word }
        // A run of capitals followed by a lowercase letter keeps its last capital: URLValue → urlValue.
        let lowered = upperCount == characters.count || upperCount == 1 ? upperCount : upperCount - 1
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// `name` made a valid identifier: prefixed with `_` when it starts with a digit.
    static func identifier(_ name: String) -> String {
        guard let first = name.first else { return "_" }
        return first.isNumber ? "_" + name : name
    }

    /// `name` escaped with backticks when it is a keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `text` as a Swift string literal, every special character escaped: the backslash, the
    /// quote, the control characters, the line separators U+0085, U+2028 and U+2029, and the
    /// bidirectional formatting characters (``isBidiControl(_:)``), which would reorder the
    /// line as an editor shows it.
    static func literal(_ text: String) -> String {
        // Most texts have nothing to escape. A lead byte 0xC2 or 0xE2 may start a line separator
        // or a bidirectional control, 0xD8 U+061C.
        if !text.utf8.contains(where: {
            $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xD8
        }) {
            return "\"" + text + "\""
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
                || isBidiControl(scalar.value):
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Documentation as `///` lines at `indent`, blank lines kept between paragraphs. Every line
    /// terminator (LF, CR, CR LF, VT, FF, U+0085, U+2028, U+2029) ends a line and every other
    /// control character, bidirectional ones included, is written as a space, so that no text
    /// ends the comment or reorders its line.
    static func docComment(_ text: String?, indent: String) -> String {
        guard let text else { return "" }
        let special = specialCharacters(in: text)
        if !special.lineFeed && !special.other {
            // One line, as most are.
            let line = trimmingWhitespace(Substring(text))
            return line.isEmpty ? "" : indent + "/// " + line + "\n"
        }
        // With line feeds alone, each is a character of its own: split the bytes.
        let pieces = special.other
            ? commentLines(text)
            : text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
        var lines = pieces.map(trimmingWhitespace)
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { return "" }
        var collapsed: [String] = []
        for line in lines where !(line.isEmpty && collapsed.last?.isEmpty == true) { collapsed.append(line) }
        return collapsed.map { indent + ($0.isEmpty ? "///" : "/// " + $0) + "\n" }.joined()
    }

    /// `text` on one line, for a `//` comment: each line terminator and control character
    /// written as a space.
    static func commentText(_ text: String) -> String {
        let special = specialCharacters(in: text)
        guard special.lineFeed || special.other else { return text }
        return commentLines(text).joined(separator: " ")
    }

    /// Whether the UTF-8 of `text` holds a line feed, and whether it may hold another line
    /// terminator or control character (any byte below 0x20 but tab and line feed, 0x7F, or a
    /// lead byte 0xC2, 0xE2 or 0xD8, which start U+0085, U+2028, U+2029 and the bidirectional
    /// controls).
    private static func specialCharacters(in text: String) -> (lineFeed: Bool, other: Bool) {
        var lineFeed = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") {
                lineFeed = true
            } else if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F || byte == 0xC2 || byte == 0xE2 || byte == 0xD8 {
                return (lineFeed, true)
            }
        }
        return (lineFeed, false)
    }

    /// The lines of `text`, split at LF, CR, CR LF, VT, FF, U+0085, U+2028 and U+2029, every
    /// other control character but tab made a space.
    private static func commentLines(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        var current = String.UnicodeScalarView()
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value == 0x0A && afterCarriageReturn {
                afterCarriageReturn = false
                continue
            }
            afterCarriageReturn = value == 0x0D
            switch value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029:
                lines.append(Substring(String(current)))
                current = String.UnicodeScalarView()
            case 0x00..<0x20 where value != 0x09, 0x7F:
                current.append(" ")
            case _ where isBidiControl(value):
                current.append(" ")
            default:
                current.append(scalar)
            }
        }
        lines.append(Substring(String(current)))
        return lines
    }

    /// Whether `value` is a bidirectional formatting character (U+061C, U+200E, U+200F,
    /// U+202A to U+202E, U+2066 to U+2069), which reorders text as an editor shows it.
    static func isBidiControl(_ value: UInt32) -> Bool {
        value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// `line` without the leading and trailing characters of `CharacterSet.whitespaces` (tab and
    /// Unicode's space separators), as `trimmingCharacters(in: .whitespaces)` gives it, without
    /// Foundation's cost.
    static func trimmingWhitespace(_ line: Substring) -> String {
        let scalars = line.unicodeScalars
        if let first = scalars.first, let last = scalars.last, !isWhitespace(first), !isWhitespace(last) { return String(line) }
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhitespace($0) })!
        return String(scalars[first...last])
    }

    /// Whether `scalar` is in `CharacterSet.whitespaces`: tab, or of the general category Zs.
    @inline(__always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
