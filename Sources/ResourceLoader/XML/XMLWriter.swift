/// Writes XML text one piece at a time, escaping every value and checking every name.
///
/// Values are never spliced into markup: text and attribute values have `& < > " '` escaped
/// (and, so that they survive parsing unchanged, CR in text and CR, LF and tab in attribute
/// values written as character references), and characters XML 1.0 cannot carry are refused.
/// Element names must be XML names without a colon (prefixes come only from the writer's caller).
struct XMLWriter {
    private(set) var text = #"<?xml version="1.0" encoding="utf-8"?>"#
    private var open: [String] = []

    /// Opens an element. `name` may have a prefix only when `prefixed` is `true`.
    mutating func start(_ name: String, prefixed: Bool = false, attributes: [(name: String, value: String)] = []) throws(ResourceError) {
        try Self.checkName(name, allowingPrefix: prefixed)
        text += "<" + name
        for attribute in attributes {
            try Self.checkName(attribute.name, allowingPrefix: true)
            text += " " + attribute.name + "=\"" + (try Self.escape(attribute.value, inAttribute: true, of: name)) + "\""
        }
        text += ">"
        open.append(name)
    }

    /// Writes escaped character data inside the current element.
    mutating func characters(_ value: String) throws(ResourceError) {
        text += try Self.escape(value, inAttribute: false, of: open.last ?? "")
    }

    /// Closes the current element.
    mutating func end() {
        guard let name = open.popLast() else { return }
        text += "</" + name + ">"
    }

    // MARK: Escaping

    static func escape(_ value: String, inAttribute: Bool, of element: String) throws(ResourceError) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\r": result += "&#xD;"
            case "\n" where inAttribute: result += "&#xA;"
            case "\t" where inAttribute: result += "&#x9;"
            default:
                guard isXMLCharacter(scalar.value) else {
                    let code = String(scalar.value, radix: 16, uppercase: true)
                    throw .invalidRequest(
                        reason: "the value of <\(element)> contains U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code), which XML 1.0 does not allow")
                }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// XML 1.0's `Char` production.
    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF: true
        default: false
        }
    }

    // MARK: Names

    /// Refuses anything but an XML `Name` (an `NCName`, or `prefix:NCName` when allowed).
    static func checkName(_ name: String, allowingPrefix: Bool) throws(ResourceError) {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        let valid = (parts.count == 1 || (allowingPrefix && parts.count == 2)) && parts.allSatisfy(isNCName)
        guard valid else {
            throw .invalidRequest(reason: "a name of \(name.count) characters is not a valid XML name")
        }
    }

    static func isNCName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, isNameStart(first.value) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy { isNameStart($0.value) || isNameCharacter($0.value) }
    }

    /// `NameStartChar` without `:`.
    private static func isNameStart(_ value: UInt32) -> Bool {
        switch value {
        case 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
            0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF,
            0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x1_0000...0xE_FFFF:
            true
        default:
            false
        }
    }

    /// The characters `NameChar` adds to `NameStartChar`.
    private static func isNameCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true
        default: false
        }
    }
}

extension String {
    /// Whether the string is an XML `NCName` (a name without a colon, Namespaces in XML 1.0), as
    /// element and attribute names are checked before they are written.
    package var isXMLNCName: Bool { XMLWriter.isNCName(self[...]) }
}

extension XMLWriter {
    /// Appends markup that is escaped and checked already (an encoder's output).
    mutating func append(markup: String) {
        text += markup
    }

    /// The document: what is written, then `markup` (escaped and checked already) in the
    /// current element, then the end tags of every open element.
    mutating func finish(inserting markup: [UInt8]) -> [UInt8] {
        var document = Array(text.utf8)
        document.reserveCapacity(document.count + markup.count + 64)
        document.append(contentsOf: markup)
        while let name = open.popLast() {
            document.append(contentsOf: "</".utf8)
            document.append(contentsOf: name.utf8)
            document.append(UInt8(ascii: ">"))
        }
        return document
    }
}
