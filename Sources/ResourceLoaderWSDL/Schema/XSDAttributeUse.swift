/// One entry of a complex type's or attribute group's attributes.
public enum XSDAttributeUse: Sendable, Hashable {
    /// A local attribute declaration.
    case attribute(XSDAttribute)
    /// A reference to a global attribute (`ref=`), with the use, default and fixed value the
    /// reference gives.
    case reference(QualifiedName, use: XSDAttribute.Use, defaultValue: String?, fixedValue: String?)
    /// A reference to a named attribute group.
    case group(QualifiedName)
}
