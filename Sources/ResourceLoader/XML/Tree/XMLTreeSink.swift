/// Builds an ``XMLTree``'s storage from the tokenizer's events.
///
/// The tree is flat, in document order: a start tag appends a node, its end tag records where
/// the node's descendants end. Text is gathered per open element (one reused buffer per depth)
/// and becomes the element's string when it ends, so an element's text is one allocation
/// whatever the number of pieces (text, CDATA, references) it came in.
struct XMLTreeSink: XMLEventSink {
    private(set) var nodes: [XMLTree.Node] = []
    /// The open elements' node indices, outermost first.
    private var open: [Int] = []
    /// Text gathered for each open element, by depth.
    private var texts: [[UInt8]] = []
    private(set) var scopes: [XMLTree.Scope] = [XMLTree.Scope(prefix: nil, namespaceURI: nil)]
    /// The scope index of each namespace binding elements used, by the binding's number.
    private var bindingScopes: [Int: Int] = [:]
    private var xmlScope = -1
    private(set) var declarations: [Int: [XMLTree.Scope]] = [:]

    init(expectedNodes: Int = 0) {
        nodes.reserveCapacity(expectedNodes)
    }

    /// The finished storage: exactly one root element, closed.
    func storage() throws(XMLParsingError) -> XMLTree.Storage {
        guard !nodes.isEmpty else { throw .noRoot }
        guard open.isEmpty else { throw .truncated }
        return XMLTree.Storage(nodes: nodes, scopes: scopes, declarations: declarations)
    }

    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError) {
        var elementAttributes: [XMLTree.Attribute] = []
        var elementDeclarations: [XMLTree.Scope] = []
        if !attributes.isEmpty {
            for attribute in attributes {
                if attribute.isNamespaceDeclaration {
                    let name = attribute.name
                    elementDeclarations.append(XMLTree.Scope(
                        prefix: name.prefix == nil ? nil : name.local,
                        namespaceURI: attribute.value.isEmpty ? nil : attribute.value))
                } else {
                    elementAttributes.append(XMLTree.Attribute(
                        name: attribute.name.local, prefix: attribute.name.prefix,
                        namespaceURI: attribute.namespaceURI, value: attribute.value))
                }
            }
            if elementAttributes.count > 1 {
                elementAttributes.sort { ($0.prefix ?? "", $0.name) < ($1.prefix ?? "", $1.name) }
            }
        }
        let index = nodes.count
        nodes.append(XMLTree.Node(
            name: element.name.local, text: "", attributes: elementAttributes, parent: open.last ?? -1, end: -1,
            scope: scope(of: element)))
        if !elementDeclarations.isEmpty { declarations[index] = elementDeclarations }
        open.append(index)
        if texts.count < open.count { texts.append([]) }
    }

    private mutating func scope(of element: XMLStartElement) -> Int {
        switch element.binding {
        case XMLStartElement.noBinding:
            return 0
        case XMLStartElement.xmlBinding:
            if xmlScope < 0 {
                xmlScope = scopes.count
                scopes.append(XMLTree.Scope(prefix: "xml", namespaceURI: element.namespaceURI))
            }
            return xmlScope
        default:
            if let scope = bindingScopes[element.binding] { return scope }
            let scope = scopes.count
            scopes.append(XMLTree.Scope(prefix: element.name.prefix, namespaceURI: element.namespaceURI))
            bindingScopes[element.binding] = scope
            return scope
        }
    }

    mutating func endElement() {
        guard let index = open.popLast() else { return }
        nodes[index].end = nodes.count
        let depth = open.count
        if !texts[depth].isEmpty {
            nodes[index].text = String(decoding: texts[depth], as: UTF8.self)
            texts[depth].removeAll(keepingCapacity: true)
        }
    }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !open.isEmpty, !bytes.isEmpty else { return }
        texts[open.count - 1].append(contentsOf: bytes)
    }

    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {}
}
