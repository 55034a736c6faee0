/// Limits applied while parsing an XML document.
///
/// The defaults suit web-service responses: documents up to 64 MiB, nested up to 512 levels,
/// with up to 256 attributes per element, 128 namespace declarations per element and 512 in
/// scope. A document past a limit fails with ``XMLParsingError/tooLarge(limit:)``,
/// ``XMLParsingError/tooDeep(limit:)``, ``XMLParsingError/tooManyAttributes(limit:)``,
/// ``XMLParsingError/tooManyNamespaceDeclarations(limit:)`` or
/// ``XMLParsingError/tooManyNamespacesInScope(limit:)`` instead of consuming memory or time
/// without bound.
///
/// **Time.** Parsing runs after a request's deadline has stopped counting (the body has
/// arrived), so nothing but these limits bounds it. With them, parsing time grows linearly with
/// the document's size: each attribute is checked against the element's others and each prefix
/// looked up among the declarations in scope, so both counts are bounded. The tokenizer checks
/// each limit at the token that would pass it, before the element reaches the tree.
///
/// ```swift
/// var xmlParsingOptions: XMLParsingOptions {
///     XMLParsingOptions(maximumDepth: 64, maximumDocumentSize: 1 << 20)
/// }
/// ```
public struct XMLParsingOptions: Sendable, Hashable {
    /// The default ``maximumDepth``: 512 levels.
    public static let defaultMaximumDepth = 512
    /// The default ``maximumDocumentSize``: 64 MiB.
    public static let defaultMaximumDocumentSize = 64 * 1024 * 1024
    /// The default ``maximumAttributesPerElement``: 256.
    ///
    /// Far more than any real element carries, and small enough that the tokenizer's duplicate
    /// check (each attribute against the element's others) stays a bounded cost per byte.
    public static let defaultMaximumAttributesPerElement = 256
    /// The default ``maximumNamespaceDeclarationsPerElement``: 128.
    ///
    /// A SOAP envelope declares a handful; a WS-* heavy one a few dozen.
    public static let defaultMaximumNamespaceDeclarationsPerElement = 128
    /// The default ``maximumNamespaceDeclarationsInScope``: 512.
    ///
    /// Enough for every level of a document of the default depth to redeclare its default
    /// namespace, and small enough that the search of the declarations in scope, once per
    /// prefixed name, stays a bounded cost per byte.
    public static let defaultMaximumNamespaceDeclarationsInScope = 512

    /// The deepest nesting of elements accepted; the root element is at depth 1. With the
    /// internal subset read (``DocumentTypeDeclarations-swift.enum/parseInternalSubset``), also
    /// the deepest nesting of the groups in an element declaration's content model.
    public var maximumDepth: Int
    /// The largest document accepted, in bytes.
    public var maximumDocumentSize: Int
    /// The most attributes one element may have, namespace declarations (`xmlns`, `xmlns:p`)
    /// not counted.
    public var maximumAttributesPerElement: Int
    /// The most namespace declarations (`xmlns`, `xmlns:p`) one element may have.
    public var maximumNamespaceDeclarationsPerElement: Int
    /// The most namespace declarations that may be in scope at an element: its own and those of
    /// all its ancestors, counted even where an inner one redeclares a prefix.
    public var maximumNamespaceDeclarationsInScope: Int

    /// What the parser does with a document type declaration (`<!DOCTYPE …>`).
    public enum DocumentTypeDeclarations: Sendable, Hashable {
        /// Refuse any document that has one, with ``XMLParsingError/doctypeNotAllowed``. The
        /// default: SOAP forbids DTDs, and OWASP advises refusing them.
        case refuse
        /// Read the internal subset as a non-validating XML processor must: every declaration
        /// is checked for well-formedness, internal general entities are expanded (within
        /// ``XMLParsingOptions/maximumEntityExpansionSize``,
        /// ``XMLParsingOptions/maximumEntityExpansionRatio`` and
        /// ``XMLParsingOptions/maximumEntityNestingDepth``), attribute defaults are applied and
        /// attributes of tokenized types normalised. External entities and an external subset
        /// are never read: a reference to an external entity in content is
        /// ``XMLParsingError/externalEntityNotRead(name:line:column:)``.
        case parseInternalSubset
    }

    /// The default ``maximumEntityExpansionSize``: 1 MiB.
    public static let defaultMaximumEntityExpansionSize = 1 << 20
    /// The default ``maximumEntityExpansionRatio``: 10.
    public static let defaultMaximumEntityExpansionRatio = 10
    /// The default ``maximumEntityNestingDepth``: 16.
    public static let defaultMaximumEntityNestingDepth = 16

    /// What to do with a DTD. Default: ``DocumentTypeDeclarations-swift.enum/refuse``.
    public var documentTypeDeclarations = DocumentTypeDeclarations.refuse
    /// With a DTD allowed: the most bytes of entity replacement text read in all, every
    /// expansion counted (an entity used twice counts twice), and of attribute defaults applied
    /// to elements (names and values).
    public var maximumEntityExpansionSize = XMLParsingOptions.defaultMaximumEntityExpansionSize
    /// With a DTD allowed: past 64 KiB of expansions, their total may not exceed this many
    /// times the document's size.
    public var maximumEntityExpansionRatio = XMLParsingOptions.defaultMaximumEntityExpansionRatio
    /// With a DTD allowed: how deeply entity references may nest inside replacement texts.
    public var maximumEntityNestingDepth = XMLParsingOptions.defaultMaximumEntityNestingDepth

    /// Creates options with the given limits.
    public init(
        maximumDepth: Int = XMLParsingOptions.defaultMaximumDepth,
        maximumDocumentSize: Int = XMLParsingOptions.defaultMaximumDocumentSize,
        maximumAttributesPerElement: Int = XMLParsingOptions.defaultMaximumAttributesPerElement,
        maximumNamespaceDeclarationsPerElement: Int = XMLParsingOptions.defaultMaximumNamespaceDeclarationsPerElement,
        maximumNamespaceDeclarationsInScope: Int = XMLParsingOptions.defaultMaximumNamespaceDeclarationsInScope
    ) {
        self.maximumDepth = maximumDepth
        self.maximumDocumentSize = maximumDocumentSize
        self.maximumAttributesPerElement = maximumAttributesPerElement
        self.maximumNamespaceDeclarationsPerElement = maximumNamespaceDeclarationsPerElement
        self.maximumNamespaceDeclarationsInScope = maximumNamespaceDeclarationsInScope
    }
}
