/// What a particle of a content model is.
public indirect enum XSDTerm: Sendable, Hashable {
    /// A local element declaration.
    case element(XSDElement)
    /// A reference to a global element (`ref=`), or to any member of its substitution group.
    case elementReference(QualifiedName)
    /// `xsd:sequence`: the particles in order.
    case sequence([XSDParticle])
    /// `xsd:choice`: one of the particles.
    case choice([XSDParticle])
    /// `xsd:all`: the particles in any order.
    case all([XSDParticle])
    /// A reference to a named model group (`xsd:group ref=`).
    case group(QualifiedName)
    /// `xsd:any`: elements the schema does not declare, kept as raw XML.
    case any(XSDWildcard)
}
