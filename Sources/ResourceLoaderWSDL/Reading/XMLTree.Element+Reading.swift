import ResourceLoader

extension XMLTree.Element {
    /// Appends this element's step of a location path to `path`: its name as written, with its
    /// `name` attribute when it has one: `wsdl:binding[@name='B']`, or `wsdl:types`.
    func appendLocationStep(to path: inout String) {
        if let prefix {
            path += prefix
            path += ":"
        }
        path += name
        if let value = attribute(named: "name") {
            path += "[@name='"
            path += value
            path += "']"
        }
    }

    /// The value of a name-valued attribute (an `NCName` or `NMTOKEN`, such as `name`, or one of
    /// the keywords of `form`, `use` or `style`), without the XML white space around it, which
    /// XML Schema collapses in such values.
    func nameAttribute(_ name: String) -> String? {
        attribute(named: name)?.trimmingXMLWhitespace()
    }

    /// Whether the element has this local name and namespace.
    @inline(__always)
    func isNamed(_ name: String, in namespace: String) -> Bool {
        self.name == name && namespaceURI == namespace
    }

    /// The trimmed text of the element's documentation children: `wsdl:documentation` for a
    /// WSDL element, `xsd:annotation/xsd:documentation` for a schema one; several are joined by
    /// blank lines. `nil` when there is none or it is empty.
    var documentation: String? {
        var texts: [String] = []
        for child in children {
            if child.isNamed("documentation", in: WellKnownSchemas.wsdlNamespace) {
                texts.append(child.deepText)
            } else if child.isNamed("annotation", in: XSDBuiltInType.namespace) {
                for documentation in child.children(named: "documentation", namespaceURI: XSDBuiltInType.namespace) {
                    texts.append(documentation.deepText)
                }
            }
        }
        let trimmed = texts.map { $0.trimmingXMLWhitespace() }.filter { !$0.isEmpty }
        return trimmed.isEmpty ? nil : trimmed.joined(separator: "\n\n")
    }

    /// The element's own text followed by the text of its descendants (documentation may hold
    /// XHTML markup; the tree keeps an element's text apart from its children's, so text around
    /// a child element comes before the child's).
    var deepText: String {
        guard hasChildren else { return text }
        var result = text
        for child in children { result += child.deepText }
        return result
    }
}

extension String {
    /// The string without leading and trailing XML whitespace (space, tab, CR, LF).
    func trimmingXMLWhitespace() -> String {
        // On the bytes: white space is ASCII, and no byte of a longer character is.
        let trimmed = utf8.withContiguousStorageIfAvailable { bytes -> String? in
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            var start = 0
            var end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            guard start < end else { return "" }
            // A combining mark after leading white space makes it part of a character that is
            // not white space: the characters decide.
            if start > 0, bytes[start] >= 0x80 { return nil }
            while isSpace(bytes[end - 1]) { end -= 1 }
            if start == 0, end == bytes.count { return self }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        if let trimmed, let trimmed { return trimmed }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start ... end])
    }
}
