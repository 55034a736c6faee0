/// A named attribute group (`xsd:attributeGroup name=`).
public struct XSDAttributeGroup: Sendable, Hashable {
    /// The group's name.
    public var name: QualifiedName
    /// Its attributes, in document order.
    public var attributes: [XSDAttributeUse]
    /// Its `xsd:anyAttribute`, if it has one.
    public var anyAttribute: XSDWildcard?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes an attribute group.
    public init(name: QualifiedName, attributes: [XSDAttributeUse], anyAttribute: XSDWildcard?, location: WSDLSourceLocation) {
        self.name = name
        self.attributes = attributes
        self.anyAttribute = anyAttribute
        self.location = location
    }
}
