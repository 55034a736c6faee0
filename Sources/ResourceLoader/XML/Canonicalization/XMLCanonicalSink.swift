/// Records every node of a document in document order, for ``XMLCanonicalDocument``: start
/// and end tags with their namespace declarations and attributes, character data, comments and
/// processing instructions, including those before and after the root element.
///
/// ``XMLTree`` keeps neither comments nor where text stands between child elements, which
/// canonical XML needs; this sink keeps both.
struct XMLCanonicalSink: XMLEventSink {
    private(set) var nodes: [XMLCanonicalDocument.Node] = []
    /// The index in `nodes` of each open element's start, outermost first.
    private var open: [Int] = []

    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {
        var declarations: [XMLCanonicalDocument.Declaration] = []
        var plain: [XMLCanonicalDocument.Attribute] = []
        for attribute in attributes {
            if attribute.isNamespaceDeclaration {
                // `xmlns` declares the default namespace (its local name is `xmlns` too).
                let prefix = attribute.name.prefix == nil ? "" : attribute.name.local
                declarations.append(.init(prefix: prefix, namespaceURI: attribute.value))
            } else {
                plain.append(
                    .init(
                        qualifiedName: attribute.name.qualified, prefix: attribute.name.prefix,
                        localName: attribute.name.local, namespaceURI: attribute.namespaceURI ?? "", value: attribute.value))
            }
        }
        let start = XMLCanonicalDocument.Start(
            qualifiedName: element.name.qualified, prefix: element.name.prefix ?? "", declarations: declarations,
            attributes: plain, parent: open.last ?? -1)
        open.append(nodes.count)
        nodes.append(.start(start))
    }

    mutating func endElement() {
        let start = open.removeLast()
        nodes.append(.end(start: start))
    }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Text outside the root element is white space, which canonical XML drops.
        guard !open.isEmpty else { return }
        nodes.append(.text(String(decoding: bytes, as: UTF8.self)))
    }

    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {
        nodes.append(.processingInstruction(target: target, data: String(decoding: data, as: UTF8.self), depth: open.count))
    }

    mutating func comment(_ bytes: UnsafeBufferPointer<UInt8>) {
        nodes.append(.comment(String(decoding: bytes, as: UTF8.self), depth: open.count))
    }
}
