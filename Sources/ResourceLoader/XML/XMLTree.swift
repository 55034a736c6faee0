import Foundation

/// An immutable XML document, parsed defensively from bytes.
///
/// ```swift
/// let tree = try XMLTree(data: responseBody)
/// let city = tree.root.element(atPath: ["Body", "getUserDetailsResponse"])?
///     .firstDescendant(named: "city")?.text
/// ```
///
/// Parsing goes through ResourceLoader's own XML 1.0 (fifth edition) and Namespaces 1.0 parser,
/// written in Swift: the same on every platform, with no dependency on Foundation's `XMLParser`
/// or libxml2. A document is refused with an ``XMLParsingError`` when it
/// is empty, too large or too deep (see ``XMLParsingOptions``), in an encoding other than UTF-8,
/// US-ASCII, ISO-8859-1 or UTF-16, has a DOCTYPE, refers to an undeclared entity, is not
/// well-formed, or has anything but exactly one root element. There is never a partial tree.
///
/// Documents in US-ASCII, ISO-8859-1 or UTF-16 are transcoded to UTF-8 before any other check
/// (see ``XMLParsingError/unsupportedEncoding(_:)``); the size limit applies before and after.
///
/// Names are namespace-aware: every element and attribute knows its local name and namespace URI,
/// so look-ups work whatever prefixes the document happens to use. A namespace name is a string,
/// compared as written: it need not be an absolute URI (`xmlns="tempuri"` is fine). Text is
/// delivered with entity and character references decoded and CDATA sections included, whatever
/// their length. Limits on attributes and namespace declarations (``XMLParsingOptions``), on the
/// length of a tag (8 MiB) and of a name (50,000 bytes) keep parsing time linear in the
/// document's size.
///
/// The tree is stored flat, in document order, so building, walking, comparing and releasing it
/// never recurse, however deep the document.
public struct XMLTree: Sendable {
    let storage: Storage

    /// The document's root element.
    public var root: Element { Element(storage: storage, index: 0) }

    /// Parses a document.
    ///
    /// - Parameters:
    ///   - data: The document's bytes: UTF-8 (with or without a byte order mark), or US-ASCII,
    ///     ISO-8859-1 or UTF-16 as its byte order mark or XML declaration says.
    ///   - options: The limits to apply. Default: ``XMLParsingOptions/init(maximumDepth:maximumDocumentSize:maximumAttributesPerElement:maximumNamespaceDeclarationsPerElement:maximumNamespaceDeclarationsInScope:)``'s defaults.
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(data: Data, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        storage = try Self.parsedStorage(data, options: options)
    }

    /// Parses a document given as text.
    ///
    /// The text is decoded already, so an encoding its XML declaration names is ignored (the
    /// declaration must still be well-formed); the size limit counts the text's UTF-8 bytes.
    ///
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(string: String, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        try self.init(data: XMLTranscoder.utf8Text(string, options: options), options: options)
    }
}

// MARK: - Parsing

extension XMLTree {
    /// Parses UTF-8 (or transcodable) `data` with ResourceLoader's own tokenizer.
    static func parsedStorage(_ data: Data, options: XMLParsingOptions) throws(XMLParsingError) -> Storage {
        let data = try XMLTranscoder.utf8Document(data, options: options)
        let result: Result<Storage, XMLParsingError> = data.withUnsafeBytes { raw in
            do throws(XMLParsingError) {
                let bytes = raw.bindMemory(to: UInt8.self)
                let sink = try XMLStreamParser.parse(
                    bytes, sink: XMLTreeSink(expectedNodes: min(bytes.count / 32, 1 << 20)), options: options)
                return .success(try sink.storage())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Storage

extension XMLTree {
    /// The nodes of one document, in document order (each element before its descendants), and
    /// the prefix/namespace pairs they use.
    ///
    /// Immutable once built; shared by every ``Element`` of the document.
    final class Storage: Sendable {
        let nodes: [Node]
        /// Each distinct binding elements used: `scopes[0]` is no prefix, no namespace.
        let scopes: [Scope]
        /// The namespace declarations (`xmlns`, `xmlns:p`) of the elements that have some, by node
        /// index, in the order written; a `nil` URI undeclares the default namespace
        /// (`xmlns=""`). Kept for resolving prefixes in text, such as a SOAP fault code.
        let declarations: [Int: [Scope]]

        init(nodes: [Node], scopes: [Scope], declarations: [Int: [Scope]] = [:]) {
            self.nodes = nodes
            self.scopes = scopes
            self.declarations = declarations
        }

        /// The namespace URI of the node at `index`.
        @inline(__always)
        func namespaceURI(of index: Int) -> String? { scopes[nodes[index].scope].namespaceURI }

        /// Whether the node at `index` has this local name (and namespace, unless `nil`).
        @inline(__always)
        func node(_ index: Int, matches name: String, namespaceURI: String?) -> Bool {
            nodes[index].name == name && (namespaceURI == nil || self.namespaceURI(of: index) == namespaceURI)
        }
    }

    /// An element's prefix, as written, and namespace URI.
    struct Scope: Sendable {
        var prefix: String?
        var namespaceURI: String?
    }

    /// One element. Its descendants are the nodes at `index + 1 ..< end`, so its first child, if
    /// any, is at `index + 1` and each child's next sibling starts at that child's `end`.
    ///
    /// Kept small (64 bytes): a large document has about one node per 30 bytes of input, so the
    /// prefix and namespace are an index into ``Storage/scopes`` rather than two strings.
    struct Node: Sendable {
        var name: String
        var text: String
        var attributes: [Attribute]
        /// The parent's index; -1 for the root.
        var parent: Int
        var end: Int
        /// The index of the element's prefix and namespace in ``Storage/scopes``.
        var scope: Int
    }
}
