import Foundation

/// Exclusive XML Canonicalization 1.0 (W3C Recommendation, 18 July 2002), with or without
/// comments: the byte form of a document, or of one element and its descendants, that XML
/// Signature digests and signs.
///
/// ```swift
/// let c14n = ExclusiveXMLCanonicalization()
/// let bytes = try c14n.canonicalize(envelope)            // the whole document
/// let body = try XMLCanonicalDocument(data: envelope)
///     .canonicalizedElement(withID: "Body-1", using: c14n) // one element, by its `wsu:Id`
/// ```
///
/// The output is UTF-8 without an XML declaration or document type declaration; empty elements
/// are written as start and end tags; attributes have their values normalised and are written
/// in double quotes, sorted by namespace URI and then local name; character data has `&`, `<`,
/// `>` and carriage returns escaped; CDATA sections become escaped text; white space outside the
/// root element is dropped; and line ends are `\n`.
///
/// What makes it *exclusive*: an element carries only the namespace declarations it *visibly
/// utilizes* (its own prefix, or the default namespace when it has none, and its attributes'
/// prefixes) that its nearest canonicalized ancestor has not already declared with the same
/// value. Declarations an element merely inherits, and `xml:` attributes of ancestors, are not
/// carried into a canonicalized element, so a signed element keeps its digest when it is moved
/// into another envelope. The prefixes of ``inclusiveNamespacePrefixes`` (the
/// `InclusiveNamespaces PrefixList`) are treated by the rules of inclusive canonicalization
/// instead: declared wherever they are in scope and not yet declared by a canonicalized ancestor.
public struct ExclusiveXMLCanonicalization: Sendable, Hashable {
    /// Whether comments are kept (the `#WithComments` variant). Default: `false`.
    public var includesComments: Bool
    /// The prefixes treated as inclusive canonicalization treats them: the
    /// `InclusiveNamespaces PrefixList`, with `#default` for the default namespace.
    public var inclusiveNamespacePrefixes: [String]

    /// The algorithm URI without comments.
    public static let algorithmURI = "http://www.w3.org/2001/10/xml-exc-c14n#"
    /// The algorithm URI with comments.
    public static let withCommentsAlgorithmURI = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"

    /// Creates a canonicalization method.
    ///
    /// - Parameters:
    ///   - includesComments: Whether comments are kept. Default: `false`.
    ///   - inclusiveNamespacePrefixes: The `InclusiveNamespaces PrefixList`, `#default` for the
    ///     default namespace. Default: none.
    public init(includesComments: Bool = false, inclusiveNamespacePrefixes: [String] = []) {
        self.includesComments = includesComments
        self.inclusiveNamespacePrefixes = inclusiveNamespacePrefixes
    }

    /// The algorithm's URI, as an XML Signature `CanonicalizationMethod` or `Transform` names it.
    public var algorithm: String { includesComments ? Self.withCommentsAlgorithmURI : Self.algorithmURI }

    /// Canonicalizes a whole document.
    ///
    /// - Parameters:
    ///   - document: The document's bytes, read by ``XMLCanonicalDocument/init(data:options:)``.
    ///   - options: The parser's limits. Default: ``XMLParsingOptions``' defaults.
    /// - Throws: ``XMLParsingError`` when the document is refused.
    public func canonicalize(_ document: Data, options: XMLParsingOptions = XMLParsingOptions()) throws(XMLParsingError) -> Data {
        try XMLCanonicalDocument(data: document, options: options).canonicalized(using: self)
    }
}
