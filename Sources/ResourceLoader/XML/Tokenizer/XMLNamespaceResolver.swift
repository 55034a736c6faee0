/// Namespaces 1.0 for the tokenizer: the bindings in scope, and the namespace constraints on
/// each start tag.
///
/// A stack of bindings that grows only at elements that declare some; a prefix is looked up
/// from the innermost binding outwards, and the number in scope is limited
/// (``XMLParsingOptions/maximumNamespaceDeclarationsInScope``), so a look-up costs a bounded
/// number of comparisons (interned strings of equal storage compare at once).
struct XMLNamespaceResolver {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    /// Why a start tag is refused.
    enum Failure: Error {
        /// Not namespace-well-formed.
        case malformed
        /// Past a limit on declarations.
        case limit(XMLParsingError)
    }

    private struct Binding {
        /// `""` for the default namespace.
        var prefix: String
        /// `nil`: the default namespace undeclared (`xmlns=""`).
        var uri: String?
        var serial: Int
    }

    private var bindings: [Binding] = []
    /// How many elements are open.
    private var depth = 0
    /// For each open element that declared a namespace, innermost last: its depth, and
    /// `bindings.count` before its declarations. Elements that declare none (most) push nothing.
    private var marks: [(depth: Int, count: Int)] = []
    /// The innermost mark's depth (-1: no marks), so that ending an element that declared
    /// nothing compares two numbers.
    private var markDepth = -1
    private var serial = 0
    /// The index in `bindings` of the innermost default-namespace binding, or -1: kept on
    /// bind and unbind, so an unprefixed element finds its namespace without a search.
    private var defaultBinding = -1

    /// Declares the element's namespace declarations, resolves its name and its attributes'
    /// names, and checks the constraints: QNames, declared prefixes, the `xml` and `xmlns`
    /// rules, no undeclared prefix (`xmlns:p=""`), unique expanded attribute names.
    ///
    /// Inlined into the tokenizer for the common case, an element with no attributes and no
    /// prefix: nothing to declare or check but the name.
    @inline(__always)
    mutating func startElement(
        _ element: inout XMLStartElement, attributes: inout [XMLAttributeEvent], options: XMLParsingOptions
    ) throws(Failure) {
        if attributes.isEmpty && element.name.isUnprefixedQualifiedName {
            depth &+= 1
            if defaultBinding >= 0 { takeDefaultNamespace(&element) }
            return
        }
        try startElementInFull(&element, attributes: &attributes, options: options)
    }

    /// Puts an unprefixed element in the default namespace, if one is declared.
    private func takeDefaultNamespace(_ element: inout XMLStartElement) {
        if let uri = bindings[defaultBinding].uri {
            element.namespaceURI = uri
            element.binding = bindings[defaultBinding].serial
        }
    }

    /// ``startElement(_:attributes:options:)`` for an element with attributes or a prefix.
    private mutating func startElementInFull(
        _ element: inout XMLStartElement, attributes: inout [XMLAttributeEvent], options: XMLParsingOptions
    ) throws(Failure) {
        depth += 1
        let mark = bindings.count
        defer {
            if bindings.count > mark {
                marks.append((depth, mark))
                markDepth = depth
            }
        }
        guard element.name.isQualifiedName, !element.name.hasXMLNSPrefix else { throw .malformed }
        var declarations = 0
        var prefixed = 0
        for attribute in attributes {
            let name = attribute.name
            guard name.isQualifiedName else { throw .malformed }
            guard attribute.isNamespaceDeclaration else {
                if name.prefix != nil { prefixed += 1 }
                continue
            }
            declarations += 1
            if declarations > options.maximumNamespaceDeclarationsPerElement {
                throw .limit(.tooManyNamespaceDeclarations(limit: options.maximumNamespaceDeclarationsPerElement))
            }
            let value = attribute.value
            if name.prefix == nil {
                // The default namespace: any name but the two reserved ones; empty undeclares.
                guard value != Self.xmlNamespace, value != Self.xmlnsNamespace else { throw .malformed }
                bind("", to: value.isEmpty ? nil : value)
            } else {
                let prefix = name.local
                guard prefix != "xmlns", value != Self.xmlnsNamespace, !value.isEmpty else { throw .malformed }
                // `xml` only to its own namespace, and nothing else to it.
                guard (prefix == "xml") == (value == Self.xmlNamespace) else { throw .malformed }
                bind(prefix, to: value)
            }
        }
        if bindings.count > options.maximumNamespaceDeclarationsInScope {
            throw .limit(.tooManyNamespacesInScope(limit: options.maximumNamespaceDeclarationsInScope))
        }
        // The element's name: a prefix must be bound; no prefix takes the default namespace.
        if let prefix = element.name.prefix {
            if element.name.hasXMLPrefix {
                element.namespaceURI = Self.xmlNamespace
                element.binding = XMLStartElement.xmlBinding
            } else {
                guard let binding = binding(of: prefix), let uri = binding.uri else { throw .malformed }
                element.namespaceURI = uri
                element.binding = binding.serial
            }
        } else if defaultBinding >= 0, let uri = bindings[defaultBinding].uri {
            element.namespaceURI = uri
            element.binding = bindings[defaultBinding].serial
        }
        // Attributes: only prefixed ones are in a namespace.
        guard prefixed > 0 else { return }
        for index in attributes.indices where !attributes[index].isNamespaceDeclaration {
            guard let prefix = attributes[index].name.prefix else { continue }
            if prefix == "xml" {
                attributes[index].namespaceURI = Self.xmlNamespace
            } else {
                guard let binding = binding(of: prefix), let uri = binding.uri else { throw .malformed }
                attributes[index].namespaceURI = uri
            }
        }
        // Two prefixes bound to one namespace must not name the same attribute twice (names and
        // namespace names compared code point by code point, as everywhere here).
        guard prefixed > 1 else { return }
        if prefixed <= 16 {
            for first in attributes.indices where attributes[first].namespaceURI != nil {
                for second in attributes.indices where second > first && attributes[second].namespaceURI != nil {
                    if XMLCharacters.equalAsWritten(attributes[first].name.local, attributes[second].name.local)
                        && XMLCharacters.equalAsWritten(attributes[first].namespaceURI, attributes[second].namespaceURI)
                    {
                        throw .malformed
                    }
                }
            }
        } else {
            // Keyed by bytes, as names are compared: the namespace name, a NUL (which no XML
            // text holds) and the local name.
            var seen = Set<[UInt8]>()
            for attribute in attributes {
                guard let uri = attribute.namespaceURI else { continue }
                guard seen.insert(Array(uri.utf8) + [0] + Array(attribute.name.local.utf8)).inserted else {
                    throw .malformed
                }
            }
        }
    }

    /// Forgets every binding, keeping the storage: a resolver for another document.
    mutating func reset() {
        bindings.removeAll(keepingCapacity: true)
        marks.removeAll(keepingCapacity: true)
        depth = 0
        markDepth = -1
        serial = 0
        defaultBinding = -1
    }

    /// Whether the storage kept by ``reset()`` is small enough to keep between documents.
    var isSmall: Bool { bindings.capacity <= 256 && marks.capacity <= 256 }

    /// Ends the innermost element's scope. Inlined into the tokenizer: most elements declared
    /// nothing.
    @inline(__always)
    mutating func endElement() {
        guard depth == markDepth else {
            depth &-= 1
            return
        }
        endScope()
    }

    /// Ends the scope of the innermost element, which declared namespaces.
    private mutating func endScope() {
        defer { depth -= 1 }
        guard let last = marks.popLast() else { return }
        markDepth = marks.last?.depth ?? -1
        let mark = last.count
        bindings.removeSubrange(mark...)
        if defaultBinding >= mark {
            defaultBinding = -1
            var index = mark
            while index > 0 {
                index -= 1
                if bindings[index].prefix.isEmpty {
                    defaultBinding = index
                    break
                }
            }
        }
    }

    private mutating func bind(_ prefix: String, to uri: String?) {
        serial += 1
        if prefix.isEmpty { defaultBinding = bindings.count }
        bindings.append(Binding(prefix: prefix, uri: uri, serial: serial))
    }

    private func binding(of prefix: String) -> Binding? {
        var index = bindings.count
        while index > 0 {
            index -= 1
            if XMLCharacters.equalAsWritten(bindings[index].prefix, prefix) { return bindings[index] }
        }
        return nil
    }
}
