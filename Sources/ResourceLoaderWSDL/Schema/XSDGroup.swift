/// A named model group (`xsd:group name=`): a sequence, choice or all that types refer to.
public struct XSDGroup: Sendable, Hashable {
    /// The group's name.
    public var name: QualifiedName
    /// Its content: a particle whose term is a sequence, choice or all.
    public var particle: XSDParticle
    /// Its `xsd:documentation`.
    public var documentation: String?
    /// Where it is declared.
    public var location: WSDLSourceLocation

    /// Makes a model group.
    public init(name: QualifiedName, particle: XSDParticle, documentation: String?, location: WSDLSourceLocation) {
        self.name = name
        self.particle = particle
        self.documentation = documentation
        self.location = location
    }
}
