import Foundation

/// A document read for canonicalization: every node in document order, comments, processing
/// instructions and the place of text between child elements included, which ``XMLTree`` does
/// not keep.
///
/// ```swift
/// let document = try XMLCanonicalDocument(data: envelope)
/// let c14n = ExclusiveXMLCanonicalization()
/// let whole = document.canonicalized(using: c14n)
/// let body = document.canonicalizedElement(withID: "Body-1", using: c14n)
/// ```
///
/// It is parsed by the same parser as ``XMLTree``, with the same limits and refusals (a
/// document type declaration is refused unless the options allow one), so there is never a
/// partial document. Read once, it canonicalizes as often as needed: the whole document, or one
/// element and its descendants (the node set an XML Signature `Reference` such as `URI="#id"`
/// selects; XML Signature 1.0 takes a bare-name reference without comments, so a signature
/// canonicalizes one with a method that drops them, as ``WSSecuritySigner`` does).
public struct XMLCanonicalDocument: Sendable {
    let nodes: [Node]

    /// Parses a document.
    ///
    /// - Parameters:
    ///   - data: The document's bytes, in any encoding ``XMLTree/init(data:options:)`` reads.
    ///   - options: The parser's limits. Default: ``XMLParsingOptions``' defaults.
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(data: Data, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        let (data, declaration) = try XMLTranscoder.utf8Document(data, options: options)
        let result: Result<XMLCanonicalSink, XMLParsingError> = data.withUnsafeBytes { raw in
            do throws(XMLParsingError) {
                let bytes = raw.bindMemory(to: UInt8.self)
                return .success(
                    try XMLStreamParser.parse(bytes, sink: XMLCanonicalSink(), options: options, declaration: declaration))
            } catch {
                return .failure(error)
            }
        }
        nodes = try result.get().nodes
    }

    /// The whole document, canonicalized: the root element and, around it, its siblings
    /// (comments, when the method keeps them, and processing instructions), each on a line of
    /// its own.
    public func canonicalized(using method: ExclusiveXMLCanonicalization) -> Data {
        render(nodes.indices, method: method, wholeDocument: true)
    }

    /// One element and its descendants, canonicalized: the element whose ID attribute has the
    /// value `id`.
    ///
    /// An ID attribute is one whose local name is `Id`, `ID` or `id`, in any namespace or none:
    /// `wsu:Id` in WS-Security, `xml:id`, or an unqualified `Id` as XML Signature writes on its
    /// own elements. Comments in the element are kept only when `method` keeps them.
    ///
    /// - Returns: The canonical bytes, or `nil` when no element, or more than one, has that ID
    ///   (an ambiguous reference is never resolved, so a signature cannot be made to cover an
    ///   element other than the one its verifier finds).
    public func canonicalizedElement(withID id: String, using method: ExclusiveXMLCanonicalization) -> Data? {
        guard let start = uniqueElement(withID: id) else { return nil }
        return render(start...endIndex(ofElementAt: start), method: method, wholeDocument: false)
    }

    /// The first element with this qualified name (prefix as written), canonicalized; `nil` when
    /// there is none.
    func canonicalizedFirstElement(named qualifiedName: String, using method: ExclusiveXMLCanonicalization) -> Data? {
        guard let start = nodes.firstIndex(where: { if case .start(let element) = $0 { element.qualifiedName == qualifiedName } else { false } })
        else { return nil }
        return render(start...endIndex(ofElementAt: start), method: method, wholeDocument: false)
    }

    /// The index of the one start tag with an ID attribute of value `id`.
    func uniqueElement(withID id: String) -> Int? {
        var found: Int?
        for (index, node) in nodes.enumerated() {
            guard case .start(let start) = node,
                start.attributes.contains(where: { ["Id", "ID", "id"].contains($0.localName) && $0.value == id })
            else { continue }
            if found != nil { return nil }
            found = index
        }
        return found
    }

    /// The index of the end tag of the element that starts at `start`.
    func endIndex(ofElementAt start: Int) -> Int {
        var index = start + 1
        while index < nodes.count {
            if case .end(let opened) = nodes[index], opened == start { return index }
            index += 1
        }
        return nodes.count - 1
    }
}

// MARK: - Nodes

extension XMLCanonicalDocument {
    /// One node of the document, in document order.
    enum Node: Sendable {
        case start(Start)
        /// An end tag; `start` is its start tag's index.
        case end(start: Int)
        case text(String)
        /// A comment; `depth` is the number of elements open around it (0: before or after the
        /// root element).
        case comment(String, depth: Int)
        case processingInstruction(target: String, data: String, depth: Int)
    }

    /// A start tag.
    struct Start: Sendable {
        var qualifiedName: String
        /// The prefix, `""` for none.
        var prefix: String
        /// The namespace declarations written on the element, in order.
        var declarations: [Declaration]
        /// The attributes that are not namespace declarations.
        var attributes: [Attribute]
        /// The parent's start index, -1 for the root.
        var parent: Int
    }

    /// A namespace declaration: `prefix` is `""` for the default namespace, and `namespaceURI`
    /// `""` when `xmlns=""` undeclares it.
    struct Declaration: Sendable {
        var prefix: String
        var namespaceURI: String
    }

    /// An attribute; `namespaceURI` is `""` for none.
    struct Attribute: Sendable {
        var qualifiedName: String
        var prefix: String?
        var localName: String
        var namespaceURI: String
        var value: String
    }
}
