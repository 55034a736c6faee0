/// One element built by ``XMLElementEncoder``, before it is written: names resolved to
/// namespaces, text and attribute values already escaped and checked.
///
/// Encoding builds these first because `encode(to:)` may add an attribute after a child
/// element, or open a second container on the same element (a subclass after its base class);
/// prefixes are chosen only when the finished nodes are written.
final class XMLEncodingNode {
    /// The element's name.
    var name: XMLQualifiedName
    /// The attributes, values escaped, in the order added.
    var attributes: [(name: XMLQualifiedName, escapedValue: String)] = []
    /// The element's own text, escaped.
    var escapedText = ""
    /// The child elements, in order.
    var children: [XMLEncodingNode] = []
    /// Whether the element is written with `xsi:nil="true"`.
    var isNil = false
    /// The `xsi:type` to write, for a derived type.
    var schemaType: XMLQualifiedName?
    /// An element written as it is (`xsd:any`) in place of this node's own content and name.
    var raw: XMLTree.Element?
    /// Set when a value with elements of its own was encoded where its type's schema says an
    /// attribute or text goes: the coding path, reported when the nodes are written.
    var misplacedAt: [any CodingKey]?

    init(name: XMLQualifiedName) {
        self.name = name
    }

    /// Whether nothing has been written into the element yet.
    var isEmpty: Bool {
        attributes.isEmpty && escapedText.isEmpty && children.isEmpty && !isNil && schemaType == nil && raw == nil
    }

    static let schemaInstanceNamespace = XMLElementDecoder.schemaInstanceNamespace

    // MARK: Writing

    /// The prefixes in scope while writing: a binding stack with an undo log per element.
    private struct Scope {
        var uriByPrefix: [String: String] = ["xml": "http://www.w3.org/XML/1998/namespace"]
        var prefixByURI: [String: String] = ["http://www.w3.org/XML/1998/namespace": "xml"]
        var undo: [[(prefix: String, uri: String?, previousPrefixForURI: String?, uriKey: String)]] = []
        var preferred: [String: String]
        var counter = 0

        init(preferred: [String: String]) {
            self.preferred = preferred
        }

        /// The prefix bound to `uri` in scope, if any still is.
        func prefix(for uri: String) -> String? {
            guard let prefix = prefixByURI[uri], uriByPrefix[prefix] == uri else { return nil }
            return prefix
        }

        /// Binds `prefix` to `uri` for the current element.
        mutating func bind(_ prefix: String, to uri: String) {
            undo[undo.count - 1].append((prefix, uriByPrefix[prefix], prefixByURI[uri], uri))
            uriByPrefix[prefix] = uri
            prefixByURI[uri] = prefix
        }

        /// A prefix for `uri`: in scope, or a new one declared in `declarations`.
        mutating func prefix(for uri: String, declaring declarations: inout [(String, String)]) -> String {
            if let prefix = prefix(for: uri) { return prefix }
            var candidate = uri == schemaInstanceNamespace ? "xsi" : preferred[uri]
            if let chosen = candidate, uriByPrefix[chosen] != nil { candidate = nil }
            let prefix: String
            if let candidate {
                prefix = candidate
            } else {
                repeat {
                    counter += 1
                } while uriByPrefix["ns\(counter)"] != nil || preferred.values.contains("ns\(counter)")
                prefix = "ns\(counter)"
            }
            bind(prefix, to: uri)
            declarations.append((prefix, uri))
            return prefix
        }

        mutating func open() { undo.append([]) }

        mutating func close() {
            for entry in undo.removeLast().reversed() {
                uriByPrefix[entry.prefix] = entry.uri
                prefixByURI[entry.uriKey] = entry.previousPrefixForURI
            }
        }
    }

    /// Writes `nodes` as markup, without recursion.
    ///
    /// - Parameters:
    ///   - prefixes: Preferred prefixes by namespace URI.
    ///   - declaringPreferred: Whether the preferred prefixes are declared on each top-level node.
    static func serialize(_ nodes: [XMLEncodingNode], prefixes: [String: String], declaringPreferred: Bool) throws -> String {
        for (uri, prefix) in prefixes {
            try checkPrefix(prefix)
            guard !uri.isEmpty else { throw invalid("the namespace of the prefix \(prefix.debugDescription) is empty") }
        }
        var scope = Scope(preferred: prefixes)
        var output = ""
        // Each frame: a node whose start tag is written, and the index of its next child.
        var stack: [(node: XMLEncodingNode, next: Int, name: String)] = []
        var pending = nodes.reversed().map { $0 }
        var topLevel = Set(nodes.map { ObjectIdentifier($0) })
        func start(_ node: XMLEncodingNode) throws {
            if let path = node.misplacedAt {
                throw EncodingError.invalidValue(node.name.localName, EncodingError.Context(
                    codingPath: path, debugDescription: "An attribute or text field holds a value with elements of its own"))
            }
            scope.open()
            var declarations: [(String, String)] = []
            if declaringPreferred && topLevel.contains(ObjectIdentifier(node)) {
                for (uri, prefix) in prefixes.sorted(by: { $0.value < $1.value }) {
                    scope.bind(prefix, to: uri)
                    declarations.append((prefix, uri))
                }
            }
            let name: String
            if let uri = node.name.namespaceURI {
                name = scope.prefix(for: uri, declaring: &declarations) + ":" + node.name.localName
            } else {
                name = node.name.localName
            }
            var attributes: [(String, String)] = []
            if node.isNil {
                attributes.append((scope.prefix(for: schemaInstanceNamespace, declaring: &declarations) + ":nil", "true"))
            }
            if let type = node.schemaType {
                let typePrefix = type.namespaceURI.map { scope.prefix(for: $0, declaring: &declarations) }
                let value = typePrefix.map { $0 + ":" + type.localName } ?? type.localName
                attributes.append((scope.prefix(for: schemaInstanceNamespace, declaring: &declarations) + ":type", value))
            }
            for attribute in node.attributes {
                if let uri = attribute.name.namespaceURI {
                    attributes.append((scope.prefix(for: uri, declaring: &declarations) + ":" + attribute.name.localName, attribute.escapedValue))
                } else {
                    attributes.append((attribute.name.localName, attribute.escapedValue))
                }
            }
            output += "<" + name
            for (prefix, uri) in declarations {
                output += " xmlns:" + prefix + "=\"" + (try escapeAttribute(uri)) + "\""
            }
            for (attributeName, value) in attributes {
                output += " " + attributeName + "=\"" + value + "\""
            }
            output += ">" + node.escapedText
            stack.append((node, 0, name))
        }
        while true {
            if let top = stack.last {
                if top.next < top.node.children.count {
                    stack[stack.count - 1].next += 1
                    pending.append(top.node.children[top.next])
                } else {
                    output += "</" + top.name + ">"
                    stack.removeLast()
                    scope.close()
                    continue
                }
            }
            guard let node = pending.popLast() else { break }
            if let raw = node.raw {
                try writeRaw(raw, to: &output)
            } else {
                try start(node)
            }
            topLevel.remove(ObjectIdentifier(node))
        }
        return output
    }

    /// The markup of an element of a parsed document as it is (see ``writeRaw(_:to:extraDeclarations:extraAttributes:)``).
    static func rawMarkup(
        _ element: XMLTree.Element,
        extraDeclarations: [(prefix: String, uri: String)] = [],
        extraAttributes: [(name: String, value: String)] = []
    ) throws -> String {
        var output = ""
        try writeRaw(element, to: &output, extraDeclarations: extraDeclarations, extraAttributes: extraAttributes)
        return output
    }

    /// Writes an element of a parsed document as it is: its names with their own prefixes, the
    /// namespace declarations in scope where it was, its attributes, text and children; and on
    /// the root element, `extraDeclarations` and `extraAttributes` (qualified names, values
    /// unescaped).
    private static func writeRaw(
        _ root: XMLTree.Element,
        to output: inout String,
        extraDeclarations: [(prefix: String, uri: String)] = [],
        extraAttributes: [(name: String, value: String)] = []
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
            for attribute in element.attributes {
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
