import Foundation

extension SOAPEnvelope {
    /// `data`, a SOAP envelope, with `block` as the first block of its `Header` (added when
    /// there is none). Everything else is kept byte for byte.
    ///
    /// - Throws: ``ResourceError/invalidRequest(reason:)`` when `data` is not a UTF-8 SOAP
    ///   envelope with a `Body`. The reason never quotes the document.
    static func inserting(_ block: SOAPHeaderBlock, into data: Data) throws(ResourceError) -> Data {
        let document: XMLTree
        do {
            document = try XMLTree(data: data)
        } catch {
            throw .invalidRequest(reason: "the SOAP request's body is not well-formed XML (\(error))")
        }
        let envelope = document.root
        guard envelope.name == "Envelope", let namespace = envelope.namespaceURI, let version = SOAPVersion(envelopeNamespace: namespace),
            envelope.child(named: "Body", namespaceURI: namespace) != nil
        else {
            throw .invalidRequest(reason: "the SOAP request's body is not a SOAP Envelope with a Body")
        }
        // The block is inserted as UTF-8: a document in another encoding (UTF-16, or one its
        // declaration names, such as ISO-8859-1) would be read as other characters.
        guard let utf8 = try? XMLTranscoder.utf8Document(data, options: XMLParsingOptions()).data, utf8 == data else {
            throw .invalidRequest(reason: "the SOAP request's body is not UTF-8")
        }
        var bytes = [UInt8](data)
        guard let rootTag = XMLTagScanner.firstTag(in: bytes, from: 0) else {
            throw .invalidRequest(reason: "the SOAP request's Envelope could not be found")
        }
        let header = envelope.children.first.flatMap { $0.name == "Header" && $0.namespaceURI == namespace ? $0 : nil }
        if let header {
            guard let headerTag = XMLTagScanner.firstTag(in: bytes, from: rootTag.end) else {
                throw .invalidRequest(reason: "the SOAP request's Header could not be found")
            }
            let prefix = header.prefix.flatMap { header.namespaceURI(forPrefix: $0) == namespace ? $0 : nil }
            let markup = Array(try block.markup(version: version, envelopePrefix: prefix).utf8)
            if headerTag.isEmptyElement {
                // `<soap:Header/>`: opened, given the block, and closed.
                let replacement = Array(">".utf8) + markup + Array("</\(header.qualifiedName)>".utf8)
                bytes.replaceSubrange(headerTag.end - 2 ..< headerTag.end, with: replacement)
            } else {
                bytes.insert(contentsOf: markup, at: headerTag.end)
            }
        } else {
            guard !rootTag.isEmptyElement else {
                throw .invalidRequest(reason: "the SOAP request's Envelope is empty")
            }
            let prefix = envelope.prefix
            let name = prefix.map { "\($0):Header" } ?? "Header"
            let markup = try block.markup(version: version, envelopePrefix: prefix)
            bytes.insert(contentsOf: Array("<\(name)>\(markup)</\(name)>".utf8), at: rootTag.end)
        }
        return Data(bytes)
    }
}

/// Finds start tags in a document already known to be well-formed.
enum XMLTagScanner {
    /// A start tag: where it ends (one past its `>`) and whether it is `<…/>`.
    struct Tag {
        var end: Int
        var isEmptyElement: Bool
    }

    /// The first start tag at or after `start`, skipping a byte order mark, whitespace, the XML
    /// declaration, processing instructions and comments.
    static func firstTag(in bytes: [UInt8], from start: Int) -> Tag? {
        var index = start
        if index == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if matches(bytes, at: index, "<?") {
                    guard let close = find(bytes, "?>", from: index + 2) else { return nil }
                    index = close + 2
                } else if matches(bytes, at: index, "<!--") {
                    guard let close = find(bytes, "-->", from: index + 4) else { return nil }
                    index = close + 3
                } else if matches(bytes, at: index, "</") || matches(bytes, at: index, "<!") {
                    return nil
                } else {
                    return tagEnd(bytes, from: index + 1)
                }
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            } else {
                return nil
            }
        }
        return nil
    }

    /// The end of the tag whose name starts at `start`: the first `>` outside a quoted value.
    private static func tagEnd(_ bytes: [UInt8], from start: Int) -> Tag? {
        var quote: UInt8?
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return Tag(end: index + 1, isEmptyElement: bytes[index - 1] == UInt8(ascii: "/"))
            }
            index += 1
        }
        return nil
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ text: String) -> Bool {
        let pattern = Array(text.utf8)
        return index + pattern.count <= bytes.count && Array(bytes[index ..< index + pattern.count]) == pattern
    }

    private static func find(_ bytes: [UInt8], _ text: String, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if matches(bytes, at: index, text) { return index }
            index += 1
        }
        return nil
    }
}
