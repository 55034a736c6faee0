/// Where one run of ``XMLTreeEncoder`` writes: UTF-8 markup in one growing byte buffer, written
/// as values are encoded; or, when `encode(to:)` writes out of document order, a tree of
/// ``XMLEncodingNode``s written at the end.
///
/// Writing as values arrive keeps a stack of open elements. An element's start tag is written
/// only when its first child or text arrives (or when it ends), so that attributes, `xsi:nil`
/// and `xsi:type` set before then still go in it. Writing into an element that is not the
/// innermost open one closes the ones inside it. What cannot be written in order (an attribute
/// after the start tag, text after a child, anything into an element already closed, or a
/// problem the tree reports with its coding path) stops the streaming: ``XMLTreeEncoder``
/// then encodes the value again, building the tree, whose output is the same for what both
/// can write.
final class XMLEncodingSink {
    /// How the sink writes.
    enum Mode {
        /// Markup written as values arrive.
        case streaming
        /// Nodes built and written when the value is finished.
        case tree
    }

    /// Thrown to stop encoding when streaming cannot go on in document order.
    struct Restart: Error {}

    let options: XMLTreeEncoder
    let mode: Mode
    /// The holder of the top-level elements.
    let document = XMLEncodingNode(name: XMLQualifiedName("#document"))
    /// The markup written so far and the open elements (streaming). One stored property, so
    /// that each call of the sink checks exclusive access to it once.
    private var stream: Stream
    /// Names checked already that needed the full Unicode check (ASCII names are checked
    /// byte by byte, which costs less than looking them up).
    private var checkedNames: Set<String> = []
    /// The schemas of the types encoded so far, by type.
    private var schemas: [ObjectIdentifier: XMLTypeSchema?] = [:]
    /// Whether the root element's own child elements are in no namespace, whatever the forms
    /// say: the part accessors of an rpc/literal body.
    var unqualifiedParts = false
    /// The first element made in the document: the root.
    private(set) var root: XMLEncodingNode?

    init(options: XMLTreeEncoder, mode: Mode, declaringPreferred: Bool = true) {
        self.options = options
        self.mode = mode
        document.isOpen = true
        document.isStarted = true
        stream = Stream(document: document, prefixes: options.namespacePrefixes, declaringPreferred: declaringPreferred)
        if mode == .streaming { stream.bytes.reserveCapacity(4096) }
    }

    /// Set when streaming met something it cannot write in order: the output is not used.
    var mustRestart: Bool { stream.mustRestart }

    // MARK: Elements

    /// Makes `child` an element of `parent`, after its existing content.
    func append(_ child: XMLEncodingNode, to parent: XMLEncodingNode) {
        if root == nil, parent === document { root = child }
        switch mode {
        case .tree: parent.children.append(child)
        case .streaming: stream.append(child, to: parent)
        }
    }

    /// Appends `text` to `node`'s own text; `false` when it holds a character XML 1.0 does not
    /// allow.
    func appendText(_ text: XMLScalarText, to node: XMLEncodingNode) throws -> Bool {
        switch mode {
        case .tree: text.write(inAttribute: false, into: &node.escapedText)
        case .streaming: try stream.appendText(text, to: node)
        }
    }

    /// Adds an attribute, its value escaped already, to `node`.
    func addAttribute(_ name: XMLQualifiedName, escapedValue: [UInt8], to node: XMLEncodingNode) throws {
        if mode == .streaming, !node.isOpen || node.isStarted {
            stream.mustRestart = true
            throw Restart()
        }
        node.attributes.append((name, escapedValue))
    }

    /// Writes `node` with `xsi:type` naming `type`.
    func setSchemaType(_ type: XMLQualifiedName, of node: XMLEncodingNode) throws {
        if mode == .streaming, !node.isOpen || node.isStarted {
            stream.mustRestart = true
            throw Restart()
        }
        node.schemaType = type
    }

    /// Writes `node` with `xsi:nil="true"`.
    func setNil(_ node: XMLEncodingNode) {
        if mode == .streaming, !node.isOpen || node.isStarted {
            stream.mustRestart = true
            return
        }
        node.isNil = true
    }

    /// Whether `node` is `parent`'s last element and has nothing written in it.
    func isEmptyLastElement(_ node: XMLEncodingNode, of parent: XMLEncodingNode) -> Bool {
        switch mode {
        case .tree: node.isEmpty && parent.children.last === node
        case .streaming: node.isEmpty && stream.isInnermost(node, in: parent)
        }
    }

    /// Removes `node`, ``isEmptyLastElement(_:of:)`` of `parent`.
    func removeEmptyLastElement(_ node: XMLEncodingNode, of parent: XMLEncodingNode) {
        switch mode {
        case .tree: parent.children.removeLast()
        case .streaming: stream.dropInnermost()
        }
    }

    /// Writes an element of a parsed document (see
    /// ``XMLEncodingNode/writeRaw(_:to:extraDeclarations:extraAttributes:omittingRootAttributes:)``)
    /// after `parent`'s content.
    func appendRaw(_ element: XMLTree.Element, named name: XMLQualifiedName, to parent: XMLEncodingNode) throws -> XMLEncodingNode {
        let node = XMLEncodingNode(name: name)
        node.raw = element
        switch mode {
        case .tree: parent.children.append(node)
        case .streaming:
            var text = ""
            try XMLEncodingNode.writeRaw(element, to: &text)
            try stream.appendMarkup(text, to: parent)
        }
        return node
    }

    /// Writes an element holding only text, `name`, after `parent`'s content: what
    /// ``append(_:to:)`` and ``appendText(_:to:)`` would, without keeping a node; `false`
    /// when the text holds a character XML 1.0 does not allow.
    func appendTextElement(named name: XMLQualifiedName, in parent: XMLEncodingNode, text: XMLScalarText) throws -> Bool {
        switch mode {
        case .tree:
            let child = XMLEncodingNode(name: name)
            parent.children.append(child)
            return text.write(inAttribute: false, into: &child.escapedText)
        case .streaming:
            return try stream.appendTextElement(named: name, in: parent, text: text)
        }
    }

    /// The markup: every element ended (streaming); `nil` when streaming stopped.
    func finish() throws -> [UInt8]? {
        switch mode {
        case .tree:
            return try XMLEncodingNode.serialize(
                document.children, prefixes: options.namespacePrefixes, declaringPreferred: stream.declaringPreferred)
        case .streaming:
            return stream.finish()
        }
    }

    // MARK: Streaming

    /// The markup written so far, the open elements and the prefixes in scope.
    private struct Stream {
        var bytes: [UInt8] = []
        /// The open elements, outermost (the document) first.
        var open: [XMLEncodingNode]
        var scope: XMLEncodingNode.Scope
        /// Whether the preferred prefixes are declared on each top-level element.
        let declaringPreferred: Bool
        var mustRestart = false

        init(document: XMLEncodingNode, prefixes: [String: String], declaringPreferred: Bool) {
            open = [document]
            scope = XMLEncodingNode.Scope(preferred: prefixes)
            self.declaringPreferred = declaringPreferred
        }

        mutating func append(_ child: XMLEncodingNode, to parent: XMLEncodingNode) {
            guard !mustRestart, reach(parent), start(parent, content: .element(namespaceURI: child.name.namespaceURI)) else { return }
            parent.hasChildren = true
            scope.open()
            child.isOpen = true
            open.append(child)
        }

        mutating func appendText(_ text: XMLScalarText, to node: XMLEncodingNode) throws -> Bool {
            if mustRestart { return true }
            guard reach(node), !node.hasChildren, start(node, content: .other) else {
                mustRestart = true
                throw Restart()
            }
            return text.write(inAttribute: false, into: &bytes)
        }

        /// Readies `parent` for a child written whole: `parent` reached and started.
        private mutating func prepareChild(of parent: XMLEncodingNode, content: XMLEncodingNode.ContentStart) throws {
            guard !mustRestart else { throw Restart() }
            guard reach(parent), start(parent, content: content) else {
                mustRestart = true
                throw Restart()
            }
            parent.hasChildren = true
        }

        mutating func appendMarkup(_ markup: String, to parent: XMLEncodingNode) throws {
            try prepareChild(of: parent, content: .other)
            bytes.append(contentsOf: markup.utf8)
        }

        mutating func appendTextElement(named name: XMLQualifiedName, in parent: XMLEncodingNode, text: XMLScalarText) throws -> Bool {
            try prepareChild(of: parent, content: .element(namespaceURI: name.namespaceURI))
            scope.open()
            defer { scope.close() }
            let prefix = try XMLEncodingNode.writeStartTag(
                name: name, content: .other, isNil: false, schemaType: nil, attributes: [],
                declaringPreferred: declaringPreferred && open.count == 1, scope: &scope, into: &bytes)
            guard text.write(inAttribute: false, into: &bytes) else { return false }
            XMLEncodingNode.writeEndTag(prefix: prefix, localName: name.localName, into: &bytes)
            return true
        }

        func isInnermost(_ node: XMLEncodingNode, in parent: XMLEncodingNode) -> Bool {
            open.count >= 2 && open[open.count - 1] === node && open[open.count - 2] === parent
        }

        /// Drops the innermost open element, whose start tag is not written.
        mutating func dropInnermost() {
            open.removeLast().isOpen = false
            scope.close()
        }

        /// Closes the open elements inside `node`: `false` when `node` is not open.
        private mutating func reach(_ node: XMLEncodingNode) -> Bool {
            if open[open.count - 1] === node { return true }
            guard node.isOpen else {
                mustRestart = true
                return false
            }
            while open[open.count - 1] !== node {
                guard close() else { return false }
            }
            return true
        }

        /// Writes the start tag of `node`, the innermost open element, unless it is written.
        private mutating func start(_ node: XMLEncodingNode, content: XMLEncodingNode.ContentStart) -> Bool {
            if node.isStarted { return true }
            if node.misplacedAt != nil || node.invalidNameAt != nil {
                mustRestart = true
                return false
            }
            do {
                node.prefix = try XMLEncodingNode.writeStartTag(
                    name: node.name, content: content, isNil: node.isNil, schemaType: node.schemaType, attributes: node.attributes,
                    declaringPreferred: declaringPreferred && open.count == 2, scope: &scope, into: &bytes)
            } catch {
                mustRestart = true
                return false
            }
            node.isStarted = true
            return true
        }

        /// Ends the innermost open element.
        private mutating func close() -> Bool {
            let node = open[open.count - 1]
            guard start(node, content: .other) else { return false }
            XMLEncodingNode.writeEndTag(prefix: node.prefix, localName: node.name.localName, into: &bytes)
            open.removeLast()
            scope.close()
            node.isOpen = false
            return true
        }

        /// The markup with every element ended; `nil` when streaming stopped.
        mutating func finish() -> [UInt8]? {
            while !mustRestart, open.count > 1 {
                guard close() else { break }
            }
            return mustRestart ? nil : bytes
        }
    }

    // MARK: Types and names

    /// The schema of `type`, if it is an ``XMLSchemaType``: looked up once per type and run.
    func schema(of type: Any.Type) -> XMLTypeSchema? {
        let key = ObjectIdentifier(type)
        if let known = schemas[key] { return known }
        let schema = (type as? any XMLSchemaType.Type)?.xmlSchema
        schemas[key] = .some(schema)
        return schema
    }

    /// Whether `name` is an XML name without a colon, as ``checkName(_:codingPath:)`` checks it.
    func isName(_ name: String) -> Bool {
        (try? checkName(name, codingPath: [])) != nil
    }

    /// Throws unless `name` is an XML name without a colon.
    func checkName(_ name: String, codingPath: @autoclosure () -> [any CodingKey]) throws {
        switch Self.asciiNameCheck(name) {
        case true?: return
        case false?: break
        case nil:
            if checkedNames.contains(name) { return }
            if (try? XMLWriter.checkName(name, allowingPrefix: false)) != nil {
                checkedNames.insert(name)
                return
            }
        }
        throw EncodingError.invalidValue(name, EncodingError.Context(
            codingPath: codingPath(), debugDescription: "The key is not a valid XML name"))
    }

    /// Whether an ASCII `name` is an `NCName`; `nil` when it is not ASCII.
    static func asciiNameCheck(_ name: String) -> Bool? {
        var name = name
        return name.withUTF8 { bytes in
            guard let first = bytes.first else { return false }
            guard isASCIINameStart(first) else { return first < 0x80 ? false : nil }
            for byte in bytes.dropFirst() where !isASCIINameStart(byte) {
                switch byte {
                case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0") ... UInt8(ascii: "9"): continue
                case 0x80...: return nil
                default: return false
                }
            }
            return true
        }
    }

    private static func isASCIINameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
