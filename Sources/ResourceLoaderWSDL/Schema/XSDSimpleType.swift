/// An `xsd:simpleType`, named or anonymous: text, narrowed by facets, or a list or union.
public struct XSDSimpleType: Sendable, Hashable {
    /// How the type is made.
    public enum Variety: Sendable, Hashable {
        /// `xsd:restriction` of a base type by facets, enumerations among them.
        case restriction(base: XSDTypeReference, facets: XSDFacets)
        /// `xsd:list`: whitespace-separated values of an item type.
        case list(itemType: XSDTypeReference)
        /// `xsd:union`: a value of any of the member types.
        case union(memberTypes: [XSDTypeReference])
    }

    /// The type's name, or `nil` for an anonymous type.
    public var name: QualifiedName?
    /// How the type is made.
    public var variety: Variety
    /// Its `xsd:documentation`.
    public var documentation: String?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes a simple type.
    public init(name: QualifiedName?, variety: Variety, documentation: String?, location: WSDLSourceLocation) {
        self.name = name
        self.variety = variety
        self.documentation = documentation
        self.location = location
    }

    /// The enumerated values, if the type is a restriction by enumeration.
    public var enumerations: [XSDFacets.Enumeration] {
        if case .restriction(_, let facets) = variety { return facets.enumerations }
        return []
    }
}
