import Foundation

/// Builds an ``XMLTree``'s storage from the tokenizer's events.
///
/// The tree is flat, in document order: a start tag appends a node, its end tag records where
/// the node's descendants end. Attributes go into one array shared by all elements; a node's
/// name is its number in the tokenizer's name table, whose names the tree shares.
///
/// Text is not turned into strings here: it is copied once, when its element ends, into one
/// byte arena. While an element is open its node's text fields say where its text is so far:
/// nothing; one piece that is a verbatim slice of the document (the tokenizer hands out slices
/// of its input for plain text), kept as an offset; or, from the second piece on or for a piece
/// that is not in the document (a decoded reference, normalised line ends), bytes gathered in
/// ``pending``. Most elements have one piece, so most text is copied once, straight from the
/// document to the arena.
///
/// ``pending`` is a stack: an element's gathered text starts where the buffer ended when it
/// began gathering (kept in its node's `textOffset`), and everything above that belongs to
/// its descendants, which end first and take their bytes off the top. So the open elements'
/// texts share one buffer, with no array per depth.
///
/// The nodes (``XMLTreeNodes``), the arena and that buffer (``XMLByteArena``) are objects,
/// held by reference: copies of a sink share them, so only one copy (the tokenizer's) is ever
/// fed events, and the tree takes the nodes and the arena over.
struct XMLTreeSink: XMLEventSink {
    /// The nodes so far; while parsing, the open elements' `end` is not set yet.
    let nodes: XMLTreeNodes
    /// The tokenizer's name table's names, by number (``XMLStartElement/nameID``): a node's
    /// name is its number there. Handed over when the document ends (``endDocument(names:)``).
    private var names: [XMLName] = []
    private var attributes: [XMLTree.Attribute] = []
    private var arena: XMLByteArena
    /// The innermost open element's node index (-1: none). The others are its ancestors,
    /// found through the nodes' `parent`: no stack to push and pop.
    private var current = -1
    /// The text gathered so far by the open elements whose text is not one document slice,
    /// outermost first (see the type's description).
    private var pending = XMLByteArena()
    private var scopes: [XMLTree.Scope] = [XMLTree.Scope(prefix: nil, namespaceURI: nil)]
    /// The scope index + 1 of each namespace binding elements used, by the binding's serial
    /// number (0: not used yet). Serial numbers count the document's declarations from 1.
    private var bindingScopes: [UInt32] = []
    private var xmlScope = -1
    private var declarations: [Int: [XMLTree.Scope]] = [:]
    /// The document's bytes, to tell its slices from other text.
    private let documentStart: UInt
    private let documentCount: UInt
    /// Set when the text would not fit the nodes' 32-bit offsets (only entity expansion can
    /// produce that much text); ``storage()`` then throws.
    private var overflowed = false

    /// A sink for the document `document`, reserving a node for each of its start tags.
    ///
    /// - Throws: ``XMLParsingError/tooLarge(limit:)`` for a document of 2 GiB or more, which a
    ///   node's 32-bit offsets cannot address.
    init(document: UnsafeBufferPointer<UInt8>) throws(XMLParsingError) {
        guard document.count < XMLTree.Node.limit else { throw .tooLarge(limit: XMLTree.Node.limit) }
        documentStart = UInt(bitPattern: document.baseAddress)
        documentCount = UInt(document.count)
        nodes = XMLTreeNodes(capacity: Self.expectedNodes(document))
        scopes.reserveCapacity(4)
        // A small document's text fits in its own size (only entity expansion makes more): one
        // allocation instead of a doubling per few elements. A large one's arena grows.
        arena = XMLByteArena(capacity: document.count <= Self.smallDocument ? document.count : 0)
    }

    /// The largest document whose arena is reserved at its size up front.
    static let smallDocument = 16 * 1024

    /// How many nodes to reserve for `bytes`: about the number of its start tags, so that for
    /// a large document the node array is allocated once at its final size rather than doubled
    /// near the end with both copies alive (a reservation that turns out short still grows).
    ///
    /// A small document gets one node per 16 bytes. A larger one is sampled: start tags are
    /// counted in 16 windows of 4 KiB spread over the document, and the count is scaled to its
    /// size, plus 1/16 for spread. Cost: 64 KiB scanned, whatever the document's size. A `<` in
    /// a comment, CDATA section or attribute value counts too, so the estimate is capped at what
    /// the bytes can hold: one element per 4 bytes (`<a/>`), plus 16.
    static func expectedNodes(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let window = 4096
        let windows = 16
        guard bytes.count > window * windows * 2 else { return bytes.count / 16 + 16 }
        let stride = bytes.count / windows
        var sampled = 0
        for start in Swift.stride(from: 0, to: stride * windows, by: stride) {
            sampled += startTagCount(UnsafeBufferPointer(rebasing: bytes[start ..< start + window + 1]))
        }
        let estimate = sampled * bytes.count / (window * windows)
        return Swift.min(estimate + estimate / 16 + 16, bytes.count / 4 + 16)
    }

    /// The number of `<` not followed by `/`, `!` or `?` in `bytes`, the last byte aside: the
    /// start tags, where `bytes` holds no comment, CDATA section or attribute value with a `<`
    /// (an estimate otherwise). Eight bytes at a time.
    static func startTagCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 1 else { return 0 }
        /// The top bit of each byte of `word` that is zero, and no other bit.
        func zeroBytes(_ word: UInt64) -> UInt64 {
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            return ~(((word & low7) &+ low7) | word | low7)
        }
        let raw = UnsafeRawPointer(base)
        let last = bytes.count - 1
        var count = 0
        var index = 0
        while index + 8 <= last {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // The following bytes with 0x10 set: `/` and `?` become 0x3F, `!` 0x31.
            let next = raw.loadUnaligned(fromByteOffset: index + 1, as: UInt64.self) | 0x1010_1010_1010_1010
            let open = zeroBytes(word ^ 0x3C3C_3C3C_3C3C_3C3C)
            let notStart = zeroBytes(next ^ 0x3F3F_3F3F_3F3F_3F3F) | zeroBytes(next ^ 0x3131_3131_3131_3131)
            // One top bit per start tag: gathered into the top byte by a multiplication.
            count &+= Int(truncatingIfNeeded: (((open & ~notStart) >> 7) &* 0x0101_0101_0101_0101) >> 56)
            index &+= 8
        }
        while index < last {
            let next = base[index + 1] | 0x10
            if base[index] == 0x3C && next != 0x3F && next != 0x31 { count &+= 1 }
            index &+= 1
        }
        return count
    }

    /// The finished storage: exactly one root element, closed.
    func storage() throws(XMLParsingError) -> XMLTree.Storage {
        guard !nodes.isEmpty else { throw .noRoot }
        guard current < 0 else { throw .truncated }
        guard !overflowed else { throw .tooLarge(limit: XMLTree.Node.limit) }
        return XMLTree.Storage(
            nodes: nodes, names: names, attributes: attributes, arena: arena, scopes: scopes,
            declarations: declarations)
    }

    mutating func startElement(_ element: XMLStartElement) throws(XMLParsingError) {
        guard nodes.count < XMLTree.Node.limit, attributes.count < XMLTree.Node.limit else {
            throw .tooLarge(limit: XMLTree.Node.limit)
        }
        appendNode(element, attributeStart: attributes.count)
    }

    mutating func startElement(_ element: XMLStartElement, attributes events: [XMLAttributeEvent]) throws(XMLParsingError) {
        let index = nodes.count
        guard index < XMLTree.Node.limit, attributes.count < XMLTree.Node.limit else {
            throw .tooLarge(limit: XMLTree.Node.limit)
        }
        let attributeStart = attributes.count
        if !events.isEmpty {
            var elementDeclarations: [XMLTree.Scope] = []
            for attribute in events {
                if attribute.isNamespaceDeclaration {
                    let name = attribute.name
                    elementDeclarations.append(XMLTree.Scope(
                        prefix: name.prefix == nil ? nil : name.local,
                        namespaceURI: attribute.value.isEmpty ? nil : attribute.value))
                } else {
                    attributes.append(XMLTree.Attribute(
                        name: attribute.name.local, prefix: attribute.name.prefix,
                        namespaceURI: attribute.namespaceURI, value: attribute.value))
                }
            }
            if attributes.count - attributeStart > 1 {
                attributes[attributeStart...].sort { ($0.prefix ?? "", $0.name) < ($1.prefix ?? "", $1.name) }
            }
            if !elementDeclarations.isEmpty { declarations[index] = elementDeclarations }
        }
        appendNode(element, attributeStart: attributeStart)
    }

    /// Appends the element's node, which becomes the innermost open element.
    @inline(__always)
    private mutating func appendNode(_ element: XMLStartElement, attributeStart: Int) {
        // The scope first: `scope(of:)` may change the sink, so the nodes are read after it.
        let scope = element.binding == XMLStartElement.noBinding ? 0 : UInt32(scope(of: element))
        let index = nodes.count
        nodes.append(XMLTree.Node(
            name: UInt32(truncatingIfNeeded: element.nameID), scope: scope,
            parent: Int32(truncatingIfNeeded: current), end: 0, attributeStart: UInt32(truncatingIfNeeded: attributeStart),
            textOffset: 0, textCount: 0))
        current = index
    }

    mutating func endDocument(names: [XMLName]) {
        self.names = names
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
            let serial = element.binding
            if serial < bindingScopes.count {
                let known = bindingScopes[serial]
                if known != 0 { return Int(known) - 1 }
            } else {
                bindingScopes.append(contentsOf: repeatElement(0, count: serial + 1 - bindingScopes.count))
            }
            let scope = scopes.count
            scopes.append(XMLTree.Scope(prefix: element.name.prefix, namespaceURI: element.namespaceURI))
            bindingScopes[serial] = UInt32(truncatingIfNeeded: scope + 1)
            return scope
        }
    }

    @inline(__always)
    mutating func endElement() {
        let index = current
        guard index >= 0 else { return }
        current = Int(nodes[index].parent)
        nodes[index].end = UInt32(truncatingIfNeeded: nodes.count)
        let textCount = nodes[index].textCount
        guard textCount != 0 else { return }
        if textCount == XMLTree.Node.inArena {
            // Gathered text: the top of `pending`, from the offset the node holds.
            let start = Int(nodes[index].textOffset)
            moveToArena(index, pending.bytes(from: start, count: pending.count - start))
            pending.removeLast(pending.count - start)
        } else {
            // One document slice: the document is still there until the parse ends.
            moveToArena(index, UnsafeBufferPointer(
                start: UnsafePointer<UInt8>(bitPattern: documentStart &+ UInt(nodes[index].textOffset)),
                count: Int(textCount)))
        }
    }

    /// Appends an ended element's text to the arena, and points its node there.
    @inline(__always)
    private mutating func moveToArena(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard arena.count + bytes.count < XMLTree.Node.limit else {
            overflowed = true
            return
        }
        nodes[index].textOffset = UInt32(arena.count)
        nodes[index].textCount = UInt32(bytes.count)
        arena.append(bytes)
    }

    @inline(__always)
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        let index = current
        guard index >= 0, !bytes.isEmpty else { return }
        // Gathered text is bounded like the arena it goes to (so its offsets fit 32 bits).
        guard pending.count + bytes.count < XMLTree.Node.limit else {
            overflowed = true
            return
        }
        let textCount = nodes[index].textCount
        if textCount == 0 {
            // The first piece: a slice of the document is kept where it is.
            let offset = UInt(bitPattern: bytes.baseAddress) &- documentStart
            if offset < documentCount && UInt(bytes.count) <= documentCount &- offset {
                nodes[index].textOffset = UInt32(offset)
                nodes[index].textCount = UInt32(bytes.count)
                return
            }
            nodes[index].textOffset = UInt32(truncatingIfNeeded: pending.count)
            nodes[index].textCount = XMLTree.Node.inArena
        } else if textCount & XMLTree.Node.inArena == 0 {
            // A second piece: the first one, a document slice, goes into the buffer first.
            let first = UnsafeBufferPointer(
                start: UnsafePointer<UInt8>(bitPattern: documentStart &+ UInt(nodes[index].textOffset)),
                count: Int(textCount))
            nodes[index].textOffset = UInt32(truncatingIfNeeded: pending.count)
            nodes[index].textCount = XMLTree.Node.inArena
            pending.append(first)
        }
        pending.append(bytes)
    }

    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>) {}
}
