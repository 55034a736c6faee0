/// An `xsd:element` declaration: global, or local within a content model.
public struct XSDElement: Sendable, Hashable {
    /// The element's name. A local element's namespace is `nil` when it is unqualified
    /// (`form="unqualified"`, or `elementFormDefault` left at its default).
    public var name: QualifiedName
    /// Its type, or `nil` when the declaration gives none: then it has its substitution group
    /// head's type, or else `xsd:anyType`.
    public var type: XSDTypeReference?
    /// Whether it is global (a child of `xsd:schema`).
    public var isGlobal: Bool
    /// `nillable="true"` (or `"1"`): the element may be sent empty with `xsi:nil="true"`.
    public var isNillable: Bool
    /// `abstract="true"` (or `"1"`): only members of its substitution group may appear.
    public var isAbstract: Bool
    /// The `default` value.
    public var defaultValue: String?
    /// The `fixed` value.
    public var fixedValue: String?
    /// The head of the substitution group it belongs to (`substitutionGroup`).
    public var substitutionGroup: QualifiedName?
    /// Its `xsd:documentation` (or its anonymous type's).
    public var documentation: String?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes an element declaration.
    public init(
        name: QualifiedName, type: XSDTypeReference?, isGlobal: Bool, isNillable: Bool, isAbstract: Bool,
        defaultValue: String?, fixedValue: String?, substitutionGroup: QualifiedName?, documentation: String?,
        location: WSDLSourceLocation
    ) {
        self.name = name
        self.type = type
        self.isGlobal = isGlobal
        self.isNillable = isNillable
        self.isAbstract = isAbstract
        self.defaultValue = defaultValue
        self.fixedValue = fixedValue
        self.substitutionGroup = substitutionGroup
        self.documentation = documentation
        self.location = location
    }
}
