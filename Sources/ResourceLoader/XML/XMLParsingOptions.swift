/// Limits applied while parsing an XML document.
///
/// The defaults suit web-service responses: documents up to 64 MiB, nested up to 512 levels.
/// A document past either limit fails with ``XMLParsingError/tooLarge(limit:)`` or
/// ``XMLParsingError/tooDeep(limit:)`` instead of consuming memory without bound.
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

    /// The deepest nesting of elements accepted; the root element is at depth 1.
    public var maximumDepth: Int
    /// The largest document accepted, in bytes.
    public var maximumDocumentSize: Int

    /// Creates options with the given limits.
    public init(
        maximumDepth: Int = XMLParsingOptions.defaultMaximumDepth,
        maximumDocumentSize: Int = XMLParsingOptions.defaultMaximumDocumentSize
    ) {
        self.maximumDepth = maximumDepth
        self.maximumDocumentSize = maximumDocumentSize
    }
}
