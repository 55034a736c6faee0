/// One element of the value being encoded, before or while it is written: names resolved to
/// namespaces, text and attribute values already escaped and checked.
///
/// ``XMLEncodingSink`` writes most elements as soon as their content arrives, and keeps in the
/// node only what its start tag still needs. When `encode(to:)` writes out of document order
/// (an attribute after a child element, or into an element after a sibling has started), the
/// sink builds the whole tree of nodes instead and writes it when it is finished.
final class XMLEncodingNode {
    /// The element's name.
    var name: XMLQualifiedName
    /// The attributes, values escaped, in the order added.
    var attributes: [(name: XMLQualifiedName, escapedValue: [UInt8])] = []
    /// The element's own text, escaped (only while a tree is built).
    var escapedText: [UInt8] = []
    /// The child elements, in order (only while a tree is built).
    var children: [XMLEncodingNode] = []
    /// Whether the element is written with `xsi:nil="true"`.
    var isNil = false
    /// The `xsi:type` to write, for a derived type.
    var schemaType: XMLQualifiedName?
    /// A parsed element (`xsd:any`), written in place of this node's own content and name.
    var raw: XMLTree.Element?
    /// Set when a value with elements of its own was encoded where its type's schema says an
    /// attribute or text goes: the coding path, reported when the nodes are written.
    var misplacedAt: [any CodingKey]?
    /// Set when the element was made, by a container method that cannot throw, under a name
    /// that is not an XML name: the coding path, reported when the nodes are written.
    var invalidNameAt: [any CodingKey]?

    // While written as it arrives:
    /// Whether the element is open in the sink: its end tag is not written yet.
    var isOpen = false
    /// Whether its start tag is written, after which it takes no more attributes.
    var isStarted = false
    /// Whether an element or a raw element was written in it, after which it takes no text.
    var hasChildren = false
    /// The prefix its start tag gave its name, for the end tag.
    var prefix: String?

    init(name: XMLQualifiedName) {
        self.name = name
    }

    /// Whether nothing has been written into the element yet.
    var isEmpty: Bool {
        attributes.isEmpty && escapedText.isEmpty && children.isEmpty && !isNil && schemaType == nil && raw == nil
            && !isStarted
    }

    static let schemaInstanceNamespace = XMLElementDecoder.schemaInstanceNamespace

    // MARK: Writing

    /// The prefixes in scope while writing: a binding stack with an undo log per element.
    struct Scope {
        var uriByPrefix: [String: String] = ["xml": "http://www.w3.org/XML/1998/namespace"]
        var prefixByURI: [String: String] = ["http://www.w3.org/XML/1998/namespace": "xml"]
        var undo: [[(prefix: String, uri: String?, previousPrefixForURI: String?, uriKey: String)]] = []
        var preferred: [String: String]
        /// The namespace last resolved and its prefix, while no binding has changed since.
        private var last: (uri: String, prefix: String)?
        /// The default namespace in scope (`xmlns="…"`), `nil` for none.
        private(set) var defaultNamespace: String?
        /// The default namespaces that declarations replaced, with the depth of the element
        /// that declared them.
        private var defaultUndo: [(depth: Int, previous: String?)] = []

        init(preferred: [String: String]) {
            self.preferred = preferred
        }

        /// The prefix bound to `uri` in scope, if any still is.
        mutating func prefix(for uri: String) -> String? {
            if let last, last.uri == uri { return last.prefix }
            guard let prefix = prefixByURI[uri], uriByPrefix[prefix] == uri else { return nil }
            last = (uri, prefix)
            return prefix
        }

        /// Binds `prefix` to `uri` for the current element.
        mutating func bind(_ prefix: String, to uri: String) {
            last = nil
            undo[undo.count - 1].append((prefix, uriByPrefix[prefix], prefixByURI[uri], uri))
            uriByPrefix[prefix] = uri
            prefixByURI[uri] = prefix
        }

        /// A prefix for `uri`: in scope, or a new one declared in `declarations`.
        mutating func prefix(for uri: String, declaring declarations: inout [(String, String)]) -> String {
            // Bound by Namespaces in XML itself, and never declared.
            if uri == XMLNamespaceResolver.xmlNamespace { return "xml" }
            if let prefix = prefix(for: uri) { return prefix }
            var candidate = uri == schemaInstanceNamespace ? "xsi" : preferred[uri]
            if let chosen = candidate, uriByPrefix[chosen] != nil { candidate = nil }
            let prefix: String
            if let candidate {
                prefix = candidate
            } else {
                // The first `nsN` not in scope, so that siblings reuse the same one.
                var counter = 0
                repeat {
                    counter += 1
                } while uriByPrefix["ns\(counter)"] != nil || preferred.values.contains("ns\(counter)")
                prefix = "ns\(counter)"
            }
            bind(prefix, to: uri)
            declarations.append((prefix, uri))
            return prefix
        }

        /// Makes `uri` (`nil`: none) the default namespace for the current element.
        mutating func setDefault(_ uri: String?) {
            defaultUndo.append((undo.count, defaultNamespace))
            defaultNamespace = uri
        }

        mutating func open() { undo.append([]) }

        mutating func close() {
            if let declared = defaultUndo.last, declared.depth == undo.count {
                defaultNamespace = declared.previous
                defaultUndo.removeLast()
            }
            let entries = undo.removeLast()
            guard !entries.isEmpty else { return }
            last = nil
            for entry in entries.reversed() {
                uriByPrefix[entry.prefix] = entry.uri
                prefixByURI[entry.uriKey] = entry.previousPrefixForURI
            }
        }
    }

    /// Checks the preferred prefixes before anything is written: each a valid prefix for a
    /// namespace that is not empty, nor one of the two Namespaces in XML binds itself (`xml`,
    /// `xmlns`), and no prefix preferred for two namespaces.
    static func checkPreferred(_ prefixes: [String: String]) throws {
        var seen: Set<String> = []
        for (uri, prefix) in prefixes {
            try checkPrefix(prefix)
            guard !uri.isEmpty else { throw invalid("the namespace of the prefix \(prefix.debugDescription) is empty") }
            guard uri != XMLNamespaceResolver.xmlNamespace, uri != XMLNamespaceResolver.xmlnsNamespace else {
                throw invalid("the namespace \(uri) of the prefix \(prefix.debugDescription) is bound by Namespaces in XML, and cannot be declared")
            }
            guard seen.insert(prefix).inserted else {
                let namespaces = prefixes.filter { $0.value == prefix }.keys.sorted().map(\.debugDescription)
                throw invalid("the prefix \(prefix.debugDescription) is preferred for more than one namespace: \(namespaces.joined(separator: ", "))")
            }
        }
    }

    /// What an element's content starts with, as far as it is known when its start tag is
    /// written.
    enum ContentStart {
        /// Text, a parsed element written again, or nothing.
        case other
        /// An element in this namespace (`nil`: in none).
        case element(namespaceURI: String?)
    }

    /// Writes the start tag of an element, in a scope opened for it, declaring the namespaces it
    /// needs; returns the prefix of its name.
    ///
    /// An element's namespace is declared as the default namespace (`xmlns="…"`), so that its
    /// name and those of its children in the same namespace need no prefix, unless
    /// ``Scope/preferred`` gives it a prefix, a prefix for it is in scope already, or the
    /// element's first child is in another namespace (then a prefix saves the child an
    /// `xmlns=""`). An element in no namespace under a default namespace declares `xmlns=""`.
    /// Attributes and `xsi:type` values always use prefixes.
    ///
    /// - Parameters:
    ///   - declaringPreferred: Whether the scope's preferred prefixes are declared on it.
    ///   - content: What the element's content starts with.
    static func writeStartTag(
        name: XMLQualifiedName,
        content: ContentStart,
        isNil: Bool,
        schemaType: XMLQualifiedName?,
        attributes: [(name: XMLQualifiedName, escapedValue: [UInt8])],
        declaringPreferred: Bool,
        scope: inout Scope,
        into output: inout [UInt8]
    ) throws -> String? {
        var declarations: [(String, String)] = []
        if declaringPreferred {
            for (uri, prefix) in scope.preferred.sorted(by: { $0.value < $1.value }) {
                scope.bind(prefix, to: uri)
                declarations.append((prefix, uri))
            }
        }
        // An `xsi:type` in no namespace is written without a prefix, which names a type in the
        // default namespace: the element then has no default namespace.
        let typeInNoNamespace = schemaType.map { $0.namespaceURI == nil } ?? false
        let prefix: String?
        if let uri = name.namespaceURI {
            if scope.defaultNamespace == uri, !typeInNoNamespace {
                prefix = nil
            } else if let bound = scope.prefix(for: uri) {
                prefix = bound
            } else if typeInNoNamespace || scope.preferred[uri] != nil || uri == schemaInstanceNamespace || content.startsOutside(uri) {
                prefix = scope.prefix(for: uri, declaring: &declarations)
            } else {
                scope.setDefault(uri)
                declarations.append(("", uri))
                prefix = nil
            }
        } else {
            prefix = nil
        }
        if prefix == nil ? name.namespaceURI == nil : typeInNoNamespace, scope.defaultNamespace != nil {
            scope.setDefault(nil)
            declarations.append(("", ""))
        }
        if !isNil && schemaType == nil && attributes.isEmpty && declarations.isEmpty {
            // The common case: a plain element.
            output.append(UInt8(ascii: "<"))
            appendName(prefix, name.localName, to: &output)
            output.append(UInt8(ascii: ">"))
            return prefix
        }
        var written: [(prefix: String?, name: String, value: [UInt8])] = []
        if isNil {
            written.append((scope.prefix(for: schemaInstanceNamespace, declaring: &declarations), "nil", Array("true".utf8)))
        }
        if let type = schemaType {
            let typePrefix = type.namespaceURI.map { scope.prefix(for: $0, declaring: &declarations) }
            let value = typePrefix.map { $0 + ":" + type.localName } ?? type.localName
            written.append((scope.prefix(for: schemaInstanceNamespace, declaring: &declarations), "type", Array(value.utf8)))
        }
        for attribute in attributes {
            let attributePrefix = attribute.name.namespaceURI.map { scope.prefix(for: $0, declaring: &declarations) }
            written.append((attributePrefix, attribute.name.localName, attribute.escapedValue))
        }
        output.append(UInt8(ascii: "<"))
        appendName(prefix, name.localName, to: &output)
        for (declared, uri) in declarations {
            if declared.isEmpty {
                output.append(contentsOf: " xmlns=\"".utf8)
            } else {
                output.append(contentsOf: " xmlns:".utf8)
                output.append(contentsOf: declared.utf8)
                output.append(contentsOf: "=\"".utf8)
            }
            guard XMLEscaping.escape(uri, inAttribute: true, into: &output) else {
                throw invalid("a namespace or attribute holds a character XML 1.0 does not allow")
            }
            output.append(UInt8(ascii: "\""))
        }
        for attribute in written {
            output.append(UInt8(ascii: " "))
            appendName(attribute.prefix, attribute.name, to: &output)
            output.append(contentsOf: "=\"".utf8)
            output.append(contentsOf: attribute.value)
            output.append(UInt8(ascii: "\""))
        }
        output.append(UInt8(ascii: ">"))
        return prefix
    }

    /// Writes the end tag of an element whose name has `prefix`.
    static func writeEndTag(prefix: String?, localName: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        output.append(UInt8(ascii: "/"))
        appendName(prefix, localName, to: &output)
        output.append(UInt8(ascii: ">"))
    }

    private static func appendName(_ prefix: String?, _ localName: String, to output: inout [UInt8]) {
        if let prefix {
            XMLEscaping.append(utf8Of: prefix, to: &output)
            output.append(UInt8(ascii: ":"))
        }
        XMLEscaping.append(utf8Of: localName, to: &output)
    }

    /// Writes `nodes` as markup, without recursion.
    ///
    /// - Parameters:
    ///   - prefixes: Preferred prefixes by namespace URI.
    ///   - declaringPreferred: Whether the preferred prefixes are declared on each top-level node.
    static func serialize(_ nodes: [XMLEncodingNode], prefixes: [String: String], declaringPreferred: Bool) throws -> [UInt8] {
        try checkPreferred(prefixes)
        var scope = Scope(preferred: prefixes)
        var output: [UInt8] = []
        // Each frame: a node whose start tag is written, and the index of its next child.
        var stack: [(node: XMLEncodingNode, next: Int, prefix: String?)] = []
        var pending = nodes.reversed().map { $0 }
        var topLevel = Set(nodes.map { ObjectIdentifier($0) })
        while true {
            if let top = stack.last {
                if top.next < top.node.children.count {
                    stack[stack.count - 1].next += 1
                    pending.append(top.node.children[top.next])
                } else {
                    writeEndTag(prefix: top.prefix, localName: top.node.name.localName, into: &output)
                    stack.removeLast()
                    scope.close()
                    continue
                }
            }
            guard let node = pending.popLast() else { break }
            if let raw = node.raw {
                var text = ""
                try writeRaw(raw, to: &text)
                output.append(contentsOf: text.utf8)
            } else {
                if let path = node.invalidNameAt { throw invalidName(node, at: path) }
                if let path = node.misplacedAt { throw misplaced(node, at: path) }
                scope.open()
                var content = ContentStart.other
                if node.escapedText.isEmpty, let first = node.children.first, first.raw == nil {
                    content = .element(namespaceURI: first.name.namespaceURI)
                }
                let prefix = try writeStartTag(
                    name: node.name, content: content, isNil: node.isNil, schemaType: node.schemaType, attributes: node.attributes,
                    declaringPreferred: declaringPreferred && topLevel.contains(ObjectIdentifier(node)), scope: &scope, into: &output)
                output.append(contentsOf: node.escapedText)
                stack.append((node, 0, prefix))
            }
            topLevel.remove(ObjectIdentifier(node))
        }
        return output
    }

    /// The error for a node whose ``invalidNameAt`` is set.
    static func invalidName(_ node: XMLEncodingNode, at path: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(node.name.localName, EncodingError.Context(
            codingPath: path, debugDescription: "The element's name is not a valid XML name"))
    }

    /// The error for an element where its type's schema says an attribute or text goes.
    static func misplaced(_ node: XMLEncodingNode, at path: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(node.name.localName, EncodingError.Context(
            codingPath: path, debugDescription: "An attribute or text field holds a value with elements of its own"))
    }

    /// The markup of an element of a parsed document (see
    /// ``writeRaw(_:to:extraDeclarations:extraAttributes:omittingRootAttributes:)``).
    static func rawMarkup(
        _ element: XMLTree.Element,
        extraDeclarations: [(prefix: String, uri: String)] = [],
        extraAttributes: [(name: String, value: String)] = [],
        omittingRootAttributes omitted: (XMLTree.Attribute) -> Bool = { _ in false }
    ) throws -> String {
        var output = ""
        try writeRaw(
            element, to: &output, extraDeclarations: extraDeclarations, extraAttributes: extraAttributes, omittingRootAttributes: omitted)
        return output
    }

    /// Writes an element of a parsed document: its names with their own prefixes, the namespace
    /// declarations in scope where it was, its attributes, text and children; and on the root
    /// element, `extraDeclarations` and `extraAttributes` (qualified names, values unescaped),
    /// without its attributes that `omitted` names (those `extraAttributes` replace).
    ///
    /// Each element's text is one string in the tree, so it is written whole, right after the
    /// start tag and before the children; comments and processing instructions are not in the
    /// tree and are not written.
    static func writeRaw(
        _ root: XMLTree.Element,
        to output: inout String,
        extraDeclarations: [(prefix: String, uri: String)] = [],
        extraAttributes: [(name: String, value: String)] = [],
        omittingRootAttributes omitted: (XMLTree.Attribute) -> Bool = { _ in false }
    ) throws {
        let storage = root.storage
        // The declarations in scope at the root, innermost last, so that prefixes used in
        // content (an xsi:type value) still resolve.
        var inScope: [String: String?] = [:]
        var ancestor: XMLTree.Element? = root
        while let current = ancestor {
            for declaration in (storage.declarations[current.index] ?? []).reversed() {
                let prefix = declaration.prefix ?? ""
                if inScope[prefix] == nil { inScope[prefix] = .some(declaration.namespaceURI) }
            }
            ancestor = current.parent
        }
        // An unprefixed element in no namespace must stay in none wherever it goes.
        if inScope[""] == nil {
            let end = storage.end(of: root.index)
            if (root.index ..< end).contains(where: { storage.scopes[Int(storage.nodes[$0].scope)].prefix == nil }) {
                inScope[""] = .some(nil)
            }
        }
        var stack: [(index: Int, name: String?)] = [(root.index, nil)]
        var first = true
        while let (index, openName) = stack.popLast() {
            if let openName {
                output += "</" + openName + ">"
                continue
            }
            let element = XMLTree.Element(storage: storage, index: index)
            var declarations: [(String?, String?)] = []
            if first {
                declarations = inScope.sorted { $0.key < $1.key }.map { ($0.key.isEmpty ? nil : $0.key, $0.value) }
                first = false
            } else {
                declarations = (storage.declarations[index] ?? []).map { ($0.prefix, $0.namespaceURI) }
            }
            let qualifiedName = element.qualifiedName
            output += "<" + qualifiedName
            for (prefix, uri) in declarations {
                let value = try escapeAttribute(uri ?? "")
                if let prefix {
                    guard uri != nil else { continue }
                    output += " xmlns:" + prefix + "=\"" + value + "\""
                } else {
                    output += " xmlns=\"" + value + "\""
                }
            }
            if index == root.index {
                for (prefix, uri) in extraDeclarations {
                    output += " xmlns:" + prefix + "=\"" + (try escapeAttribute(uri)) + "\""
                }
            }
            for attribute in element.attributes where index != root.index || !omitted(attribute) {
                let name = attribute.prefix.map { $0 + ":" + attribute.name } ?? attribute.name
                output += " " + name + "=\"" + (try escapeAttribute(attribute.value)) + "\""
            }
            if index == root.index {
                for (name, value) in extraAttributes {
                    output += " " + name + "=\"" + (try escapeAttribute(value)) + "\""
                }
            }
            output += ">" + (try escapeText(element.text))
            stack.append((index, qualifiedName))
            var children: [Int] = []
            var child = index + 1
            let end = storage.end(of: index)
            while child < end {
                children.append(child)
                child = storage.end(of: child)
            }
            for child in children.reversed() { stack.append((child, nil)) }
        }
    }

    // MARK: Checks

    /// Refuses a name Namespaces in XML reserves: an attribute `xmlns` in no namespace (a
    /// namespace declaration), anything in the `xmlns` namespace, and an element in the XML
    /// namespace. (An attribute in the XML namespace, `xml:lang` say, is written with `xml`.)
    static func checkReserved(_ name: String, namespace: String?, isAttribute: Bool, codingPath: [any CodingKey]) throws {
        let reserved =
            namespace == XMLNamespaceResolver.xmlnsNamespace
            || (isAttribute ? namespace == nil && name == "xmlns" : namespace == XMLNamespaceResolver.xmlNamespace)
        guard reserved else { return }
        throw EncodingError.invalidValue(name, EncodingError.Context(
            codingPath: codingPath,
            debugDescription: "\(name.debugDescription) in \(namespace.map { "the namespace \($0)" } ?? "no namespace") is reserved by Namespaces in XML"))
    }

    static func invalid(_ description: String) -> EncodingError {
        EncodingError.invalidValue("", EncodingError.Context(codingPath: [], debugDescription: description))
    }

    static func escapeAttribute(_ value: String) throws -> String {
        do {
            return try XMLWriter.escape(value, inAttribute: true, of: "")
        } catch {
            throw invalid("a namespace or attribute holds a character XML 1.0 does not allow")
        }
    }

    static func escapeText(_ value: String) throws -> String {
        do {
            return try XMLWriter.escape(value, inAttribute: false, of: "")
        } catch {
            throw invalid("a text holds a character XML 1.0 does not allow")
        }
    }

    static func checkPrefix(_ prefix: String) throws {
        do {
            try XMLWriter.checkName(prefix, allowingPrefix: false)
        } catch {
            throw invalid("\(prefix.debugDescription) is not a valid namespace prefix")
        }
        if prefix.lowercased().hasPrefix("xml") {
            throw invalid("\(prefix.debugDescription) is a reserved namespace prefix")
        }
    }
}

extension XMLEncodingNode.ContentStart {
    /// Whether the content starts with an element in a namespace other than `uri`.
    func startsOutside(_ uri: String) -> Bool {
        if case .element(let namespaceURI) = self { return namespaceURI != uri }
        return false
    }
}
