/// An `xsd:attribute` declaration: global, or local to a complex type or attribute group.
public struct XSDAttribute: Sendable, Hashable {
    /// Whether an attribute must, may or must not appear.
    public enum Use: String, Sendable, Hashable {
        /// May appear (the default).
        case optional
        /// Must appear.
        case required
        /// Must not appear (in a restriction).
        case prohibited
    }

    /// The attribute's name; a local attribute's namespace is `nil` when it is unqualified.
    public var name: QualifiedName
    /// Its type, or `nil` for `xsd:anySimpleType`.
    public var type: XSDTypeReference?
    /// Whether it must appear.
    public var use: Use
    /// The `default` value.
    public var defaultValue: String?
    /// The `fixed` value.
    public var fixedValue: String?
    /// Its `xsd:documentation`.
    public var documentation: String?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes an attribute declaration.
    public init(
        name: QualifiedName, type: XSDTypeReference?, use: Use, defaultValue: String?, fixedValue: String?,
        documentation: String?, location: WSDLSourceLocation
    ) {
        self.name = name
        self.type = type
        self.use = use
        self.defaultValue = defaultValue
        self.fixedValue = fixedValue
        self.documentation = documentation
        self.location = location
    }
}
