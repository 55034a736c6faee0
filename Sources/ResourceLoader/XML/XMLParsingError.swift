/// Why a document could not be turned into an ``XMLTree``.
///
/// Every way a document can be refused has its own case, so callers can tell a hostile or
/// oversized document from a merely broken one. Resources report these errors as
/// ``ResourceError/parsing(_:)``, with the `XMLParsingError` as the failure's
/// ``ResourceError/ParsingFailure/underlying`` error.
///
/// Lines and columns count from 1; columns count bytes. LF, CR LF and a lone CR each end a line
/// (XML 1.0 §2.11).
public enum XMLParsingError: Error, Sendable, Hashable {
    /// The document has no bytes, or only whitespace.
    case empty
    /// The document is larger than ``XMLParsingOptions/maximumDocumentSize`` (`limit` bytes).
    case tooLarge(limit: Int)
    /// Elements, or the groups of a content model in the internal subset, are nested deeper
    /// than ``XMLParsingOptions/maximumDepth`` (`limit` levels).
    case tooDeep(limit: Int)
    /// The document is, or declares, an encoding the parser does not read (the name is as
    /// declared, or `"UTF-16"`, `"UTF-32"` or `"EBCDIC"` when recognised from the first bytes).
    ///
    /// The parser reads UTF-8 (with or without a byte order mark), US-ASCII and ISO-8859-1 (by
    /// any of their IANA names, in any case), and UTF-16 with a byte order mark, or without one
    /// when the XML declaration names `UTF-16LE` or `UTF-16BE`. Documents in the last three are
    /// transcoded to UTF-8 first; ``XMLParsingOptions/maximumDocumentSize`` applies before and
    /// after. Every other encoding (windows-1252, UTF-7, Shift_JIS, UTF-32, …), and a byte
    /// order mark that contradicts the declaration, is refused with this error.
    case unsupportedEncoding(String)
    /// The bytes at this position are not valid UTF-8.
    case invalidUTF8(line: Int, column: Int)
    /// A character (or character reference) at this position is not allowed in XML 1.0, such
    /// as NUL or another control character; or the bytes there are not a character in the
    /// document's encoding: a byte above 0x7F in US-ASCII, a lone surrogate or an odd final byte
    /// in UTF-16. In a transcoded document, columns count bytes of its UTF-8 form.
    case invalidCharacter(line: Int, column: Int)
    /// The document has a document type declaration (`<!DOCTYPE …>`).
    ///
    /// DTDs are refused outright: SOAP forbids them, and refusing them rules out external entity
    /// (XXE) and entity-expansion ("billion laughs") attacks.
    case doctypeNotAllowed
    /// The document refers to an entity other than the five XML predefines (`&lt;`, `&gt;`,
    /// `&amp;`, `&apos;`, `&quot;`) or a character reference. Such a reference would otherwise be
    /// dropped silently, together with the text around it.
    case undeclaredEntity(name: String, line: Int, column: Int)
    /// The document refers (in content) to an external entity its DTD declares; external
    /// entities are never read. Only with
    /// ``XMLParsingOptions/DocumentTypeDeclarations-swift.enum/parseInternalSubset``.
    case externalEntityNotRead(name: String, line: Int, column: Int)
    /// Expanding entities (and applying attribute defaults) would produce more than `limit`
    /// bytes of replacement text (see
    /// ``XMLParsingOptions/maximumEntityExpansionSize`` and
    /// ``XMLParsingOptions/maximumEntityExpansionRatio``): the end of "billion laughs" and
    /// quadratic-blowup documents.
    case entityExpansionTooLarge(limit: Int)
    /// Entity references nest deeper than ``XMLParsingOptions/maximumEntityNestingDepth``
    /// (`limit`).
    case entitiesNestedTooDeep(limit: Int)
    /// The document is not well-formed XML; the parser noticed it at this position.
    ///
    /// This includes an XML declaration that is not exactly `<?xml version="1.x"` with an
    /// optional `encoding` and `standalone`, in that order, and `?>`, all within 4,096 characters;
    /// and `<?xml` anywhere but at the very start of the document.
    case malformed(line: Int, column: Int)
    /// Something other than whitespace, comments or processing instructions follows the root
    /// element, such as a second root element.
    case contentAfterRoot(line: Int, column: Int)
    /// The document has no element at all.
    case noRoot
    /// The document ends before its root element is closed.
    case truncated
    /// A start or end tag, attributes included, is longer than `limit` bytes (8 MiB).
    ///
    /// The tokenizer reads a tag whole before it hands the element on, so a tag's length is
    /// bounded; it is refused as soon as the tag passes the limit. (Long text, CDATA sections,
    /// comments and processing instructions are not limited, apart from
    /// ``XMLParsingOptions/maximumDocumentSize``.)
    case tagTooLong(limit: Int)
    /// The name of an element, attribute or processing instruction is longer than `limit`
    /// bytes (50,000), checked while the name is read.
    case nameTooLong(limit: Int)
    /// An element has more attributes than ``XMLParsingOptions/maximumAttributesPerElement``
    /// (`limit`); namespace declarations are not counted. With a DTD read, defaults it adds
    /// count, and declaring more attributes than that for one element is refused too.
    case tooManyAttributes(limit: Int)
    /// An element declares more namespaces than
    /// ``XMLParsingOptions/maximumNamespaceDeclarationsPerElement`` (`limit`).
    case tooManyNamespaceDeclarations(limit: Int)
    /// More namespace declarations are in scope at an element (its own and its ancestors')
    /// than ``XMLParsingOptions/maximumNamespaceDeclarationsInScope`` (`limit`).
    case tooManyNamespacesInScope(limit: Int)
}

extension XMLParsingError: ContentFreeDescription {
    /// A one-line description that never quotes the document's text: not a declared encoding's
    /// name nor an entity's name, which stay on the associated values.
    public var description: String {
        switch self {
        case .empty:
            "The XML document is empty"
        case .tooLarge(let limit):
            "The XML document is larger than the limit of \(limit) bytes"
        case .tooDeep(let limit):
            "The XML document nests elements deeper than the limit of \(limit) levels"
        case .unsupportedEncoding:
            "The XML document's encoding is not supported"
        case .invalidUTF8(let line, let column):
            "The XML document is not valid UTF-8 at line \(line), column \(column)"
        case .invalidCharacter(let line, let column):
            "The XML document has a character XML 1.0 does not allow at line \(line), column \(column)"
        case .doctypeNotAllowed:
            "The XML document has a document type declaration (DOCTYPE), which is not allowed"
        case .undeclaredEntity(_, let line, let column):
            "The XML document refers to an undeclared entity at line \(line), column \(column)"
        case .externalEntityNotRead(_, let line, let column):
            "The XML document refers to an external entity, which is never read, at line \(line), column \(column)"
        case .entityExpansionTooLarge(let limit):
            "The XML document's entities expand to more than the limit of \(limit) bytes"
        case .entitiesNestedTooDeep(let limit):
            "The XML document nests entity references deeper than the limit of \(limit)"
        case .malformed(let line, let column):
            "The XML document is not well-formed at line \(line), column \(column)"
        case .contentAfterRoot(let line, let column):
            "The XML document has content after its root element at line \(line), column \(column)"
        case .noRoot:
            "The XML document has no root element"
        case .truncated:
            "The XML document ends before its root element is closed"
        case .tagTooLong(let limit):
            "The XML document has a tag longer than the limit of \(limit) bytes"
        case .nameTooLong(let limit):
            "The XML document has a name longer than the limit of \(limit) bytes"
        case .tooManyAttributes(let limit):
            "The XML document has an element with more attributes than the limit of \(limit)"
        case .tooManyNamespaceDeclarations(let limit):
            "The XML document has an element declaring more namespaces than the limit of \(limit)"
        case .tooManyNamespacesInScope(let limit):
            "The XML document has more namespace declarations in scope than the limit of \(limit)"
        }
    }
}
