/// How a complex type derives from another type: `xsd:extension` or `xsd:restriction` in
/// `xsd:simpleContent` or `xsd:complexContent`.
public struct XSDDerivation: Sendable, Hashable {
    /// Extension or restriction.
    public enum Method: String, Sendable, Hashable {
        /// Adds to the base type's content and attributes.
        case `extension`
        /// Narrows the base type's content.
        case restriction
    }

    /// Whether the content is text (`simpleContent`) or elements (`complexContent`).
    public enum Content: String, Sendable, Hashable {
        /// `xsd:simpleContent`: text with attributes.
        case simple
        /// `xsd:complexContent`: elements.
        case complex
    }

    /// Extension or restriction.
    public var method: Method
    /// Text or elements.
    public var content: Content
    /// The base type.
    public var base: QualifiedName
    /// The facets a `simpleContent` restriction adds (empty otherwise).
    public var facets: XSDFacets

    /// Makes a derivation.
    public init(method: Method, content: Content, base: QualifiedName, facets: XSDFacets = XSDFacets()) {
        self.method = method
        self.content = content
        self.base = base
        self.facets = facets
    }
}
