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
/// the document's size: libxml2 compares each attribute with the element's others and looks each
/// prefix up among the declarations in scope, so without the attribute and namespace limits a
/// hostile document of 1–2 MB could take tens of seconds. They are checked in the pass over the
/// bytes that runs before libxml2 sees them.
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
    /// Far more than any real element carries, and small enough that libxml2's duplicate check
    /// (each attribute against the element's others) costs a few comparisons per byte.
    public static let defaultMaximumAttributesPerElement = 256
    /// The default ``maximumNamespaceDeclarationsPerElement``: 128.
    ///
    /// A SOAP envelope declares a handful; a WS-* heavy one a few dozen.
    public static let defaultMaximumNamespaceDeclarationsPerElement = 128
    /// The default ``maximumNamespaceDeclarationsInScope``: 512.
    ///
    /// Enough for every level of a document of the default depth to redeclare its default
    /// namespace, and small enough that libxml2's search of the declarations in scope, once per
    /// prefixed name, stays a bounded cost per byte.
    public static let defaultMaximumNamespaceDeclarationsInScope = 512

    /// The deepest nesting of elements accepted; the root element is at depth 1.
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
