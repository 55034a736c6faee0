/// An `xsd:complexType`, named or anonymous.
///
/// Its own content only: a derived type's ``particle`` and ``attributes`` are what its
/// extension or restriction writes, and its ``derivation`` names the base that holds the rest.
public struct XSDComplexType: Sendable, Hashable {
    /// The type's name, or `nil` for an anonymous type.
    public var name: QualifiedName?
    /// `abstract="true"` (or `"1"`): only derived types may appear, named by `xsi:type`.
    public var isAbstract: Bool
    /// `mixed="true"` (or `"1"`): text may appear between the child elements. A
    /// `complexContent` that says `mixed` decides over its type.
    public var isMixed: Bool
    /// The base type and how it is derived from, if it is derived.
    public var derivation: XSDDerivation?
    /// Its content model, if it has child elements of its own.
    public var particle: XSDParticle?
    /// Its attributes, attribute references and attribute group references, in document order.
    public var attributes: [XSDAttributeUse]
    /// Its `xsd:anyAttribute`, if it has one.
    public var anyAttribute: XSDWildcard?
    /// Its `xsd:documentation`.
    public var documentation: String?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes a complex type.
    public init(
        name: QualifiedName?, isAbstract: Bool, isMixed: Bool, derivation: XSDDerivation?, particle: XSDParticle?,
        attributes: [XSDAttributeUse], anyAttribute: XSDWildcard?, documentation: String?, location: WSDLSourceLocation
    ) {
        self.name = name
        self.isAbstract = isAbstract
        self.isMixed = isMixed
        self.derivation = derivation
        self.particle = particle
        self.attributes = attributes
        self.anyAttribute = anyAttribute
        self.documentation = documentation
        self.location = location
    }
}
