import Foundation

/// An immutable XML document, parsed defensively from bytes.
///
/// ```swift
/// let tree = try XMLTree(data: responseBody)
/// let city = tree.root.element(atPath: ["Body", "getUserDetailsResponse"])?
///     .firstDescendant(named: "city")?.text
/// ```
///
/// Parsing goes through Foundation's `XMLParser` (libxml2), after a pass over the bytes that
/// refuses what libxml2 must not see. A document is refused with an ``XMLParsingError`` when it
/// is empty, too large or too deep (see ``XMLParsingOptions``), not UTF-8, has a DOCTYPE, refers to
/// an undeclared entity, is not well-formed, or has anything but exactly one root element. There
/// is never a partial tree.
///
/// Names are namespace-aware: every element and attribute knows its local name and namespace URI,
/// so look-ups work whatever prefixes the document happens to use. Text is delivered with entity
/// and character references decoded and CDATA sections included.
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
    ///   - data: The document's bytes, in UTF-8.
    ///   - options: The limits to apply. Default: ``XMLParsingOptions/init(maximumDepth:maximumDocumentSize:)``'s defaults.
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(data: Data, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        let report = try XMLPreflight.check(data, options: options)
        let body = report.byteOrderMarkLength == 0 ? data : Data(data.dropFirst(report.byteOrderMarkLength))
        storage = try XMLTreeBuilder.build(from: body, startTagCount: report.startTagCount, options: options)
    }

    /// Parses a document given as text.
    ///
    /// - Throws: ``XMLParsingError`` describing why the document was refused.
    public init(string: String, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) {
        try self.init(data: Data(string.utf8), options: options)
    }
}

// MARK: - Storage

extension XMLTree {
    /// The nodes of one document, in document order (each element before its descendants).
    ///
    /// Immutable once built; shared by every ``Element`` of the document.
    final class Storage: Sendable {
        let nodes: [Node]

        init(nodes: [Node]) {
            self.nodes = nodes
        }
    }

    /// One element. Its descendants are the nodes at `index + 1 ..< end`, so its first child, if
    /// any, is at `index + 1` and each child's next sibling starts at that child's `end`.
    struct Node: Sendable {
        var name: String
        var prefix: String?
        var namespaceURI: String?
        var attributes: [Attribute]
        var text: String
        var parent: Int?
        var end: Int
    }
}
