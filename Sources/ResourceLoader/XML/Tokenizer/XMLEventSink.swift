/// Receives what the tokenizer reads, in document order, once each token is complete and
/// checked: well-formed, within the limits and, with namespaces on, namespace-well-formed.
///
/// Events are only ever for a document that is well-formed so far; the tokenizer stops at the
/// first error, so a sink must discard what it built when parsing fails.
protocol XMLEventSink {
    /// A start tag (or an empty-element tag, followed at once by ``endElement()``).
    ///
    /// `attributes` holds every attribute as written (defaults from a DTD after them), namespace
    /// declarations included and flagged; it is the tokenizer's scratch storage, valid during
    /// the call only.
    mutating func startElement(_ element: XMLStartElement, attributes: [XMLAttributeEvent]) throws(XMLParsingError)
    /// A start tag without attributes or namespace declarations (most of them): the same as
    /// ``startElement(_:attributes:)`` with none, called instead so that the tokenizer need not
    /// hand over (and retain) its empty scratch array.
    mutating func startElement(_ element: XMLStartElement) throws(XMLParsingError)
    /// The end of the innermost open element.
    mutating func endElement()
    /// Character data (text, CDATA sections, references), line ends normalised. Valid during
    /// the call only; an element's text may come in several pieces.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>)
    /// A processing instruction (not the XML declaration), anywhere in the document.
    mutating func processingInstruction(target: String, data: UnsafeBufferPointer<UInt8>)
    /// A comment's text (between `<!--` and `-->`, line ends normalised), anywhere in the
    /// document but the document type declaration. Valid during the call only.
    mutating func comment(_ bytes: UnsafeBufferPointer<UInt8>)
    /// A document type declaration starts (only with
    /// ``XMLParsingOptions/DocumentTypeDeclarations-swift.enum/parseInternalSubset``).
    mutating func documentTypeDeclaration(name: String)
    /// A notation declaration in the internal subset.
    mutating func notationDeclaration(name: String, publicID: String?, systemID: String?)
    /// The document is complete and well-formed; `names` are the name table's names, by
    /// ``XMLStartElement/nameID``.
    mutating func endDocument(names: [XMLName])
}

extension XMLEventSink {
    mutating func startElement(_ element: XMLStartElement) throws(XMLParsingError) {
        try startElement(element, attributes: [])
    }

    mutating func comment(_ bytes: UnsafeBufferPointer<UInt8>) {}
    mutating func documentTypeDeclaration(name: String) {}
    mutating func notationDeclaration(name: String, publicID: String?, systemID: String?) {}
    mutating func endDocument(names: [XMLName]) {}
}

/// A start tag's name and, with namespaces on, what it resolved to.
struct XMLStartElement {
    /// The element's name. Not retained: the tokenizer's name table keeps it alive for the
    /// whole parse (a sink that keeps the name longer stores it in a variable of its own, which
    /// retains it), so handing a start tag on costs no reference counting.
    unowned(unsafe) var name: XMLName
    /// The name's number in the tokenizer's name table: equal names, equal numbers, counted
    /// from 0 (a sink can index an array with it). The table may also hold names of documents
    /// read before (see ``XMLNameTable``), so numbers need not start at 0 in each document.
    var nameID: Int
    /// The element's namespace URI (`nil`: no namespace, or namespaces off).
    var namespaceURI: String?
    /// The binding that gave the namespace: for a declared binding, a number unique in the
    /// document (the declarations counted from 1, so a sink can index an array with it);
    /// ``XMLStartElement/noBinding`` for none, ``XMLStartElement/xmlBinding`` for the `xml`
    /// prefix.
    var binding: Int

    /// No binding: no namespace.
    static let noBinding = -1
    /// The `xml` prefix, bound without a declaration.
    static let xmlBinding = -2
}

/// One attribute of a start tag.
struct XMLAttributeEvent {
    /// The attribute's name.
    var name: XMLName
    /// The normalised value.
    var value: String
    /// The attribute's namespace URI (prefixed attributes only, with namespaces on).
    var namespaceURI: String?
    /// Whether this is a namespace declaration (`xmlns`, `xmlns:p`) rather than an attribute
    /// (always `false` with namespaces off).
    var isNamespaceDeclaration: Bool
}
