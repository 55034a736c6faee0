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

    /// The words of a name: runs of letters and digits, split at other characters.
    static func words(_ name: String) -> [String] {
        decodingEscapes(name).split { !($0.isLetter || $0.isNumber) || !$0.isASCII }.map(String.init)
    }

    /// A type name: `order_line` is `OrderLine`, `getUserResponse` is `GetUserResponse`.
    static func typeName(_ name: String) -> String {
        let joined = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return identifier(joined.isEmpty ? "Value" : joined)
    }

    /// A property or case name: `UserID` is `userID`, `URLValue` is `urlValue`, `Order_Line`
    /// is `orderLine`.
    static func memberName(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        let joined = lowercasingLeadingCapitals(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return identifier(joined)
    }

    /// `Name` is `name`, `ID` is `id`, `URLValue` is `urlValue`, `userID` stays.
    static func lowercasingLeadingCapitals(_ word: String) -> String {
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

    /// `text` as a Swift string literal, every special character escaped.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Documentation as `///` lines at `indent`, blank lines kept between paragraphs.
    static func docComment(_ text: String?, indent: String) -> String {
        guard let text else { return "" }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { return "" }
        var collapsed: [String] = []
        for line in lines where !(line.isEmpty && collapsed.last?.isEmpty == true) { collapsed.append(line) }
        return collapsed.map { indent + ($0.isEmpty ? "///" : "/// " + $0) + "\n" }.joined()
    }
}
