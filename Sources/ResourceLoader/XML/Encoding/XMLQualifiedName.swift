/// An XML name with its namespace: what an element, an attribute or an XML Schema type is
/// called, whatever prefix a document gives it.
///
/// ```swift
/// let name = XMLQualifiedName("Order", namespaceURI: "urn:example:shop")
/// ```
public struct XMLQualifiedName: Sendable, Hashable, CustomStringConvertible {
    /// The namespace URI, or `nil` for a name in no namespace.
    public var namespaceURI: String?
    /// The local name, without a prefix.
    public var localName: String

    /// Creates a name. An empty `namespaceURI` means no namespace, as in XML.
    public init(_ localName: String, namespaceURI: String? = nil) {
        self.localName = localName
        self.namespaceURI = namespaceURI?.isEmpty == true ? nil : namespaceURI
    }

    /// The name in James Clark's notation: `{urn:example:shop}Order`, or `Order` in no namespace.
    public var description: String {
        namespaceURI.map { "{\($0)}\(localName)" } ?? localName
    }
}
