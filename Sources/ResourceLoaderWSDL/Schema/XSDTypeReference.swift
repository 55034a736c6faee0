/// How a declaration gives its type: by name (a global type or a built-in one), or anonymously,
/// written inside it.
public indirect enum XSDTypeReference: Sendable, Hashable {
    /// A named type: a global type of the schemas, or a built-in type (see ``XSDBuiltInType``).
    case named(QualifiedName)
    /// A type written inside the declaration.
    case anonymous(XSDType)

    /// The name, for a named type.
    public var name: QualifiedName? {
        if case .named(let name) = self { return name }
        return nil
    }

    /// The built-in type it names, if it names one.
    public var builtIn: XSDBuiltInType? { name.flatMap(XSDBuiltInType.init(name:)) }
}
