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
    /// Whether the preferred prefixes are declared on each top-level element.
    let declaringPreferred: Bool
    /// The markup written so far (streaming).
    private(set) var bytes: [UInt8] = []
    /// The open elements, outermost (``document``) first (streaming).
    private var open: [XMLEncodingNode]
    private var scope: XMLEncodingNode.Scope
    /// Set when streaming met something it cannot write in order: the output is not used.
    private(set) var mustRestart = false
    /// Names checked already that needed the full Unicode check (ASCII names are checked
    /// byte by byte, which costs less than looking them up).
    private var checkedNames: Set<String> = []
    /// The schemas of the types encoded so far, by type.
    private var schemas: [ObjectIdentifier: XMLTypeSchema?] = [:]

    init(options: XMLTreeEncoder, mode: Mode, declaringPreferred: Bool = true) {
        self.options = options
        self.mode = mode
        self.declaringPreferred = declaringPreferred
        scope = XMLEncodingNode.Scope(preferred: options.namespacePrefixes)
        open = [document]
        document.isOpen = true
        document.isStarted = true
        if mode == .streaming { bytes.reserveCapacity(4096) }
    }

    /// Stops streaming; the value is encoded again as a tree.
    private func restart() -> Restart {
        mustRestart = true
        return Restart()
    }

    // MARK: Elements

    /// Makes `child` an element of `parent`, after its existing content.
    func append(_ child: XMLEncodingNode, to parent: XMLEncodingNode) {
        switch mode {
        case .tree:
            parent.children.append(child)
        case .streaming:
            guard !mustRestart, reach(parent), start(parent) else { return }
            parent.hasChildren = true
            scope.open()
            child.isOpen = true
            open.append(child)
        }
    }

    /// Appends `text` to `node`'s own text; `false` when it holds a character XML 1.0 does not
    /// allow.
    func appendText(_ text: XMLScalarText, to node: XMLEncodingNode) throws -> Bool {
        switch mode {
        case .tree:
            return text.write(inAttribute: false, into: &node.escapedText)
        case .streaming:
            guard try prepareText(for: node) else { return true }
            return text.write(inAttribute: false, into: &bytes)
        }
    }

    /// Readies the buffer for text of `node`: `false` when streaming has stopped already.
    private func prepareText(for node: XMLEncodingNode) throws -> Bool {
        if mustRestart { return false }
        guard reach(node), !node.hasChildren, start(node) else { throw restart() }
        return true
    }

    /// Adds an attribute, its value escaped already, to `node`.
    func addAttribute(_ name: XMLQualifiedName, escapedValue: [UInt8], to node: XMLEncodingNode) throws {
        if mode == .streaming {
            guard node.isOpen, !node.isStarted else { throw restart() }
        }
        node.attributes.append((name, escapedValue))
    }

    /// Writes `node` with `xsi:nil="true"`.
    func setNil(_ node: XMLEncodingNode) {
        if mode == .streaming, !node.isOpen || node.isStarted {
            mustRestart = true
            return
        }
        node.isNil = true
    }

    /// Whether `node` is `parent`'s last element and has nothing written in it.
    func isEmptyLastElement(_ node: XMLEncodingNode, of parent: XMLEncodingNode) -> Bool {
        switch mode {
        case .tree:
            return node.isEmpty && parent.children.last === node
        case .streaming:
            return node.isEmpty && open.count >= 2 && open[open.count - 1] === node && open[open.count - 2] === parent
        }
    }

    /// Removes `node`, ``isEmptyLastElement(_:of:)`` of `parent`.
    func removeEmptyLastElement(_ node: XMLEncodingNode, of parent: XMLEncodingNode) {
        switch mode {
        case .tree:
            parent.children.removeLast()
        case .streaming:
            open.removeLast()
            scope.close()
            node.isOpen = false
        }
    }

    /// Writes an element of a parsed document, as it is, after `parent`'s content.
    func appendRaw(_ element: XMLTree.Element, named name: XMLQualifiedName, to parent: XMLEncodingNode) throws -> XMLEncodingNode {
        let node = XMLEncodingNode(name: name)
        node.raw = element
        switch mode {
        case .tree:
            parent.children.append(node)
        case .streaming:
            guard !mustRestart else { throw Restart() }
            guard reach(parent), start(parent) else { throw restart() }
            parent.hasChildren = true
            var text = ""
            try XMLEncodingNode.writeRaw(element, to: &text)
            bytes.append(contentsOf: text.utf8)
        }
        return node
    }

    /// Writes an element holding only text, `name`, after `parent`'s content: what
    /// ``append(_:to:)`` and ``appendText(_:to:)`` would, without keeping a node.
    func appendTextElement(named name: XMLQualifiedName, in parent: XMLEncodingNode, text write: (inout [UInt8]) -> Bool) throws -> Bool {
        switch mode {
        case .tree:
            let child = XMLEncodingNode(name: name)
            parent.children.append(child)
            return write(&child.escapedText)
        case .streaming:
            guard !mustRestart else { throw Restart() }
            guard reach(parent), start(parent) else { throw restart() }
            parent.hasChildren = true
            scope.open()
            defer { scope.close() }
            let prefix = try XMLEncodingNode.writeStartTag(
                name: name, isNil: false, schemaType: nil, attributes: [],
                declaringPreferred: declaringPreferred && open.count == 1, scope: &scope, into: &bytes)
            guard write(&bytes) else { return false }
            XMLEncodingNode.writeEndTag(prefix: prefix, localName: name.localName, into: &bytes)
            return true
        }
    }

    // MARK: Streaming

    /// Closes the open elements inside `node`: `false` when `node` is not open.
    private func reach(_ node: XMLEncodingNode) -> Bool {
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
    private func start(_ node: XMLEncodingNode) -> Bool {
        if node.isStarted { return true }
        if node.misplacedAt != nil {
            mustRestart = true
            return false
        }
        do {
            node.prefix = try XMLEncodingNode.writeStartTag(
                name: node.name, isNil: node.isNil, schemaType: node.schemaType, attributes: node.attributes,
                declaringPreferred: declaringPreferred && open.count == 2, scope: &scope, into: &bytes)
        } catch {
            mustRestart = true
            return false
        }
        node.isStarted = true
        return true
    }

    /// Ends the innermost open element.
    private func close() -> Bool {
        let node = open[open.count - 1]
        guard start(node) else { return false }
        XMLEncodingNode.writeEndTag(prefix: node.prefix, localName: node.name.localName, into: &bytes)
        open.removeLast()
        scope.close()
        node.isOpen = false
        return true
    }

    /// The markup: every element ended (streaming); `nil` when streaming stopped.
    func finish() throws -> [UInt8]? {
        switch mode {
        case .tree:
            return try XMLEncodingNode.serialize(document.children, prefixes: options.namespacePrefixes, declaringPreferred: declaringPreferred)
        case .streaming:
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
            codingPath: codingPath(), debugDescription: "\(name.debugDescription) is not a valid XML name"))
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
