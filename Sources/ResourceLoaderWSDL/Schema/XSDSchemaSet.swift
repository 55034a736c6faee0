/// Every schema read for a WSDL, with its global components by name.
///
/// Components refer to each other by name, so recursive types are plain values. The built-in
/// types (``XSDBuiltInType``) and the well-known schemas (``WellKnownSchemas``) are not in these
/// tables: references to them resolve without a file.
public struct XSDSchemaSet: Sendable, Hashable {
    /// The schema documents, in the order they were read: inline schemas first, then what they
    /// import and include.
    public var schemas: [XSDSchema]
    /// The global elements.
    public var elements: [QualifiedName: XSDElement]
    /// The global simple and complex types.
    public var types: [QualifiedName: XSDType]
    /// The global attributes.
    public var attributes: [QualifiedName: XSDAttribute]
    /// The named model groups.
    public var groups: [QualifiedName: XSDGroup]
    /// The named attribute groups.
    public var attributeGroups: [QualifiedName: XSDAttributeGroup]

    /// Makes a schema set.
    public init(
        schemas: [XSDSchema] = [], elements: [QualifiedName: XSDElement] = [:], types: [QualifiedName: XSDType] = [:],
        attributes: [QualifiedName: XSDAttribute] = [:], groups: [QualifiedName: XSDGroup] = [:],
        attributeGroups: [QualifiedName: XSDAttributeGroup] = [:]
    ) {
        self.schemas = schemas
        self.elements = elements
        self.types = types
        self.attributes = attributes
        self.groups = groups
        self.attributeGroups = attributeGroups
    }

    /// The global element named `name`.
    public func element(named name: QualifiedName) -> XSDElement? { elements[name] }

    /// The global type named `name`.
    public func type(named name: QualifiedName) -> XSDType? { types[name] }

    /// The global elements whose substitution group head is `head`, sorted by name.
    public func substitutionGroupMembers(of head: QualifiedName) -> [XSDElement] {
        elements.values.filter { $0.substitutionGroup == head }.sorted { $0.name < $1.name }
    }

    /// The global complex types derived directly from `base` by extension or restriction, sorted
    /// by name: what `xsi:type` may name where `base` is declared.
    public func typesDerived(from base: QualifiedName) -> [XSDComplexType] {
        types.values.compactMap { type -> XSDComplexType? in
            guard case .complex(let complex) = type, complex.derivation?.base == base else { return nil }
            return complex
        }
        .sorted { ($0.name ?? QualifiedName(namespace: nil, name: "")) < ($1.name ?? QualifiedName(namespace: nil, name: "")) }
    }
}
